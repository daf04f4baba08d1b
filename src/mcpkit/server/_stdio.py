"""Serving a :class:`Server` over a message stream: stdio, or an in-memory pair for tests."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from mcpkit._runtime.session import SHUTDOWN_GRACE_SECONDS, RequestContext, Session
from mcpkit._runtime.stream import MessageStream
from mcpkit.protocol.errors import MessageDecodeError
from mcpkit.types.jsonrpc import JSONObject, Message, Notification

if TYPE_CHECKING:
    from mcpkit.server._server import Server

logger = logging.getLogger("mcpkit.server")


class _SessionNotifier:
    """Unsolicited notifications (list_changed, updated, …) for a legacy stream connection."""

    __slots__ = ("_session", "protocol_version")

    def __init__(self, session: Session) -> None:
        self._session = session
        self.protocol_version: str | None = None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        await self._session.send_notification(
            method, params, protocol_version=self._session.protocol_version
        )

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        return await self._session.send_request(method, params, timeout=timeout)


async def serve_stream(server: Server, stream: MessageStream, *, name: str = "server") -> None:
    """Serve one stream until the peer closes it. Legacy state lives as long as the stream."""
    connection = server.new_connection()

    async def on_request(ctx: RequestContext) -> JSONObject:
        result = await server.handle_request(ctx.request, ctx, connection=connection)
        if ctx.request.method == "initialize":
            ctx.session.protocol_version = connection.protocol_version
        return result

    def on_notification(note: Notification) -> None:  # inline: keeps the handshake ordered
        server.handle_notification(note.method, note.params, connection)

    async with (
        server.running(),
        Session(
            stream, request_handler=on_request, notification_handler=on_notification, name=name
        ) as session,
    ):
        connection.notify = _SessionNotifier(session)
        await session.wait_input_ended()
        await session.drain_handlers()


async def run_stdio(server: Server) -> None:
    """Serve on this process's stdin/stdout until stdin closes or the parent dies."""
    from mcpkit.transports.stdio_server import stdio_server

    async with stdio_server() as stream:
        await serve_stream(server, stream, name=f"{server.name}-stdio")


class InMemoryClientStream:
    """The client end of an in-memory connection; closing it also waits for the server side.

    So ``async with`` blocks that open one leave nothing running behind them.
    """

    def __init__(self, stream: MessageStream, server_task: asyncio.Task[None]) -> None:
        self._stream = stream
        self._server_task = server_task

    async def send(self, message: Message) -> None:
        await self._stream.send(message)

    async def receive(self) -> Message | MessageDecodeError | None:
        return await self._stream.receive()

    async def aclose(self) -> None:
        await self._stream.aclose()
        if not self._server_task.done():
            done, _ = await asyncio.wait([self._server_task], timeout=SHUTDOWN_GRACE_SECONDS + 1)
            if not done:
                self._server_task.cancel()
                await asyncio.wait([self._server_task])


def connect_in_memory(server: Server) -> InMemoryClientStream:
    """The client end of an in-memory pair whose server end is served in a background task.

    The server task ends when the client end is closed (its peer sees end of stream), and
    closing the client end waits for that.
    """
    from mcpkit.transports.memory import memory_pair

    client_end, server_end = memory_pair()
    task = asyncio.get_running_loop().create_task(
        serve_stream(server, server_end, name=f"{server.name}-memory")
    )
    return InMemoryClientStream(client_end, task)

"""Serving a :class:`Server` over a message stream: stdio, or an in-memory pair for tests."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from mcpkit._runtime.concurrency import race
from mcpkit._runtime.pending import PendingRequest
from mcpkit._runtime.session import (
    DEFAULT_MAX_CONCURRENT_REQUESTS,
    MAX_PENDING_OUTBOUND,
    MAX_QUEUED_REQUESTS,
    SHUTDOWN_GRACE_SECONDS,
    RequestContext,
    Session,
)
from mcpkit._runtime.stream import MessageStream
from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._connection import ServerConnection
from mcpkit.protocol._errors import MessageDecodeError
from mcpkit.types._jsonrpc import JSONObject, Message, Notification

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


async def serve_stream(
    server: Server,
    stream: MessageStream,
    *,
    name: str = "server",
    stop: asyncio.Event | None = None,
) -> None:
    """Serve one stream until the peer closes it (or ``stop`` is set: SIGTERM on stdio).

    Legacy state lives as long as the stream. At the end, this stream's open
    ``subscriptions/listen`` requests get their final result at once (a listen never finishes
    by itself, so it would otherwise hold the handler drain open to its timeout), then the
    other handlers get the grace period to finish.
    """
    # One protocol state for the stream: the engine admits every message (lifecycle, duplicate
    # ids, cancels, progress) and the server's per-session state shares its lifecycle.
    engine: ServerConnection[PendingRequest, RequestContext] = ServerConnection(
        server.legacy_versions(),
        max_outbound=MAX_PENDING_OUTBOUND,
        max_inbound=DEFAULT_MAX_CONCURRENT_REQUESTS + MAX_QUEUED_REQUESTS,
    )
    connection = server.new_connection(lifecycle=engine.lifecycle)

    def on_request(ctx: RequestContext) -> Awaitable[JSONObject]:
        # not a coroutine of its own: the session awaits the server's (one layer fewer)
        return server.handle_request(ctx.request, ctx, connection=connection)

    def on_notification(note: Notification) -> None:  # inline: keeps the handshake ordered
        server.handle_notification(note.method, note.params, connection)

    async with (
        server.running(),
        Session(
            stream,
            request_handler=on_request,
            notification_handler=on_notification,
            name=name,
            connection=engine,
        ) as session,
    ):
        connection.notify = _SessionNotifier(session)
        await _input_ended_or(session, stop)
        server.listen_hub.close_where(
            lambda outbound: getattr(outbound, "session", None) is session
        )
        await session.drain_handlers()


async def _input_ended_or(session: Session, stop: asyncio.Event | None) -> None:
    if stop is None:
        await session.wait_input_ended()
        return
    await race(session.wait_input_ended(), stop.wait())


async def run_stdio(server: Server) -> None:
    """Serve on this process's stdin/stdout until stdin closes or the parent dies."""
    from mcpkit.transports._stdio_server import stdio_server

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # SIGTERM and SIGINT (Ctrl-C) end gracefully: listens get their final result, and nothing
    # dies mid-write or prints a traceback
    handled: list[signal.Signals] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not main thread
            continue
        handled.append(signum)
    try:
        async with stdio_server() as stream:
            await serve_stream(server, stream, name=f"{server.name}-stdio", stop=stop)
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)


class InMemoryClientStream:
    """The client end of an in-memory connection; closing it also waits for the server side.

    So ``async with`` blocks that open one leave nothing running behind them: the server side
    is a task of this object's own :class:`TaskSet`.
    """

    def __init__(
        self, stream: MessageStream, tasks: TaskSet, server_task: asyncio.Task[None]
    ) -> None:
        self._stream = stream
        self._tasks = tasks
        self._server_task = server_task

    async def send(self, message: Message) -> None:
        await self._stream.send(message)

    async def receive(self) -> Message | MessageDecodeError | None:
        return await self._stream.receive()

    async def aclose(self) -> None:
        await self._stream.aclose()
        if not self._server_task.done():
            # the server side sees end of stream and winds down; cut it short past its grace
            await asyncio.wait([self._server_task], timeout=SHUTDOWN_GRACE_SECONDS + 1)
        await self._tasks.aclose()


def connect_in_memory(server: Server) -> InMemoryClientStream:
    """The client end of an in-memory pair whose server end is served in a background task.

    The server task ends when the client end is closed (its peer sees end of stream), and
    closing the client end waits for that.
    """
    from mcpkit.transports._memory import memory_pair

    client_end, server_end = memory_pair()
    tasks = TaskSet(asyncio.get_running_loop(), f"{server.name}-memory", logger)
    task = tasks.spawn(serve_stream(server, server_end, name=f"{server.name}-memory"))
    return InMemoryClientStream(client_end, tasks, task)

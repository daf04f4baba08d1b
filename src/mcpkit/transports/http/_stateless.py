"""A handshake-era POST to a stateless app: one message, one conversation, one engine.

An app built with ``stateless=True`` keeps no session: each legacy POST stands alone (no
``Mcp-Session-Id``, no ``GET`` stream, no server→client requests). Such a message still runs on
the protocol engine, like a message of any other transport: a
:class:`~mcpkit.protocol.connection.ServerConnection` made for it alone admits it (or refuses
it), takes a notification or a stray answer, and is the send point of everything the server
writes back (shaped for the revision, seen by the outbound observers). For ``initialize`` it is a
fresh connection whose lifecycle negotiates the revision; for anything else it is
:meth:`~mcpkit.protocol.connection.ServerConnection.for_stateless_request`, operating at the
request's revision, since no handshake can precede it. The server framework's per-conversation
state (``new_connection``) shares the engine's lifecycle, as a session's does; both are dropped
with the POST.
"""

from __future__ import annotations

from typing import Any

from mcpkit.protocol.connection import NotificationReceived, ServerConnection
from mcpkit.protocol.errors import ConnectionClosed
from mcpkit.transports.http._pipe import EventPipe
from mcpkit.transports.http._servable import HttpServable
from mcpkit.types.jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    Response,
)

__all__ = ["StatelessConversation"]

StatelessEngine = ServerConnection[None, None]
"""Nothing rides on a stateless request's entries: it runs in the POST's own task."""


class StatelessConversation:
    """The engine of one stateless POST and the server's state that shares its lifecycle."""

    __slots__ = ("connection", "engine")

    def __init__(self, engine: StatelessEngine, server: HttpServable) -> None:
        self.engine = engine
        self.connection: Any = server.new_connection(None, lifecycle=engine.lifecycle)

    @classmethod
    def operating(cls, server: HttpServable, protocol_version: str) -> StatelessConversation:
        """For a request, a notification or an answer: operating at ``protocol_version`` (the
        ``MCP-Protocol-Version`` header, or the transport's default)."""
        engine: StatelessEngine = ServerConnection.for_stateless_request(protocol_version)
        return cls(engine, server)

    @classmethod
    def handshake(cls, server: HttpServable) -> StatelessConversation:
        """For ``initialize``: a lifecycle that negotiates among the server's handshake-era
        revisions (read now, as a session's engine reads them when it is created)."""
        engine: StatelessEngine = ServerConnection(
            server.supported_versions, max_outbound=1, max_inbound=1
        )
        return cls(engine, server)

    def admit(self, request: Request) -> None:
        """Let the engine judge the request; raises the JSON-RPC error to answer it with (an
        ``initialize`` on an operating conversation, bad ``initialize`` params). Its in-flight
        entry is dropped with the engine, once the POST is answered."""
        self.engine.receive_request(request, None)

    def receive_notification(self, note: Notification) -> bool:
        """Feed a notification to the engine: ``True`` when the server should see it (a cancel
        names nothing in flight here, ``notifications/initialized`` ends no handshake)."""
        return isinstance(self.engine.receive_notification(note), NotificationReceived)

    def receive_answer(self, answer: Response | ErrorResponse) -> None:
        """A client's answer: this conversation asked nothing, so the engine drops it."""
        self.engine.receive(answer)

    def send(
        self, message: Message, protocol_version: str | None = None, method: str | None = None
    ) -> Message:
        """The send point of everything written back on this POST (see the module docstring)."""
        return self.engine.send(message, protocol_version, method)

    async def request(
        self,
        pipe: EventPipe | None,
        method: str,
        params: JSONObject | None,
        timeout: float | None,
    ) -> JSONObject:
        """Nothing can be asked: no session carries the client's answer back (the same error a
        2026 request's ``Outbound`` raises)."""
        raise ConnectionClosed(
            f"cannot send {method}: this request has no session to carry the client's "
            "answer (stateless HTTP)"
        )

"""A handshake-era POST to a stateless app: a conversation one message long, on the engine.

An app built with ``stateless=True`` keeps no session: each legacy POST stands alone (no
``Mcp-Session-Id``, no ``GET`` stream, no server→client requests). Its message still runs on
the protocol engine, like a message of any other transport:

* ``initialize`` on a fresh :class:`~mcpkit.protocol._connection.ServerConnection`, whose
  lifecycle negotiates the revision and checks the params, as a session's would;
* anything else on the app's :class:`~mcpkit.protocol._connection.StatelessServerConnection` for
  the request's revision (made on first use, at most one per handshake-era revision): operating,
  since no handshake can precede the request, and holding nothing of any one conversation, so
  one object judges them all. It admits the request (or refuses it), takes a notification or a
  stray answer, and is the send point of everything the server writes back (shaped for the
  revision, seen by the outbound observers).

The server framework's per-conversation state (``new_connection``: the log level and
subscriptions a request may set) is made for each POST and shares the engine's lifecycle, as a
session's does; it is dropped with the POST.
"""

from __future__ import annotations

from typing import Any

from mcpkit.protocol._connection import (
    NotificationReceived,
    ServerConnection,
    StatelessServerConnection,
)
from mcpkit.transports.http._server.exchange import no_session_to_ask
from mcpkit.transports.http._server.pipe import EventPipe
from mcpkit.transports.http._server.servable import HttpServable
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    Response,
)

__all__ = ["StatelessConversation", "StatelessConversations"]

Engine = ServerConnection[None, None]
"""Nothing rides on a stateless request's entry: it runs in the POST's own task."""


class StatelessConversation:
    """One POST's conversation: the engine that judges it, and the server's state for it."""

    __slots__ = ("connection", "engine")

    def __init__(self, engine: Engine, connection: Any) -> None:
        self.engine = engine
        self.connection = connection

    def admit(self, request: Request) -> None:
        """Let the engine judge the request; raises the JSON-RPC error to answer it with (bad
        ``initialize`` params, an ``initialize`` where no handshake can happen)."""
        self.engine.receive_request(request, None)

    def receive_notification(self, note: Notification) -> bool:
        """Feed a notification to the engine: ``True`` when the server should see it (a cancel
        names nothing in flight here, ``notifications/initialized`` ends no handshake)."""
        return isinstance(self.engine.receive_notification(note), NotificationReceived)

    def receive_answer(self, answer: Response | ErrorResponse) -> None:
        """A client's answer: no request of ours is in flight here, so the engine drops it."""
        self.engine.receive(answer)

    def send(
        self, message: Message, protocol_version: str | None = None, method: str | None = None
    ) -> Message:
        """The send point of everything written back on this POST: the engine's."""
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
        raise no_session_to_ask(method)


class StatelessConversations:
    """Makes the conversation of each handshake-era POST to one stateless app."""

    __slots__ = ("_engines", "_server")

    def __init__(self, server: HttpServable) -> None:
        self._server = server
        self._engines: dict[str, Engine] = {}
        """The app's engine per revision (only handshake-era revisions get here: the router
        refuses any other ``MCP-Protocol-Version``)."""

    def operating(self, protocol_version: str) -> StatelessConversation:
        """For a request, a notification or an answer at ``protocol_version`` (the
        ``MCP-Protocol-Version`` header, or the transport's default)."""
        engine = self._engines.get(protocol_version)
        if engine is None:
            engine = self._engines[protocol_version] = StatelessServerConnection(protocol_version)
        return StatelessConversation(
            engine, self._server.new_connection(None, lifecycle=engine.lifecycle)
        )

    def handshake(self) -> StatelessConversation:
        """For ``initialize``: a fresh engine whose lifecycle negotiates among the server's
        handshake-era revisions (read now, as a session's engine reads them when it is made)."""
        engine: Engine = ServerConnection(
            self._server.supported_versions, max_outbound=1, max_inbound=1
        )
        return StatelessConversation(
            engine, self._server.new_connection(None, lifecycle=engine.lifecycle)
        )

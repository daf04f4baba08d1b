"""What the server knows about one request, whatever the era and the transport.

The transports hand the server an :class:`Outbound` (how to talk back to the client about this
request) and, for legacy traffic, the :class:`LegacyConnection` the request belongs to. The
dispatcher turns those into a :class:`RequestInfo` that the tool-facing :class:`Context` reads.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mcpkit._runtime.outbound import Outbound
from mcpkit.protocol._lifecycle import ServerLifecycle, ServerState
from mcpkit.protocol._meta import progress_token_of
from mcpkit.types._jsonrpc import JSONObject, Request, RequestId

__all__ = ["Era", "InputRequested", "InputRequired", "LegacyConnection", "Outbound", "RequestInfo"]

Era = Literal["legacy", "modern"]


class InputRequested(Exception):
    """Ends a 2026-07-28 round: the client must answer ``requests`` and retry.

    Raised by :class:`Context` inside a modern request (``ctx.elicit`` and the like, or
    ``ctx.require_input`` for ``inputRequests`` built elsewhere, as a gateway passes a
    backend's through); the dispatcher turns it into an ``InputRequiredResult`` with a sealed
    ``requestState`` holding ``answers`` (those of earlier rounds) and the request's ``memo``.
    Tools never catch it (it is not an ``MCPError`` so that generic ``except MCPError`` blocks
    in tools do not swallow it); a handler wrapper may, to see that a round ended (re-raise it).
    It is public (``mcpkit.server.InputRequested``) for those wrappers; named apart from the
    client's :class:`mcpkit.client.InputRequired`, the *result* a client may hold on to.
    """

    def __init__(self, requests: JSONObject, answers: JSONObject | None = None) -> None:
        super().__init__("input required")
        self.requests = requests
        self.answers: JSONObject = answers if answers is not None else {}


InputRequired = InputRequested
"""The name the server's modules use (kept: they predate the public name)."""


class LegacyConnection:
    """State of one handshake-era conversation (a stdio process, an HTTP session, a stateless
    HTTP POST).

    The handshake rules live in the sans-IO :class:`~mcpkit.protocol._lifecycle.ServerLifecycle`
    of the conversation's :class:`~mcpkit.protocol._connection.ServerConnection`, which the
    transport feeds every message: this shares that ``lifecycle`` (reading the negotiated
    revision and the client's declarations from it, never feeding it) and adds what the server
    keeps per session. Kept small (slots, no tasks): an idle HTTP session must cost a few KiB at
    most.
    """

    __slots__ = (
        "__weakref__",
        "lifecycle",
        "log_level",
        "notify",
        "session_id",
        "subscriptions",
    )

    def __init__(self, lifecycle: ServerLifecycle, session_id: str | None = None) -> None:
        self.session_id = session_id
        self.lifecycle = lifecycle
        """The engine's: read here, fed only by the transport's ``ServerConnection``."""
        self.log_level: str | None = None
        self.subscriptions: set[str] = set()
        self.notify: Outbound | None = None
        """Where unsolicited notifications go (the stdio stream, or the HTTP GET stream)."""

    @property
    def protocol_version(self) -> str | None:
        return self.lifecycle.protocol_version

    @property
    def client_capabilities(self) -> JSONObject:
        return self.lifecycle.client_capabilities

    @property
    def client_info(self) -> JSONObject | None:
        return self.lifecycle.client_info or None

    @property
    def initialized(self) -> bool:
        """True once the client sent ``notifications/initialized`` after our result."""
        return self.lifecycle.state is ServerState.OPERATING

    def snapshot(self) -> dict[str, Any]:
        """What another process needs to serve this conversation (plain JSON data).

        Shared HTTP session stores (``mcpkit.contrib.redis``) keep it, so any worker can serve
        any request of a session; :meth:`restore` rebuilds the state from it.
        """
        lifecycle = self.lifecycle
        return {
            "state": lifecycle.state.value,
            "protocolVersion": lifecycle.protocol_version,
            "requestedVersion": lifecycle.requested_version,
            "capabilities": lifecycle.client_capabilities,
            "clientInfo": lifecycle.client_info,
            "logLevel": self.log_level,
            "subscriptions": sorted(self.subscriptions),
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Take over the state a :meth:`snapshot` (made by another process) describes."""
        lifecycle = self.lifecycle
        try:
            lifecycle.state = ServerState(snapshot.get("state"))
        except ValueError:
            lifecycle.state = ServerState.AWAITING_INITIALIZE
        lifecycle.protocol_version = _str_or_none(snapshot.get("protocolVersion"))
        lifecycle.requested_version = _str_or_none(snapshot.get("requestedVersion"))
        capabilities = snapshot.get("capabilities")
        lifecycle.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        info = snapshot.get("clientInfo")
        lifecycle.client_info = info if isinstance(info, dict) else {}
        self.log_level = _str_or_none(snapshot.get("logLevel"))
        subscriptions = snapshot.get("subscriptions")
        if isinstance(subscriptions, list):
            self.subscriptions = {uri for uri in subscriptions if isinstance(uri, str)}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class RequestInfo(msgspec.Struct):
    """Everything the handlers need about the request being served.

    A ``msgspec.Struct`` rather than a dataclass: built in C once per request (both eras), and
    its class costs no generated code at import (a stdio server imports this module at start).
    Copy with changes: ``msgspec.structs.replace``.
    """

    request: Request
    era: Era
    protocol_version: str
    client_capabilities: JSONObject
    client_info: JSONObject | None
    log_level: str | None
    outbound: Outbound
    connection: LegacyConnection | None = None
    auth: Any = None
    """The verified access token when the HTTP transport authenticated the request."""
    input_responses: JSONObject = msgspec.field(default_factory=dict)
    answers: JSONObject = msgspec.field(default_factory=dict)
    """MRTR answers gathered in earlier rounds (from the sealed ``requestState``)."""
    memo: dict[str, Any] = msgspec.field(default_factory=dict)
    """``ctx.memo`` values of earlier rounds (sealed in ``requestState`` with the answers)."""
    state_binding: bytes = b""

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def request_id(self) -> RequestId:
        return self.request.id

    @property
    def params(self) -> JSONObject:
        return self.request.params or {}

    @property
    def progress_token(self) -> str | int | None:
        return progress_token_of(self.request.params)

    @property
    def session_notifier(self) -> Outbound | None:
        """The legacy session's channel for unsolicited notifications (``None`` in 2026)."""
        return self.connection.notify if self.connection is not None else None

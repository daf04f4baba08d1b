"""The legacy (``initialize`` handshake) lifecycle, one state machine per role, h11 style.

Feed every message you receive to ``receive`` and every message you are about to send to
``send``; the machine checks it against the current state and advances. Modern (2026-07-28)
requests have no lifecycle: they never pass through here.

Server: ``AWAITING_INITIALIZE`` → (``initialize`` received) ``INITIALIZING`` → (its result sent)
``AWAITING_INITIALIZED`` → (``notifications/initialized`` received) ``OPERATING`` → ``CLOSED``.
Client: ``NEW`` → (``initialize`` sent) ``INITIALIZE_SENT`` → (result received) ``INITIALIZED`` →
(``notifications/initialized`` sent) ``OPERATING`` → ``CLOSED``.

Decisions (each documented because the spec leaves room):

* A request other than ``ping`` before the ``initialize`` result is answered with -32600 Invalid
  Request and the connection stays up (the reference SDK answers with an error too). So is a
  second ``initialize``.
* A request after our ``initialize`` result but before ``notifications/initialized`` is
  *accepted*: the spec only forbids requests before the result, and over HTTP the client's
  ``initialized`` POST can race its next request.
* A request after the client's ``notifications/initialized`` is accepted even when our result
  is still on its way: the client says it has the result, so it is only ahead of us (a client
  that writes a whole conversation at once, e.g. stdin from a file). It is served after
  ``initialize``, whose handler was started first.
* ``ping``, logging, progress and cancellation may flow before the handshake completes; any other
  request or notification we try to send then is a :class:`LocalProtocolError`.
* A peer's stray notification never gets an answer (JSON-RPC forbids it): ``receive`` returns
  ``False`` and the caller drops it.
* An error answer to ``initialize`` returns both sides to the start, so the client may retry.
* A stateless Streamable HTTP request has no handshake to wait for: its lifecycle is born
  operating at the request's revision (:meth:`ServerLifecycle.operating_at`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Final

from mcpkit.protocol._errors import InvalidParams, InvalidRequest, LocalProtocolError
from mcpkit.protocol._versions import accept_legacy_offer, negotiate_legacy
from mcpkit.types._jsonrpc import ErrorResponse, Message, Notification, Request, RequestId, Response
from mcpkit.types._method_names import CANCELLED_NOTIFICATION, PROGRESS_NOTIFICATION
from mcpkit.types._method_names import INITIALIZED_NOTIFICATION as INITIALIZED
from mcpkit.types._versions import LEGACY_VERSIONS

__all__ = ["ClientLifecycle", "ClientState", "ServerLifecycle", "ServerState"]

INITIALIZE: Final = "initialize"
PING: Final = "ping"
EARLY_NOTIFICATIONS: Final = frozenset(
    {"notifications/message", PROGRESS_NOTIFICATION, CANCELLED_NOTIFICATION}
)
"""Notifications allowed before the handshake completes (logging, and ones tied to a ping)."""


class ServerState(enum.Enum):
    AWAITING_INITIALIZE = "awaiting_initialize"
    INITIALIZING = "initializing"
    AWAITING_INITIALIZED = "awaiting_initialized"
    OPERATING = "operating"
    CLOSED = "closed"


class ClientState(enum.Enum):
    NEW = "new"
    INITIALIZE_SENT = "initialize_sent"
    INITIALIZED = "initialized"
    OPERATING = "operating"
    CLOSED = "closed"


def _require_object(params: dict[str, Any], key: str) -> dict[str, Any]:
    value = params.get(key)
    if not isinstance(value, dict):
        problem = "is missing" if value is None else "must be an object"
        raise InvalidParams(f'initialize: "{key}" {problem}')
    return value


class ServerLifecycle:
    """The server side. After ``initialize`` is received, ``protocol_version`` holds the version
    to answer with, and ``client_capabilities`` / ``client_info`` what the client declared."""

    def __init__(self, supported_versions: Sequence[str] = LEGACY_VERSIONS) -> None:
        self.supported_versions = tuple(supported_versions)
        self.state = ServerState.AWAITING_INITIALIZE
        self.protocol_version: str | None = None
        self.requested_version: str | None = None
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] = {}
        self._initialize_id: RequestId | None = None
        self._initialized_early = False

    def receive(self, message: Message) -> bool:
        """Check an inbound message and advance.

        Returns ``True`` to process it, ``False`` to drop it (a stray notification). For a request
        that is illegal now, raises the :class:`~mcpkit.protocol._errors.JSONRPCError` to answer
        it with.
        """
        state = self.state
        if state is ServerState.CLOSED:
            raise LocalProtocolError("the session is closed; no more messages are processed")
        if isinstance(message, Request):
            self._receive_request(message)
            return True
        if isinstance(message, Notification):
            return self._receive_notification(message.method)
        return True  # responses are matched (or dropped) by the in-flight table

    def _receive_request(self, request: Request) -> None:
        method, state = request.method, self.state
        if method == INITIALIZE:
            if state is not ServerState.AWAITING_INITIALIZE:
                raise InvalidRequest(
                    "initialize was already received on this session; a session is initialized "
                    "once (start a new connection to initialize again)"
                )
            params = request.params or {}
            version = params.get("protocolVersion")
            if not isinstance(version, str):
                problem = "is missing" if version is None else "must be a string"
                raise InvalidParams(f'initialize: "protocolVersion" {problem}')
            capabilities = _require_object(params, "capabilities")
            client_info = _require_object(params, "clientInfo")
            self.protocol_version = negotiate_legacy(version, self.supported_versions)
            self.requested_version = version
            self.client_capabilities = capabilities
            self.client_info = client_info
            self._initialize_id = request.id
            self.state = ServerState.INITIALIZING
            return
        if method == PING or state in (ServerState.AWAITING_INITIALIZED, ServerState.OPERATING):
            return
        if state is ServerState.INITIALIZING and self._initialized_early:
            return  # the client already said initialized: it is ahead of our result
        if state is ServerState.AWAITING_INITIALIZE:
            raise InvalidRequest(f"{method} was received before initialize; send initialize first")
        raise InvalidRequest(
            f"{method} was received before the initialize result; wait for it (only ping is "
            "allowed meanwhile)"
        )

    def _receive_notification(self, method: str) -> bool:
        state = self.state
        if method == INITIALIZED:
            if state is ServerState.AWAITING_INITIALIZED:
                self.state = ServerState.OPERATING
                return True
            if state is ServerState.INITIALIZING:
                self._initialized_early = True  # completes once our result is sent
                return True
            return False  # before initialize, or a duplicate
        if state is ServerState.AWAITING_INITIALIZE:
            return method in EARLY_NOTIFICATIONS
        return True

    def send(self, message: Message) -> None:
        """Check an outbound message and advance; raises :class:`LocalProtocolError` if the
        current state forbids it."""
        state = self.state
        if state is ServerState.CLOSED:
            raise LocalProtocolError("the session is closed")
        if isinstance(message, Response | ErrorResponse):
            if self._initialize_id is not None and message.id == self._initialize_id:
                self._initialize_id = None
                if isinstance(message, Response):
                    early, self._initialized_early = self._initialized_early, False
                    self.state = (
                        ServerState.OPERATING if early else ServerState.AWAITING_INITIALIZED
                    )
                else:
                    self._reset()
            return
        if state is ServerState.OPERATING:
            return
        method = message.method
        if isinstance(message, Request):
            if method != PING:
                raise LocalProtocolError(
                    f"cannot send {method} before the client sent notifications/initialized "
                    "(only ping and logging are allowed until then)"
                )
        elif method not in EARLY_NOTIFICATIONS:
            raise LocalProtocolError(
                f"cannot send {method} before the client sent notifications/initialized"
            )

    def check_request(self, method: str) -> None:
        """Raise :class:`LocalProtocolError` if we may not send a ``method`` request now: before
        the client's ``notifications/initialized`` only ``ping`` may go (the spec's SHOULD NOT,
        kept as a rule so that a tool asking too early gets a clear error, not a confused peer).
        """
        if self.state is ServerState.CLOSED:
            raise LocalProtocolError("the session is closed")
        if self.state is not ServerState.OPERATING and method != PING:
            raise LocalProtocolError(
                f"cannot send {method} before the client sent notifications/initialized "
                "(only ping and logging are allowed until then)"
            )

    @classmethod
    def operating_at(cls, version: str) -> ServerLifecycle:
        """A lifecycle born in ``OPERATING`` at ``version``: the handshake is not skipped, there
        is none to have.

        For a stateless Streamable HTTP request (an app with ``stateless=True``): no session
        outlives a POST, so no handshake can precede a request, and the spec lets such a server
        serve each request on its own. The request's ``MCP-Protocol-Version`` header (or the
        transport's default) stands in for the negotiated revision; everything after follows
        the ordinary rules of an operating session (an ``initialize`` would be a second one).
        """
        lifecycle = cls((version,))
        lifecycle.state = ServerState.OPERATING
        lifecycle.protocol_version = version
        return lifecycle

    def close(self) -> None:
        self.state = ServerState.CLOSED

    def _reset(self) -> None:
        self.state = ServerState.AWAITING_INITIALIZE
        self.protocol_version = self.requested_version = None
        self.client_capabilities = {}
        self.client_info = {}
        self._initialized_early = False


class ClientLifecycle:
    """The client side. After the ``initialize`` result, ``protocol_version``,
    ``server_capabilities``, ``server_info`` and ``instructions`` hold what the server said;
    once ``initialize`` is sent, ``client_capabilities`` holds what we declared in it."""

    def __init__(self, supported_versions: Sequence[str] = LEGACY_VERSIONS) -> None:
        self.supported_versions = tuple(supported_versions)
        self.state = ClientState.NEW
        self.protocol_version: str | None = None
        self.client_capabilities: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        self.server_info: dict[str, Any] = {}
        self.instructions: str | None = None
        self._initialize_id: RequestId | None = None

    @property
    def initialize_id(self) -> RequestId | None:
        """The id of our pending ``initialize`` (which must never be cancelled)."""
        return self._initialize_id

    def send(self, message: Message) -> None:
        """Check an outbound message and advance; raises :class:`LocalProtocolError` if the
        current state forbids it."""
        state = self.state
        if state is ClientState.CLOSED:
            raise LocalProtocolError("the session is closed")
        if isinstance(message, Response | ErrorResponse):
            return  # answers to the server's requests (e.g. ping) are always allowed
        method = message.method
        if isinstance(message, Request):
            if method == INITIALIZE:
                if state is not ClientState.NEW:
                    raise LocalProtocolError("initialize was already sent on this session")
                self._initialize_id = message.id
                declared = (message.params or {}).get("capabilities")
                self.client_capabilities = declared if isinstance(declared, dict) else {}
                self.state = ClientState.INITIALIZE_SENT
            elif method == PING or state is ClientState.OPERATING:
                return
            elif state is ClientState.INITIALIZED:
                raise LocalProtocolError(f"send notifications/initialized before {method}")
            else:
                raise LocalProtocolError(
                    f"cannot send {method} before initialize has completed; initialize first"
                )
            return
        if method == INITIALIZED:
            if state is not ClientState.INITIALIZED:
                raise LocalProtocolError(
                    "notifications/initialized is sent exactly once, after the initialize result"
                )
            self.state = ClientState.OPERATING
        elif state is not ClientState.OPERATING and method not in EARLY_NOTIFICATIONS:
            raise LocalProtocolError(f"cannot send {method} before initialize has completed")

    def receive(self, message: Message) -> bool:
        """Check an inbound message and advance; see :meth:`ServerLifecycle.receive`.

        The ``initialize`` result is validated here: a version this client does not support
        raises :class:`~mcpkit.protocol._errors.RemoteProtocolError` and closes the lifecycle
        (the spec says to disconnect).
        """
        state = self.state
        if state is ClientState.CLOSED:
            raise LocalProtocolError("the session is closed; no more messages are processed")
        if isinstance(message, Response | ErrorResponse):
            if self._initialize_id is not None and message.id == self._initialize_id:
                self._initialize_id = None
                if isinstance(message, ErrorResponse):
                    self.state = ClientState.NEW  # the caller may retry, e.g. another version
                else:
                    self._accept_result(message.result)
            return True
        if isinstance(message, Request):
            if message.method == PING or state is ClientState.OPERATING:
                return True
            raise InvalidRequest(
                f"{message.method} was received before the initialize handshake completed "
                "(only ping is allowed until then)"
            )
        return message.method != INITIALIZED  # a client never receives that one

    def _accept_result(self, result: dict[str, Any]) -> None:
        try:
            version = accept_legacy_offer(result.get("protocolVersion"), self.supported_versions)
        except Exception:
            self.state = ClientState.CLOSED
            raise
        capabilities = result.get("capabilities")
        server_info = result.get("serverInfo")
        instructions = result.get("instructions")
        self.protocol_version = version
        self.server_capabilities = capabilities if isinstance(capabilities, dict) else {}
        self.server_info = server_info if isinstance(server_info, dict) else {}
        self.instructions = instructions if isinstance(instructions, str) else None
        self.state = ClientState.INITIALIZED

    def close(self) -> None:
        self.state = ClientState.CLOSED

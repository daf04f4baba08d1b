"""One MCP connection's protocol state, sans-IO: messages in → events, messages out → checked.

Like h11 for HTTP/1.1, a connection object owns every decision the protocol makes about one
conversation and does no I/O: the runtime (``mcpkit._runtime.session`` for stdio and memory)
feeds it each message it reads and asks it before each message it writes, and keeps only what
needs an event loop (futures, deadlines, tasks).

:class:`Connection` holds the role-agnostic JSON-RPC books every MCP peer keeps:

* our requests in flight: fresh ids, each response matched to its request, a late or bogus one
  dropped (:class:`~mcpkit.protocol._inflight.OutboundRequests`);
* the peer's requests in flight: a second request reusing an in-flight id is refused with -32600
  (:class:`~mcpkit.protocol._inflight.InboundRequests`);
* progress on our requests: a token bound to an in-flight request, values that must increase,
  nothing trusted after the result (:class:`~mcpkit.protocol._progress.ProgressTracker`);
* cancellation both ways (:mod:`~mcpkit.protocol._cancellation`);
* JSON-RPC batches, which only 2025-03-26 sessions accept (:mod:`~mcpkit.protocol._batch`);
* the one send point, :meth:`Connection.send`, where every outbound message is checked and the
  outbound observers (:mod:`~mcpkit.protocol._observe`: the schema check in tests, the wire log)
  see it.

:class:`ServerConnection` and :class:`ClientConnection` add what depends on the role: the
handshake lifecycle (:mod:`~mcpkit.protocol._lifecycle`), the negotiated revision, the era of each
request (one function, :func:`~mcpkit.protocol._meta.request_era`), capability gating of what we
ask of the peer, and the server's log-level threshold. :class:`StatelessServerConnection` is the
server's side of the conversations a stateless Streamable HTTP app has instead of sessions (one
POST each), at one revision.

The inbound methods come in two forms: :meth:`Connection.receive` returns one event object per
message (the readable, h11-like form), and the typed ``receive_request`` /
``receive_response`` / ``receive_notification`` that it is built from, which the runtime calls on
its hot path to skip the event allocation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Generic, TypeAlias, TypeVar

import msgspec

from mcpkit.protocol._batch import accepts_batches, check_batch
from mcpkit.protocol._cancellation import (
    cancel_outbound,
    receive_cancel,
    subscription_ended,
)
from mcpkit.protocol._capabilities import (
    CLIENT_CAPABILITY_FOR_METHOD,
    refuse_undeclared_question,
    require_client_capability,
    require_elicitation_mode,
    require_sampling,
    require_server_capability,
)
from mcpkit.protocol._errors import (
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    LocalProtocolError,
    MCPError,
    MessageDecodeError,
    MethodNotFound,
    UsageError,
)
from mcpkit.protocol._inflight import (
    MAX_IN_FLIGHT,
    MAX_INBOUND_IN_FLIGHT,
    InboundRequest,
    InboundRequests,
    OutboundRequest,
    OutboundRequests,
)
from mcpkit.protocol._lifecycle import ClientLifecycle, ClientState, ServerLifecycle, ServerState
from mcpkit.protocol._meta import LOG_LEVELS, is_modern_request, log_allowed
from mcpkit.protocol._progress import ProgressTracker, ProgressUpdate
from mcpkit.protocol._shape import prepare_outbound
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)
from mcpkit.types._method_names import CANCELLED_NOTIFICATION as CANCELLED
from mcpkit.types._method_names import INITIALIZED_NOTIFICATION as INITIALIZED
from mcpkit.types._method_names import PROGRESS_NOTIFICATION as PROGRESS
from mcpkit.types._versions import (
    LEGACY_VERSIONS,
    MODERN_VERSIONS,
    Era,
    era_of,
    is_legacy,
    is_modern,
)
from mcpkit.types.meta import PROGRESS_TOKEN

__all__ = [
    "CancelReceived",
    "ClientConnection",
    "Connection",
    "Event",
    "Ignored",
    "NotificationReceived",
    "ProgressReceived",
    "Rejected",
    "RequestReceived",
    "ResponseReceived",
    "ServerConnection",
    "StatelessServerConnection",
    "SubscriptionEnded",
]

PING: Final = "ping"

O = TypeVar("O")  # noqa: E741  # what the runtime attaches to our requests (a future)
I = TypeVar("I")  # noqa: E741  # what the runtime attaches to the peer's requests (a task)


# -- events ----------------------------------------------------------------------------------


class RequestReceived(msgspec.Struct, Generic[I], frozen=True):
    """The peer's request passed every check: serve it, then call ``request_done``."""

    entry: InboundRequest[I]
    request: Request
    era: Era


class Rejected(msgspec.Struct, frozen=True):
    """The peer's request may not be served: answer it with ``error`` (``response()``)."""

    request: Request
    error: JSONRPCError

    def response(self) -> ErrorResponse:
        return ErrorResponse(self.request.id, self.error.to_error_object())


class ResponseReceived(msgspec.Struct, Generic[O], frozen=True):
    """The answer to one of our requests (already removed from the in-flight table)."""

    entry: OutboundRequest[O]
    response: Response | ErrorResponse


class NotificationReceived(msgspec.Struct, frozen=True):
    """A notification for the layers above (no protocol bookkeeping needed)."""

    notification: Notification


class CancelReceived(msgspec.Struct, Generic[I], frozen=True):
    """The peer cancelled one of its requests that we serve: stop it and send no answer."""

    entry: InboundRequest[I]
    reason: str


class ProgressReceived(msgspec.Struct, Generic[O], frozen=True):
    """Trusted progress on one of our requests in flight."""

    entry: OutboundRequest[O]
    update: ProgressUpdate
    notification: Notification


class SubscriptionEnded(msgspec.Struct, Generic[O], frozen=True):
    """2026 stdio: the server ended our ``subscriptions/listen`` (no response will come)."""

    entry: OutboundRequest[O]
    notification: Notification


class Ignored(msgspec.Struct, frozen=True):
    """A message the rules say to drop (a notification is never answered); ``reason`` is for
    the log, and ``malformed`` says the peer broke the protocol (worth a warning) rather than
    lost a race (a cancel or progress arriving after the answer)."""

    message: Message
    reason: str
    malformed: bool = False


if TYPE_CHECKING:
    Event: TypeAlias = (
        RequestReceived[Any]
        | Rejected
        | ResponseReceived[Any]
        | NotificationReceived
        | CancelReceived[Any]
        | ProgressReceived[Any]
        | SubscriptionEnded[Any]
        | Ignored
    )
"""What :meth:`Connection.receive` returns (one of the event structs above)."""


def __getattr__(name: str) -> Any:
    """``Event`` is built on first use (PEP 562): subscripting five generic structs and joining
    eight types costs ~1.6 M instructions, and serving never needs the union at run time."""
    if name != "Event":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    event = (
        RequestReceived[Any]
        | Rejected
        | ResponseReceived[Any]
        | NotificationReceived
        | CancelReceived[Any]
        | ProgressReceived[Any]
        | SubscriptionEnded[Any]
        | Ignored
    )
    globals()["Event"] = event
    return event


# -- the shared books --------------------------------------------------------------------------


class Connection(Generic[O, I]):
    """The JSON-RPC books of one connection, whatever its role (see the module docstring).

    ``protocol_version`` is the negotiated revision once known; the role classes derive it from
    their lifecycle, a bare :class:`Connection` is told (``set_protocol_version``).
    """

    def __init__(
        self,
        *,
        max_outbound: int = MAX_IN_FLIGHT,
        max_inbound: int = MAX_INBOUND_IN_FLIGHT,
        protocol_version: str | None = None,
    ) -> None:
        self.outbound: OutboundRequests[O] = OutboundRequests(max_outbound)
        self.inbound: InboundRequests[I] = InboundRequests(max_inbound)
        self.progress = ProgressTracker(max_outbound)
        self._protocol_version = protocol_version
        self.closed = False

    # -- revision ----------------------------------------------------------------------------

    @property
    def protocol_version(self) -> str | None:
        return self._protocol_version

    def set_protocol_version(self, version: str | None) -> None:
        self._protocol_version = version

    @property
    def era(self) -> Era | None:
        """The era of the negotiated revision (``None`` before one is known)."""
        version = self.protocol_version
        return era_of(version) if version else None

    @property
    def accepts_batches(self) -> bool:
        return accepts_batches(self.protocol_version)

    # -- inbound -----------------------------------------------------------------------------

    def receive(self, message: Message, value: I | None = None) -> Event:
        """Feed one message from the peer and learn what to do with it.

        For a request, ``value`` is what the runtime attaches to it while it is served (it is
        returned in :class:`RequestReceived`'s ``entry``).
        """
        if isinstance(message, Request):
            try:
                entry = self.receive_request(message, value)  # type: ignore[arg-type]
            except JSONRPCError as exc:
                return Rejected(message, exc)
            return RequestReceived(entry, message, self.request_era(message))
        if isinstance(message, Response | ErrorResponse):
            if message.id is None and isinstance(message, ErrorResponse):
                # "id": null: the peer could not read one of our messages well enough to name
                # it (JSON-RPC 2.0 §5); no request can be failed for it
                return Ignored(
                    message, f"the peer could not read a message we sent: {message.error.message}"
                )
            matched = self.receive_response(message)
            if matched is None:
                return Ignored(message, f"a response to unknown request id {message.id!r}")
            return ResponseReceived(matched, message)
        return self.receive_notification(message)

    def receive_batch(self, items: Sequence[Message | MessageDecodeError]) -> None:
        """Check that this connection may take ``items`` as one batch; raises the -32600 to
        answer the whole batch with otherwise. The runtime then feeds each member to
        :meth:`receive` and collects the answers in a :class:`~mcpkit.protocol._batch.BatchAnswers`.
        """
        check_batch(items, self.protocol_version)

    def request_era(self, request: Request) -> Era:
        """The era of one request: modern when its ``_meta`` names a version, else this
        connection's (legacy when unknown)."""
        if is_modern_request(request.params):
            return "modern"
        return "legacy"

    def receive_request(self, request: Request, value: I) -> InboundRequest[I]:
        """Start tracking the peer's request; raises the JSON-RPC error to answer it with (a
        duplicate in-flight id -32600, too many in flight -32603, or what the role refuses)."""
        self._admit(request)
        return self.inbound.add(request.id, request.method, value)

    def _admit(self, request: Request) -> None:
        """The role's checks on an inbound request (the lifecycle); raise to refuse it."""
        if self.closed:
            raise LocalProtocolError("the connection is closed; no more messages are processed")

    def request_done(self, request_id: RequestId) -> InboundRequest[I] | None:
        """The peer's request is over (answered, cancelled or abandoned): forget it."""
        return self.inbound.remove(request_id)

    def receive_response(self, response: Response | ErrorResponse) -> OutboundRequest[O] | None:
        """Match an answer to our request (removing it), or ``None`` when it answers nothing we
        wait for: log and drop it, never answer a response."""
        entry = self.outbound.resolve(response.id)
        if entry is not None:
            self._answered(entry, response)
        return entry

    def _answered(self, entry: OutboundRequest[O], response: Response | ErrorResponse) -> None:
        """The role's bookkeeping for an answer (the client lifecycle reads ``initialize``'s)."""

    def receive_notification(self, note: Notification) -> Event:
        method = note.method
        if method == CANCELLED:
            return self._receive_cancel(note)
        if method == PROGRESS:
            return self._receive_progress(note)
        return NotificationReceived(note)

    def _receive_cancel(self, note: Notification) -> Event:
        try:
            entry = receive_cancel(note.params, self.inbound, era=self.era or "legacy")
        except InvalidParams as exc:
            return Ignored(note, f"a malformed cancel: {exc.message}", malformed=True)
        if entry is not None:
            reason = (note.params or {}).get("reason")
            return CancelReceived(
                entry, reason if isinstance(reason, str) else "cancelled by the peer"
            )
        listen = subscription_ended(note.params, self.outbound)
        if listen is not None:
            self.progress.finish(listen.id)
            return SubscriptionEnded(listen, note)
        return Ignored(note, "a cancel for no request of the peer's in flight")

    def _receive_progress(self, note: Notification) -> Event:
        try:
            update = self.progress.receive(note.params)
        except InvalidParams as exc:
            return Ignored(note, f"malformed progress: {exc.message}", malformed=True)
        if update is None or update.request_id is None:
            return Ignored(note, "progress for no active token, or a value that did not increase")
        entry = self.outbound.get(update.request_id)
        if entry is None:
            return Ignored(note, "progress after the request's result")
        return ProgressReceived(entry, update, note)

    # -- outbound ----------------------------------------------------------------------------

    def start_request(
        self,
        method: str,
        params: JSONObject | None,
        value: O,
        *,
        progress: bool = False,
        now: float | None = None,
    ) -> Request:
        """Register one of our requests and build it (a fresh id; with ``progress`` a
        ``_meta.progressToken`` bound to it). Raises :class:`LocalProtocolError` when the role
        forbids sending it now, ``TooManyInFlight`` when the table is full. Call
        :meth:`end_request` once the caller stops waiting, whatever the outcome."""
        self._may_request(method, params)
        request_id = self.outbound.add(method, value, now=now)
        if progress:
            try:
                self.progress.start(request_id, request_id)
            except LocalProtocolError:
                self.outbound.resolve(request_id)
                raise
            params = dict(params or {})
            meta = params.get("_meta")
            params["_meta"] = {
                **(meta if isinstance(meta, dict) else {}),
                PROGRESS_TOKEN: request_id,
            }
            entry = self.outbound.get(request_id)
            if entry is not None:
                entry.progress_token = request_id
        return Request(request_id, method, params)

    def _may_request(self, method: str, params: JSONObject | None) -> None:
        """The role's checks before we send a request (lifecycle, capabilities)."""
        if self.closed:
            raise LocalProtocolError("the connection is closed")

    def end_request(self, request_id: int) -> None:
        """Our request is over for the caller: forget it and stop trusting its progress."""
        self.outbound.resolve(request_id)
        self.progress.finish(request_id)

    def cancel_request(self, request_id: int, reason: str | None = None) -> Notification | None:
        """Give up on one of our requests: returns the ``notifications/cancelled`` to send, or
        ``None`` when there is nothing to cancel (already answered, or ``initialize``, which
        must never be cancelled). A late answer is dropped either way."""
        try:
            _, params = cancel_outbound(self.outbound, request_id, reason)
        except LocalProtocolError:
            self.outbound.resolve(request_id)
            return None
        finally:
            self.progress.finish(request_id)
        return Notification(CANCELLED, params)

    def fail_all(self) -> list[OutboundRequest[O]]:
        """The connection ended: every request of ours in flight is failed by the caller."""
        return self.outbound.fail_all()

    def send(
        self, message: Message, protocol_version: str | None = None, method: str | None = None
    ) -> Message:
        """The one send point: check ``message`` against the role's rules, shape it for the
        revision (:mod:`~mcpkit.protocol._shape`: what that revision's schema lacks is not sent),
        let the outbound observers see it, and return what to write.

        ``protocol_version`` is the revision of a modern request's answer (each one names its
        own); ``None`` means the negotiated one. ``method`` is the message's method, or for a
        response the method of the request it answers.
        """
        version = protocol_version or self.protocol_version
        self._check_send(message, version)
        return prepare_outbound(message, version, method)  # shaped for the revision, observed

    def _check_send(self, message: Message, protocol_version: str | None) -> None:
        if self.closed and not isinstance(message, Response | ErrorResponse):
            raise LocalProtocolError("the connection is closed")

    def close(self) -> list[InboundRequest[I]]:
        """No more messages will flow: returns the peer's requests that were still served."""
        self.closed = True
        return self.inbound.clear()


# -- the server side ---------------------------------------------------------------------------


class ServerConnection(Connection[O, I]):
    """A server's side of one handshake-era conversation (stdio, memory, a legacy HTTP session);
    2026-07-28 requests pass through it too, each carrying its own revision in ``_meta``.

    ``lifecycle`` is the handshake state machine; ``log_level`` the ``logging/setLevel``
    threshold.
    """

    def __init__(
        self,
        supported_versions: Sequence[str] = LEGACY_VERSIONS,
        *,
        max_outbound: int = MAX_IN_FLIGHT,
        max_inbound: int = MAX_INBOUND_IN_FLIGHT,
        lifecycle: ServerLifecycle | None = None,
    ) -> None:
        super().__init__(max_outbound=max_outbound, max_inbound=max_inbound)
        self.lifecycle = (
            lifecycle
            if lifecycle is not None
            else ServerLifecycle(tuple(v for v in supported_versions if era_of(v) == "legacy"))
        )
        self.log_level: str | None = None

    @property
    def protocol_version(self) -> str | None:
        return self.lifecycle.protocol_version

    def set_protocol_version(self, version: str | None) -> None:
        self.lifecycle.protocol_version = version

    @property
    def client_capabilities(self) -> JSONObject:
        return self.lifecycle.client_capabilities

    @property
    def operating(self) -> bool:
        """True once the client sent ``notifications/initialized`` after our result."""
        return self.lifecycle.state is ServerState.OPERATING

    def receive_request(self, request: Request, value: I) -> InboundRequest[I]:
        # The hot path: once operating, the lifecycle has nothing to say about a request but a
        # second initialize, so only that (and every request before) goes through it; and a
        # 2026 request (a stdio connection that never saw initialize) only needs it open.
        if (
            self.lifecycle.state is not ServerState.OPERATING or request.method == "initialize"
        ) and (self.closed or not is_modern_request(request.params)):
            self._admit(request)
        return self.inbound.add(request.id, request.method, value)

    def _admit(self, request: Request) -> None:
        super()._admit(request)
        if not is_modern_request(request.params):  # 2026 requests have no lifecycle
            self.lifecycle.receive(request)

    def send(
        self, message: Message, protocol_version: str | None = None, method: str | None = None
    ) -> Message:
        lifecycle = self.lifecycle
        version = protocol_version or lifecycle.protocol_version
        # operating: everything may go; an answer to a 2026 request has no lifecycle either
        if lifecycle.state is not ServerState.OPERATING and (
            self.closed or version not in MODERN_VERSIONS
        ):
            self._check_send(message, version)
        return prepare_outbound(message, version, method)

    def receive_notification(self, note: Notification) -> Event:
        if not is_modern_request(note.params) and not self.lifecycle.receive(note):
            return Ignored(note, f"{note.method} is not expected in this state")
        return super().receive_notification(note)

    def _may_request(self, method: str, params: JSONObject | None) -> None:
        super()._may_request(method, params)
        self.lifecycle.check_request(method)  # only ping before notifications/initialized
        declared = self.client_capabilities
        if method == "sampling/createMessage":
            require_sampling(declared, params or {})
        elif method == "elicitation/create":
            mode = (params or {}).get("mode")
            require_elicitation_mode(declared, mode if isinstance(mode, str) else "form")
        else:
            path = CLIENT_CAPABILITY_FOR_METHOD.get(method)
            if path is not None:
                require_client_capability(declared, path, why=method)

    def _check_send(self, message: Message, protocol_version: str | None) -> None:
        super()._check_send(message, protocol_version)
        # what answers a 2026 request (and its related notifications) has no lifecycle
        if not self.closed and (protocol_version is None or not is_modern(protocol_version)):
            self.lifecycle.send(message)

    def set_log_level(self, level: object) -> None:
        """Apply ``logging/setLevel``; -32602 for a level RFC 5424 does not name."""
        if not isinstance(level, str) or level not in LOG_LEVELS:
            raise InvalidParams(f"level must be one of {', '.join(LOG_LEVELS)}")
        self.log_level = level

    def may_log(
        self, level: str, request_threshold: str | None = None, *, era: Era = "legacy"
    ) -> bool:
        """Whether a log message at ``level`` may go out: legacy against ``logging/setLevel``,
        modern against the request's ``_meta`` level (``request_threshold``)."""
        threshold = request_threshold if era == "modern" else self.log_level
        return log_allowed(level, threshold, era)

    def close(self) -> list[InboundRequest[I]]:
        self.lifecycle.close()
        return super().close()


class StatelessServerConnection(ServerConnection[O, I]):
    """The server's side of every stateless Streamable HTTP conversation at one revision: an
    app with ``stateless=True`` serving handshake-era requests without ``Mcp-Session-Id``.

    Such a conversation is one POST long, so no handshake can precede it: the lifecycle is born
    operating at the revision the request's ``MCP-Protocol-Version`` header names (or the
    transport's default; :meth:`~mcpkit.protocol._lifecycle.ServerLifecycle.operating_at`). And
    it keeps nothing of its own: ids of different POSTs are unrelated, so none is tracked in
    flight (a reused id is no duplicate), a cancel or an answer arrives in another POST and
    names nothing here (:class:`Ignored`), ``notifications/initialized`` ends no handshake
    (:class:`Ignored`), and nothing can be asked of the client, since no session carries its
    answer back (:class:`~mcpkit.protocol._errors.LocalProtocolError`). Hence one object judges
    every such conversation at its revision: it admits each request (an ``initialize`` would be
    a second handshake: -32600) and is the send point of what answers it (shaped for the
    revision, seen by the outbound observers). What the server keeps per conversation (the
    ``logging/setLevel`` threshold, subscriptions) lives with the request, not here.
    """

    def __init__(self, protocol_version: str) -> None:
        super().__init__(
            max_outbound=1,
            max_inbound=1,
            lifecycle=ServerLifecycle.operating_at(protocol_version),
        )

    def receive_request(self, request: Request, value: I) -> InboundRequest[I]:
        # as ServerConnection's hot path: operating, the lifecycle has nothing to say about a
        # request but a second initialize (and once closed, it refuses everything)
        if self.lifecycle.state is not ServerState.OPERATING or request.method == "initialize":
            self._admit(request)
        return InboundRequest(request.id, request.method, value)  # its POST's own, in no table

    def _may_request(self, method: str, params: JSONObject | None) -> None:
        raise LocalProtocolError(
            f"cannot send {method}: a stateless request has no session to carry the client's "
            "answer back"
        )

    def set_log_level(self, level: object) -> None:
        raise UsageError(
            "a stateless conversation has no log level of its own to set: keep it with the "
            "request it applies to"
        )


# -- the client side ---------------------------------------------------------------------------


class ClientConnection(Connection[O, I]):
    """A client's side of one conversation: stdio, memory, a legacy HTTP session, or the
    stateless 2026-07-28 exchanges over HTTP.

    It owns the era's verdict once the client's negotiation policy
    (:mod:`mcpkit.client._negotiate`) reached one, and everything that follows from it:

    * legacy: ``initialize`` passed through :meth:`send` and its result received drive the
      handshake lifecycle (:class:`~mcpkit.protocol._lifecycle.ClientLifecycle`), which holds
      the negotiated revision and the server's capabilities; until the result only ``ping``
      may be sent, and until ``notifications/initialized`` no other request;
    * 2026-07-28: a ``server/discover`` verdict is recorded with :meth:`adopt_discover` (that
      era has no lifecycle; each request carries its own revision);
    * the server's capabilities gate what we ask (:class:`MissingServerCapability` before
      anything is sent), and ours gate what the server may ask us (-32601 / -32602, see
      :func:`~mcpkit.protocol._capabilities.refuse_undeclared_question`); a 2026-07-28 server
      may ask nothing at all (its questions travel inside results): -32601.
    """

    def __init__(
        self,
        supported_versions: Sequence[str] = LEGACY_VERSIONS,
        *,
        max_outbound: int = MAX_IN_FLIGHT,
        max_inbound: int = MAX_INBOUND_IN_FLIGHT,
    ) -> None:
        super().__init__(max_outbound=max_outbound, max_inbound=max_inbound)
        self.lifecycle = ClientLifecycle(
            tuple(v for v in supported_versions if era_of(v) == "legacy")
        )
        self._modern_version: str | None = None
        self._modern_capabilities: JSONObject = {}
        self.handshake_error: MCPError | None = None
        """Why the ``initialize`` result was refused (a revision we do not speak), if it was."""
        self._allowed: set[str] = set()
        """Methods the server's current capabilities were found to allow (the hot path)."""
        self._renewal: ClientLifecycle | None = None
        """The handshake of a replacement session while it runs (:meth:`start_renewal`)."""
        self._initialize_result: JSONObject | None = None
        self.renewals = 0
        """How many times :meth:`finish_renewal` replaced the session's verdict: a layer that
        reports the verdict (``Client.negotiated``) compares it to know its report is stale."""

    @property
    def protocol_version(self) -> str | None:
        return self._modern_version or self.lifecycle.protocol_version

    def set_protocol_version(self, version: str | None) -> None:
        self.lifecycle.protocol_version = version

    @property
    def modern(self) -> bool:
        """True once a 2026-07-28 verdict was recorded (:meth:`adopt_discover`)."""
        return self._modern_version is not None

    @property
    def server_capabilities(self) -> JSONObject:
        if self._modern_version is not None:
            return self._modern_capabilities
        return self.lifecycle.server_capabilities

    @property
    def client_capabilities(self) -> JSONObject:
        """What we declared in ``initialize`` (legacy; 2026 requests each declare their own)."""
        return self.lifecycle.client_capabilities

    @property
    def server_info(self) -> JSONObject:
        """The ``serverInfo`` of the current session's ``initialize`` result (legacy)."""
        return self.lifecycle.server_info

    @property
    def instructions(self) -> str | None:
        """The ``instructions`` of the current session's ``initialize`` result (legacy)."""
        return self.lifecycle.instructions

    @property
    def initialize_result(self) -> JSONObject | None:
        """The current session's ``initialize`` result as received (legacy), once accepted."""
        return self._initialize_result

    @property
    def operating(self) -> bool:
        return self.lifecycle.state is ClientState.OPERATING

    def adopt_discover(self, version: str, capabilities: JSONObject) -> None:
        """Record a 2026-07-28 verdict: the revision chosen from a ``server/discover`` result
        and the capabilities it lists (again after a later ``server/discover``)."""
        if is_legacy(version):
            raise UsageError(f"{version} is a handshake-era revision: initialize negotiates it")
        if self.lifecycle.state is not ClientState.NEW:
            raise LocalProtocolError(
                "this connection already went through the initialize handshake"
            )
        self._modern_version = version
        self._modern_capabilities = dict(capabilities)
        self._allowed.clear()

    def initialize_outcome(self) -> str:
        """The revision the ``initialize`` handshake agreed on, once its result was received;
        raises why there is none (the server offered a revision we do not speak)."""
        if self.handshake_error is not None:
            raise self.handshake_error
        version = self.lifecycle.protocol_version
        if version is None or self.lifecycle.state not in (
            ClientState.INITIALIZED,
            ClientState.OPERATING,
        ):
            raise LocalProtocolError("no initialize result has been received on this connection")
        return version

    def start_renewal(self, request: Request) -> Message:
        """Begin the handshake of a replacement session: a legacy HTTP session the server
        forgot (404) is started again with a new ``initialize``, ``request``.

        A fresh lifecycle checks it while the current one keeps serving the requests already
        under way; returns ``request`` shaped for the revision it offers (and observed), to
        send. :meth:`finish_renewal` takes its answer."""
        if self._modern_version is not None:
            raise UsageError("a 2026-07-28 verdict has no session to renew")
        if self.lifecycle.state is not ClientState.OPERATING:
            raise LocalProtocolError("only an initialized session can be renewed")
        renewal = ClientLifecycle(self.lifecycle.supported_versions)
        renewal.send(request)
        self._renewal = renewal
        return prepare_outbound(request, None, request.method)

    def finish_renewal(self, response: Response | ErrorResponse) -> Message:
        """Record the replacement session's verdict from its ``initialize`` answer: the new
        lifecycle (revision, server capabilities, server info, instructions) replaces the old
        one, capability checks start over (requests sent from then on are gated and shaped by
        the new verdict), :attr:`renewals` counts it, and the ``notifications/initialized`` to
        send is returned, shaped for the new revision. An error answer, or a revision this
        client does not speak, raises (as a :class:`JSONRPCError` / :class:`MCPError`) and the
        old verdict stays."""
        renewal, self._renewal = self._renewal, None
        if renewal is None or response.id != renewal.initialize_id:
            raise LocalProtocolError("no renewal of the session is waiting for this answer")
        if isinstance(response, ErrorResponse):
            raise JSONRPCError.from_error_object(response.error)
        renewal.receive(response)  # checks the offered revision and reads the capabilities
        note = Notification(INITIALIZED)
        renewal.send(note)
        self.lifecycle = renewal
        self._initialize_result = response.result
        self._allowed.clear()
        self.renewals += 1
        return prepare_outbound(note, renewal.protocol_version, INITIALIZED)

    def _admit(self, request: Request) -> None:
        super()._admit(request)
        if self._modern_version is not None:
            raise MethodNotFound(
                f"{request.method}: a server sends no requests in protocol {self._modern_version}"
            )
        if self.lifecycle.state is ClientState.CLOSED:
            raise InvalidRequest("this connection's handshake failed; no requests are served")
        self.lifecycle.receive(request)  # only ping before the handshake completes
        refuse_undeclared_question(
            self.lifecycle.client_capabilities, request.method, request.params
        )

    def _answered(self, entry: OutboundRequest[O], response: Response | ErrorResponse) -> None:
        initialize_id = self.lifecycle.initialize_id
        if initialize_id is None or response.id != initialize_id:
            return  # the hot path: only the initialize answer concerns the lifecycle
        try:
            self.lifecycle.receive(response)  # reads the result (or resets on its error)
        except MCPError as exc:  # a revision we do not speak: the lifecycle is closed
            self.handshake_error = exc
            return
        if isinstance(response, Response):
            self._initialize_result = response.result

    def receive_notification(self, note: Notification) -> Event:
        if note.method == INITIALIZED:
            return Ignored(note, f"{note.method} is never sent to a client")
        return super().receive_notification(note)

    def _may_request(self, method: str, params: JSONObject | None) -> None:
        if method in self._allowed and not self.closed:
            return  # the hot path: checked once per method while the capabilities hold
        super()._may_request(method, params)
        if self._modern_version is not None:
            require_server_capability(self._modern_capabilities, method, era="modern")
            self._allowed.add(method)
            return
        state = self.lifecycle.state
        if state is ClientState.OPERATING:
            require_server_capability(self.lifecycle.server_capabilities, method)
            self._allowed.add(method)
        elif state is ClientState.INITIALIZE_SENT and method != PING:
            raise LocalProtocolError(
                f"cannot send {method} before the initialize result (only ping may be sent "
                "meanwhile)"
            )
        elif state is ClientState.INITIALIZED and method != PING:
            raise LocalProtocolError(f"send notifications/initialized before {method}")

    def send(
        self, message: Message, protocol_version: str | None = None, method: str | None = None
    ) -> Message:
        version = protocol_version or self.protocol_version
        modern = self._modern_version
        if self.lifecycle.state is not ClientState.OPERATING and (
            modern is None or version != modern or self.closed
        ):  # operating, or open in the 2026 era and naming it: everything may go
            self._check_send(message, version)
        return prepare_outbound(message, version, method)

    def _check_send(self, message: Message, protocol_version: str | None) -> None:
        super()._check_send(message, protocol_version)
        # a message naming a revision after the handshake era (a probe, a 2026 request) has none
        if not self.closed and (protocol_version is None or is_legacy(protocol_version)):
            self.lifecycle.send(message)

    def close(self) -> list[InboundRequest[I]]:
        self.lifecycle.close()
        return super().close()

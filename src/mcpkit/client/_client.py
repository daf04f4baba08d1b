"""``Client``: one connection to one MCP server, in whichever era the server speaks.

Usage::

    async with Client("python -m my_server") as client:     # or a URL, an mcpServers entry ...
        tools = await client.list_tools()
        result = await client.call_tool("add", {"a": 1, "b": 2})

Connecting resolves the target to a connector (:mod:`mcpkit.client._connectors`), opens the
stream (or the HTTP exchange transport), and negotiates the era (:mod:`mcpkit.client._negotiate`).
After that every method works the same in both eras: 2026 requests get their ``_meta``
(version, capabilities, client info, optional log level) added here, ``input_required`` answers
are followed through the MRTR loop with the same handlers that serve a legacy session's
server→client requests, and notifications are routed to caches, subscriptions and callbacks.

The MCP methods live in :mod:`mcpkit.client._features` (a base class of :class:`Client`); this
module holds the connection, the request plumbing and the routing of what the server sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final

from mcpkit._runtime.session import (
    DEFAULT_MAX_CONCURRENT_REQUESTS,
    MAX_PENDING_OUTBOUND,
    MAX_QUEUED_REQUESTS,
    ProgressCallback,
    RequestContext,
    Session,
)
from mcpkit._runtime.stream import MessageStream
from mcpkit.client import _negotiate as nego
from mcpkit.client._cache import ResultCache
from mcpkit.client._channel import (
    DEFAULT,
    Channel,
    ExchangeChannel,
    SessionChannel,
    TimeoutArg,
)
from mcpkit.client._connectors import (
    CommandConnector,
    HttpConnector,
    StreamConnector,
    Target,
    resolve_target,
)
from mcpkit.client._features import ClientFeatures
from mcpkit.client._mrtr import (
    DEFAULT_MAX_INPUT_ROUNDS,
    INPUT_REQUIRED,
    MRTR_METHODS,
    run_input_rounds,
    strip_round_keys,
)
from mcpkit.client._plumbing import DirectPath
from mcpkit.client._questions import ElicitationHandler, Questions, RootsSource, SamplingHandler
from mcpkit.client._renewal import RenewalTracker, SessionRenewed, SessionRenewedHandler, tell
from mcpkit.client._schemas import SchemaCache, ValidationMode
from mcpkit.client._typed import decode_notification, decode_question
from mcpkit.protocol._capabilities import server_supports
from mcpkit.protocol._connection import ClientConnection
from mcpkit.protocol._errors import (
    ConnectionClosed,
    InvalidParams,
    JSONRPCError,
    MCPError,
    ResourceNotFound,
    SessionReplaced,
    URLElicitationRequired,
    UsageError,
)
from mcpkit.protocol._meta import LOG_LEVELS, request_meta
from mcpkit.types._base import INPUT_RESPONSES_KEY, REQUEST_STATE_KEY, RESULT_TYPE_KEY
from mcpkit.types._common import Implementation
from mcpkit.types._jsonrpc import JSONObject, Notification, Request
from mcpkit.types._method_names import PROGRESS_NOTIFICATION
from mcpkit.types._versions import CLIENT_MODES, Era
from mcpkit.types.meta import RELATED_TASK

if TYPE_CHECKING:
    from mcpkit.transports._stdio_client import StderrSink

__all__ = [
    "DEFAULT_CLIENT_INFO",
    "DEFAULT_REQUEST_TIMEOUT",
    "Client",
    "SendHook",
    "ServerLogHandler",
    "notifying_server",
]

logger = logging.getLogger("mcpkit.client")
server_logger = logging.getLogger("mcpkit.client.server")

DEFAULT_REQUEST_TIMEOUT: Final = 60.0
"""Seconds a request may go without an answer (or, with a progress callback, without progress)."""
DEFAULT_CLIENT_INFO: Final[JSONObject] = {"name": "mcpkit", "version": "0.1.0"}

SendHook = Callable[
    ["Client", str, "JSONObject | None", Callable[["JSONObject | None"], Awaitable[JSONObject]]],
    Awaitable[JSONObject],
]
"""``async def hook(client, method, params, send) -> result``: wraps each request the client
sends (each round of a 2026 ``input_required`` exchange is one request, and so is a request
sent again because its legacy HTTP session was replaced).

``params`` are the request's params as they will go out (2026 ``_meta`` included); the hook may
pass changed params to ``send`` (a copy: the caller's dict is not the hook's to change), e.g.
``traceparent`` added to ``_meta``. Set as ``client.request_hook`` or ``Client.request_hook``;
:mod:`mcpkit.contrib.otel` does.
"""

_PY_LEVEL: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}

ServerLogHandler = Callable[[Any], Awaitable[None] | None]
"""Receives each ``notifications/message`` (typed params: level, logger, data); inside it,
:func:`notifying_server` names the client it came through."""

_NOTIFYING: ContextVar[str | None] = ContextVar("mcpkit_client_notifying", default=None)


def notifying_server() -> str | None:
    """Inside a ``logging_handler`` call: the ``name`` of the client the log came through (a
    ``Host``'s server name), so one handler shared by several clients — a ``Host``'s
    ``client_options`` — can tell servers apart; ``None`` elsewhere."""
    return _NOTIFYING.get()


NotificationCallback = Callable[[Any], Awaitable[None] | None]


def _info_dict(info: Implementation | Mapping[str, Any] | None) -> JSONObject:
    if info is None:
        return dict(DEFAULT_CLIENT_INFO)
    if isinstance(info, Implementation):
        import msgspec

        built: JSONObject = msgspec.to_builtins(info)
        return built
    return dict(info)


async def _maybe_await(value: Any) -> None:
    if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
        await value


REFUSAL_LOG_INTERVAL: Final = 10.0
"""Seconds between two warnings about the same kind of refused server request."""
MAX_REFUSAL_KINDS: Final = 64
"""Kinds of refusal remembered for that (a server can make up method names)."""


def _route_stderr(connector: object, sink: StderrSink) -> None:
    if not isinstance(connector, CommandConnector):
        raise UsageError(
            f"server_stderr applies to a server started as a command (stdio), not to {connector!r}"
        )
    from mcpkit.transports._stdio_client import check_stderr_sink  # lazy: stdio only

    try:
        check_stderr_sink(sink)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    connector.stderr = sink


class Client(ClientFeatures):
    """A connection to one MCP server. Use ``async with Client(target, ...) as client``.

    ``target``: a command line (``"uvx my-server --flag"``), an argv list, stdio parameters, a
    URL, an ``mcpServers`` entry, an in-process server (``connect_in_memory()``) or a connector.

    ``mode``: ``"auto"`` detects the era; ``"legacy"`` only sends ``initialize``;
    ``"2026-07-28"`` requires a modern server. ``discover_result`` (from a previous
    ``client.discover_result``) skips the probe.

    Handlers for the server's questions — ``elicitation_handler`` (``url_elicitation=True`` adds
    URL mode), ``sampling_handler`` (``sampling_tools`` / ``sampling_context``), ``roots`` — also
    decide the capabilities this client declares.

    ``session_renewed_handler`` is told (a :class:`~mcpkit.client._renewal.SessionRenewed`) when a
    legacy HTTP server replaced the session after it expired; see :mod:`mcpkit.client._renewal`.

    ``timeout`` is the default per-request deadline (``None``: wait forever; progress resets it
    when a call passes a progress callback); ``output_validation`` is what a tool result that
    violates its ``outputSchema`` does: ``"strict"`` raises, ``"warn"`` logs, ``"off"``.

    ``server_stderr``: where a stdio server's stderr goes. By default it reaches this process's
    stderr as the server wrote it (a tool's traceback is visible); ``"log"`` sends each line to
    the ``mcpkit.stdio.<name>`` logger at INFO, a text file object (``io.StringIO()``) captures
    it. It has no meaning for other targets.
    """

    request_hook: SendHook | None = None
    """Wraps every request sent (telemetry; see :data:`SendHook`). Set on the class, it applies
    to every client without one of its own."""

    def __init__(
        self,
        target: Target,
        *,
        mode: nego.Mode = "auto",
        name: str | None = None,
        client_info: Implementation | Mapping[str, Any] | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        url_elicitation: bool = False,
        sampling_handler: SamplingHandler | None = None,
        sampling_tools: bool = False,
        sampling_context: bool = False,
        roots: RootsSource | None = None,
        logging_handler: ServerLogHandler | None = None,
        notification_handler: NotificationCallback | None = None,
        elicitation_complete_handler: Callable[[str], Awaitable[None] | None] | None = None,
        session_renewed_handler: SessionRenewedHandler | None = None,
        log_level: str | None = None,
        timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
        max_timeout: float | None = None,
        probe_timeout: float = nego.DEFAULT_PROBE_TIMEOUT,
        initialize_timeout: float = nego.DEFAULT_INITIALIZE_TIMEOUT,
        output_validation: ValidationMode = "strict",
        discover_result: Mapping[str, Any] | None = None,
        cache: bool = True,
        max_input_rounds: int = DEFAULT_MAX_INPUT_ROUNDS,
        experimental: Mapping[str, Any] | None = None,
        extensions: Mapping[str, Any] | None = None,
        server_stderr: StderrSink | None = None,
    ) -> None:
        if mode not in CLIENT_MODES:
            *first, last = (f'"{choice}"' for choice in CLIENT_MODES)
            raise UsageError(f"mode must be {', '.join(first)} or {last}, not {mode!r}")
        if output_validation not in ("strict", "warn", "off"):
            raise UsageError('output_validation must be "strict", "warn" or "off"')
        self._target = target
        self._connector = resolve_target(target)
        if server_stderr is not None:
            _route_stderr(self._connector, server_stderr)
        self.name = name or self._connector.describe()
        self._mode: nego.Mode = mode
        self._client_info = _info_dict(client_info)
        self._questions = Questions(
            elicitation=elicitation_handler,
            url_elicitation=url_elicitation,
            sampling=sampling_handler,
            sampling_tools=sampling_tools,
            sampling_context=sampling_context,
            roots=roots,
            experimental=experimental,
            extensions=extensions,
            decode_params=decode_question,
        )
        self._logging_handler = logging_handler
        self._notification_handler = notification_handler
        self._elicitation_complete_handler = elicitation_complete_handler
        self._session_renewed_handler = session_renewed_handler
        self._renewal_listeners: list[Callable[[SessionRenewed], Any]] = []
        """Told of each renewal before the user's handler (listen subscriptions, the Host)."""
        self._renewals = RenewalTracker(self._after_renewal)
        self._refusals: dict[tuple[str, int], tuple[float, int]] = {}
        """Per kind of refused server request: when it was last logged, how many since."""
        self._subscribed: dict[str, None] = {}
        """Legacy ``resources/subscribe`` URIs in force (in order): set again in a new session."""
        if log_level is not None and log_level not in LOG_LEVELS:
            raise UsageError(
                f"unknown log level {log_level!r}; expected one of {', '.join(LOG_LEVELS)}"
            )
        self._log_level = log_level
        self._timeout = timeout
        self._max_timeout = max_timeout
        self._probe_timeout = probe_timeout
        self._initialize_timeout = initialize_timeout
        self._saved_discover = dict(discover_result) if discover_result is not None else None
        self._max_input_rounds = max_input_rounds
        self.output_validation: ValidationMode = output_validation
        self._cache = ResultCache() if cache else None
        self._schemas = SchemaCache()
        self._tools: dict[str, JSONObject] = {}
        self._tools_complete = False
        self._listeners: set[Callable[[Notification], None]] = set()
        self._stack: contextlib.AsyncExitStack | None = None
        self._channel: Channel | None = None
        self._session: Session | None = None
        self._stream: object = None
        self._negotiated: nego.Negotiated | None = None
        self._connection: ClientConnection[Any, Any] | None = None
        """The protocol state (kept after ``aclose`` so what was negotiated stays readable)."""
        self._verdict_at = 0
        """``_connection.renewals`` when ``_negotiated`` was built from it."""
        self._reported: nego.Negotiated | None = None
        """The verdict last reported (connect, or the last renewal caught up with)."""
        self._http = False
        self._closed = False
        self._closed_event = asyncio.Event()
        self._direct: DirectPath | None = None
        """Set while the client runs over a stream it started (stdio, memory): what every
        request needs, read once (see :meth:`_request`)."""

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def connect(self) -> None:
        """Open the connection and negotiate; the client is usable when this returns."""
        if self._stack is not None:
            raise UsageError(f"{self.name}: already connected")
        stack = contextlib.AsyncExitStack()
        self._stack = stack
        try:
            if isinstance(self._connector, StreamConnector):
                channel = await self._open_stream(stack, self._connector)
                self._negotiated = await nego.negotiate(channel, self._negotiation_config())
            else:
                self._negotiated = await self._connect_http(stack, self._connector)
            await self._apply_initial_log_level()
        except BaseException:
            self._stack = None
            self._channel = None
            self._session = None
            await stack.aclose()
            raise
        session_id = getattr(self._stream, "session_id", None)
        if isinstance(session_id, str):
            self._negotiated.session_id = session_id
        self._reported = self._negotiated
        session, connection = self._session, self._connection
        if (
            isinstance(self._connector, StreamConnector)
            and session is not None
            and connection is not None
        ):
            self._direct = DirectPath(session, self._negotiated, connection)
        logger.info("%s: %s", self.name, self._negotiated.describe())

    async def _apply_initial_log_level(self) -> None:
        """Make ``log_level=`` hold in the handshake era too, where it is session state.

        In 2026 every request carries the level in ``_meta``; a legacy session needs one
        ``logging/setLevel`` after the handshake. A server without the ``logging`` capability
        sends no log messages, so there is nothing to set.
        """
        if self._log_level is None or self.era == "modern":
            return
        if server_supports(self.server_capabilities, "logging/setLevel"):
            await self.set_logging_level(self._log_level)

    def _bind_connection(self, connection: ClientConnection[Any, Any]) -> None:
        self._connection = connection
        self._verdict_at = connection.renewals
        self._renewals.start_at(connection.renewals)

    async def _open_stream(
        self, stack: contextlib.AsyncExitStack, connector: StreamConnector
    ) -> SessionChannel:
        stream = await stack.enter_async_context(connector.connect())
        return await self._run_session(stack, stream)

    async def _run_session(
        self, stack: contextlib.AsyncExitStack, stream: MessageStream
    ) -> SessionChannel:
        """Run a :class:`Session` over ``stream`` (stdio, memory, or a legacy HTTP session), on
        a :class:`ClientConnection`: the handshake's lifecycle, the negotiated revision, and the
        capability gating of both sides live there."""
        self._stream = stream
        channel = SessionChannel(self._on_notification)
        session = Session(
            stream,
            request_handler=self._on_request,
            notification_handler=channel.on_notification,
            name=f"client {self.name}",
            connection=ClientConnection(
                max_outbound=MAX_PENDING_OUTBOUND,
                max_inbound=DEFAULT_MAX_CONCURRENT_REQUESTS + MAX_QUEUED_REQUESTS,
            ),
            on_refused=self._on_refused,
            explain_broken=channel.explain_broken,
        )
        await stack.enter_async_context(session)
        channel.attach(session, stream)
        self._bind_connection(channel.connection)
        self._session = session
        self._channel = channel
        return channel

    async def _connect_http(
        self, stack: contextlib.AsyncExitStack, connector: HttpConnector
    ) -> nego.Negotiated:
        transport = await stack.enter_async_context(connector.connect_http())
        config = self._negotiation_config()
        if self._mode != "legacy":
            exchange = ExchangeChannel(transport, self._on_notification)
            self._channel = exchange
            self._bind_connection(exchange.connection)
            self._http = True
            adopted = nego.adopt_saved(exchange, config)
            if adopted is not None:
                return adopted
            outcome = await nego.probe(exchange, config)
            if isinstance(outcome, nego.Negotiated):
                return outcome
            logger.debug("%s: falling back to a legacy HTTP session: %s", self.name, outcome)
        self._http = False
        stream = await stack.enter_async_context(transport.open_legacy_stream())
        channel = await self._run_session(stack, stream)
        return await nego.initialize(channel, config)

    def _negotiation_config(self) -> nego.NegotiationConfig:
        return nego.NegotiationConfig(
            mode=self._mode,
            client_info=self._client_info,
            capabilities_for=self._questions.capabilities,
            meta_for=lambda version: request_meta(
                version, self._questions.capabilities("modern"), self._client_info
            ),
            probe_timeout=self._probe_timeout,
            initialize_timeout=self._initialize_timeout,
            saved_discover=self._saved_discover,
        )

    async def aclose(self) -> None:
        """Close the connection (stops a stdio server). Idempotent; safe from any task that is
        not itself inside a request on this client."""
        stack, self._stack = self._stack, None
        self._direct = None
        self._closed = True
        self._closed_event.set()
        await self._renewals.aclose()
        if stack is not None:
            await stack.aclose()
        self._channel = None
        self._session = None

    @property
    def connected(self) -> bool:
        """True while the connection is open and the server has not gone away."""
        if self._stack is None or self._channel is None:
            return False
        return self._session is None or not self._session.input_ended

    def _disconnect_error(self) -> Exception | None:
        """Why the connection ended, if it did (``None`` while it is up or after ``aclose``)."""
        session = self._session
        if session is None or not session.input_ended:
            return None
        return session._input_failure or ConnectionClosed(f"{self.name}: disconnected")

    async def wait_disconnected(self) -> None:
        """Return when the server's side of the connection ends (a stdio server exiting).

        For stateless HTTP there is no connection to lose; this waits until :meth:`aclose`.
        """
        if self._session is not None:
            await self._session.wait_input_ended()
            return
        await self._closed_event.wait()

    # -- what was negotiated -------------------------------------------------------------------

    @property
    def negotiated(self) -> nego.Negotiated:
        """What the server and this client agreed: the connection's current verdict.

        A legacy HTTP session the server replaced after it expired may have agreed on another
        revision, capabilities, server info and instructions: this report (and the properties
        below) is rebuilt from the connection as soon as it holds the new verdict."""
        negotiated = self._negotiated
        if negotiated is None:
            raise ConnectionClosed(f"{self.name}: not connected")
        connection = self._connection
        if connection is not None and connection.renewals != self._verdict_at:
            session_id = getattr(self._stream, "session_id", None)
            negotiated = nego.handshake_verdict(
                connection, session_id=session_id if isinstance(session_id, str) else None
            )
            self._negotiated, self._verdict_at = negotiated, connection.renewals
        return negotiated

    @property
    def era(self) -> Era:
        return self.negotiated.era

    @property
    def protocol_version(self) -> str:
        return self.negotiated.protocol_version

    @property
    def server_capabilities(self) -> JSONObject:
        return self.negotiated.capabilities

    @property
    def server_info(self) -> JSONObject:
        return self.negotiated.server_info

    @property
    def instructions(self) -> str | None:
        return self.negotiated.instructions

    @property
    def discover_result(self) -> JSONObject | None:
        """The raw ``server/discover`` result (modern): pass it as ``discover_result=`` later to
        skip the probe."""
        return self.negotiated.discover_result

    @property
    def client_capabilities(self) -> JSONObject:
        return self._questions.capabilities(self._negotiated.era if self._negotiated else "legacy")

    # -- forwarding raw messages (the extension surface) ---------------------------------------

    async def send_request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        meta: JSONObject | None = None,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        answer_input: bool = False,
    ) -> JSONObject:
        """Send any request as given and return the server's raw result (a dict).

        For code that forwards requests it did not build (a gateway, a proxy, a test harness):
        nothing is decoded or validated beyond what the protocol requires. ``meta`` is merged
        into ``params["_meta"]`` (the caller's dicts are not changed) on top of what the client
        sets for the negotiated era (2026-07-28: version, capabilities, client info, log level;
        a key given in ``meta`` wins, e.g. the capabilities of the client a gateway forwards
        for). ``timeout`` as for every request (seconds, ``None`` for none; default the
        client's). A 2026 ``input_required`` answer is returned as is unless ``answer_input``,
        which answers its questions with this client's own handlers and retries, as
        ``call_tool`` does. Errors are the usual ones (``JSONRPCError`` subclasses, transport
        errors); the gating of methods by the server's declared capabilities still applies.
        """
        sent: JSONObject | None = dict(params) if params is not None else None
        if meta:
            sent = sent if sent is not None else {}
            extra = sent.get("_meta")
            sent["_meta"] = {**(extra if isinstance(extra, dict) else {}), **meta}
        if answer_input:
            result, _ = await self._request_with_input(
                method,
                sent if sent is not None else {},
                timeout=timeout,
                progress_callback=progress_callback,
            )
            return result
        return await self._request(
            method,
            sent,
            timeout=timeout,
            progress_callback=progress_callback,
        )

    async def send_notification(
        self, method: str, params: JSONObject | None = None, *, meta: JSONObject | None = None
    ) -> None:
        """Send any notification as given (the twin of :meth:`send_request`): in a legacy
        session (and on a 2026 stream such as stdio) it goes out on the connection; stateless
        2026 HTTP defines no client notification, so there nothing is sent."""
        channel = self._require_channel()
        sent: JSONObject | None = dict(params) if params is not None else None
        if meta:
            sent = sent if sent is not None else {}
            extra = sent.get("_meta")
            sent["_meta"] = {**(extra if isinstance(extra, dict) else {}), **meta}
        await channel.notify(method, sent, protocol_version=self.negotiated.protocol_version)

    # -- request plumbing ----------------------------------------------------------------------

    def _require_channel(self) -> Channel:
        if self._channel is None:
            raise ConnectionClosed(
                f"{self.name}: not connected"
                if not self._closed
                else f"{self.name}: the client was closed"
            )
        return self._channel

    async def _request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        on_notification: Callable[[Notification], Awaitable[None]] | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> JSONObject:
        """Send one request in the negotiated era (adding 2026 ``_meta``); return the result.

        A request that met the expiry of its legacy HTTP session (:class:`SessionReplaced`) is
        sent once more, after the client caught up with the new session
        (:mod:`mcpkit.client._renewal`): the connection checks and shapes it for that session."""
        direct = self._direct
        if direct is not None and on_notification is None and direct.usable(self.request_hook):
            try:
                return await self._direct_request(
                    direct, method, params, timeout, progress_callback
                )
            except URLElicitationRequired as exc:
                self._expect_completions(exc)
                raise
        channel = self._require_channel()
        connection = self._connection
        renewals = self._renewals
        if connection is not None and renewals.behind(connection.renewals):
            await renewals.catch_up(connection.renewals)  # a renewal someone else met
        negotiated = self.negotiated
        if negotiated.era == "modern":
            params = self._with_request_meta(params, negotiated.protocol_version)
        if timeout is DEFAULT:
            timeout = self._timeout
        hook = self.request_hook
        try:
            if hook is None:
                # the usual call, as ``_sender`` makes it (the revision was read just above,
                # with no wait since), without building the closure
                return await channel.request(
                    method,
                    params,
                    protocol_version=negotiated.protocol_version,
                    timeout=timeout,
                    max_timeout=self._max_timeout,
                    progress_callback=progress_callback,
                    on_notification=on_notification,
                    tool=tool,
                )
            send = self._sender(channel, method, timeout, progress_callback, on_notification, tool)
            return await hook(self, method, params, send)
        except URLElicitationRequired as exc:
            self._expect_completions(exc)
            raise
        except SessionReplaced:
            if connection is None or not renewals.may_retry():
                raise
            replaced = connection
        # the session was replaced before the request reached it: once more, in the new one
        await renewals.catch_up(replaced.renewals)
        self._recheck_after_renewal(method, params, tool)
        send = self._sender(channel, method, timeout, progress_callback, on_notification, tool)
        if hook is None:
            return await send(params)
        return await hook(self, method, params, send)

    def _with_request_meta(self, params: JSONObject | None, protocol_version: str) -> JSONObject:
        """A copy of ``params`` carrying the 2026 ``_meta`` every request needs (the revision,
        the capabilities, this client's info and log level), the caller's own ``_meta`` keys
        merged over it."""
        out = dict(params or {})
        meta = request_meta(
            protocol_version,
            self._questions.capabilities("modern"),
            self._client_info,
            self._log_level,
        )
        extra = out.get("_meta")
        if isinstance(extra, dict):
            meta.update(extra)
        out["_meta"] = meta
        return out

    def _direct_request(
        self,
        direct: DirectPath,
        method: str,
        params: JSONObject | None,
        timeout: TimeoutArg,
        progress_callback: ProgressCallback | None,
    ) -> Coroutine[Any, Any, JSONObject]:
        """:meth:`_request` over the client's own session with no hook: what the general path
        does (``SessionChannel.request`` hands over the same ``send_request``), with the
        verdict read once at connect instead of through the channel, the renewal tracker and
        the ``negotiated`` property per request. Hands over the coroutine below it: no frame
        of its own per request. A stream the client started is never renewed (renewal is a
        legacy HTTP session's), and :meth:`aclose` clears ``_direct`` first."""
        if direct.modern:
            params = self._with_request_meta(params, direct.protocol_version)
        return direct.session.send_request(
            method,
            params,
            timeout=self._timeout if timeout is DEFAULT else timeout,
            max_timeout=self._max_timeout,
            progress_callback=progress_callback,
            protocol_version=direct.protocol_version,
        )

    def _sender(
        self,
        channel: Channel,
        method: str,
        timeout: float | None,
        progress_callback: ProgressCallback | None,
        on_notification: Callable[[Notification], Awaitable[None]] | None,
        tool: Mapping[str, Any] | None,
    ) -> Callable[[JSONObject | None], Awaitable[JSONObject]]:
        """What sends the request over ``channel`` (a hook's ``send``, or the retry's)."""

        def send(params: JSONObject | None) -> Awaitable[JSONObject]:
            return channel.request(
                method,
                params,
                # the connection's revision: a replaced legacy HTTP session may have another
                protocol_version=self.protocol_version,
                timeout=timeout,
                max_timeout=self._max_timeout,
                progress_callback=progress_callback,
                on_notification=on_notification,
                tool=tool,
            )

        return send

    def _expect_completions(self, exc: URLElicitationRequired) -> None:
        """The URL elicitations a -32042 error names may be announced complete later."""
        data = exc.data if isinstance(exc.data, dict) else {}
        listed = data.get("elicitations")
        for entry in listed if isinstance(listed, list) else ():
            elicitation_id = entry.get("elicitationId") if isinstance(entry, dict) else None
            if isinstance(elicitation_id, str):
                self._questions.expect_completion(elicitation_id)

    async def _request_with_input(
        self,
        method: str,
        params: JSONObject,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> tuple[JSONObject, int]:
        """Like :meth:`_request`, following 2026 ``input_required`` rounds; returns (result,
        retries). The first round is sent here, the rest (only when the server asks) by
        :meth:`_follow_input_rounds`: a call answered at once passes through no more layers."""
        rounds = self.era == "modern" and method in MRTR_METHODS
        if rounds and (INPUT_RESPONSES_KEY in params or REQUEST_STATE_KEY in params):
            params = strip_round_keys(params)  # a fresh call starts with neither
        result = await self._request(
            method, params, timeout=timeout, progress_callback=progress_callback, tool=tool
        )
        if not rounds or result.get(RESULT_TYPE_KEY) != INPUT_REQUIRED:
            return result, 0
        return await self._follow_input_rounds(
            method, params, result, timeout, progress_callback, tool
        )

    async def _follow_input_rounds(
        self,
        method: str,
        params: JSONObject,
        first: JSONObject,
        timeout: TimeoutArg,
        progress_callback: ProgressCallback | None,
        tool: Mapping[str, Any] | None,
    ) -> tuple[JSONObject, int]:
        """The server answered ``first`` (``input_required``) to ``params``: answer its
        questions with this client's handlers and retry, until a final result."""

        async def send(current: JSONObject) -> JSONObject:
            return await self._request(
                method,
                current,
                timeout=timeout,
                progress_callback=progress_callback,
                tool=tool,
            )

        async def answer(key: str, request: Any) -> JSONObject:
            return await self._questions.answer_input_request(
                key,
                request,
                protocol_version=self.protocol_version,
                server_name=self.negotiated.server_name,
                asked_during=method,
            )

        return await run_input_rounds(
            method, params, send, answer, max_rounds=self._max_input_rounds, first=first
        )

    def _recheck_after_renewal(
        self, method: str, params: JSONObject | None, tool: Mapping[str, Any] | None
    ) -> None:
        """What a fresh client checks before a request and the connection cannot: that the
        new session's revision still has the 2025-11-25 tasks a task request needs."""
        if method == "tools/call" and params is not None and "task" in params:
            name = params.get("name")
            self._require_core_tasks(
                name if isinstance(name, str) else None, dict(tool) if tool else None
            )
        elif method.startswith("tasks/"):
            self._require_core_tasks()

    async def _after_renewal(self) -> None:
        """Catch up with a session that replaced an expired one (see
        :mod:`mcpkit.client._renewal`): the new verdict reported, the old session's caches
        dropped, the log level and resource subscriptions set again, listeners told."""
        current = self.negotiated  # rebuilt from the connection
        event = SessionRenewed(self._reported or current, current)
        self._reported = current
        if self._cache is not None:
            self._cache.clear()
        self._tools = {}
        self._tools_complete = False
        logger.info("%s: the server replaced the session: %s", self.name, current.describe())
        changes = event.changes
        if changes:
            logger.warning(
                "%s: the new session differs from the old one: %s", self.name, "; ".join(changes)
            )
        await self._restore_session_state()
        for listener in (*self._renewal_listeners, self._session_renewed_handler):
            if listener is not None:
                await tell(listener, event)

    async def _restore_session_state(self) -> None:
        """Set again, in the new session, what this client had set in the old one."""
        capabilities = self.server_capabilities
        level = self._log_level
        if level is not None:
            if server_supports(capabilities, "logging/setLevel"):
                try:
                    await self.set_logging_level(level)
                except MCPError as exc:
                    logger.warning(
                        "%s: could not set log level %r in the new session: %s",
                        self.name,
                        level,
                        exc,
                    )
            else:
                logger.warning(
                    "%s: the new session has no logging capability: log level %r not set",
                    self.name,
                    level,
                )
        uris = list(self._subscribed)
        if uris and not server_supports(capabilities, "resources/subscribe"):
            logger.warning(
                "%s: the new session cannot subscribe to resources: dropped %s",
                self.name,
                ", ".join(uris),
            )
            self._subscribed.clear()
            return
        for uri in uris:
            try:
                await self._request("resources/subscribe", {"uri": uri})
            except MCPError as exc:
                logger.warning(
                    "%s: could not subscribe to %s in the new session: %s", self.name, uri, exc
                )
                self._subscribed.pop(uri, None)

    @staticmethod
    def _resource_error(exc: JSONRPCError, uri: str) -> JSONRPCError:
        """-32002 (legacy) and -32602 with ``data.uri`` (2026) both mean "no such resource"."""
        if isinstance(exc, InvalidParams) and isinstance(exc.data, dict) and "uri" in exc.data:
            return ResourceNotFound(exc.message, exc.data, code=exc.code, remote=exc.remote)
        return exc

    # -- what the server sends -----------------------------------------------------------------

    async def _on_request(self, ctx: RequestContext) -> JSONObject:
        """A server→client request of a legacy session, once the client's ``ClientConnection``
        let it through (a 2026 server may send none; undeclared questions were refused)."""
        method = ctx.request.method
        params = ctx.request.params or {}
        negotiated = self._negotiated
        if method == "ping":
            return {}
        answer = await self._questions.answer(
            method,
            params,
            era="legacy",
            protocol_version=self.protocol_version if negotiated else "",
            server_name=negotiated.server_name if negotiated else self.name,
        )
        meta = params.get("_meta")
        related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
        if isinstance(related, dict):
            # 2025-11-25 tasks: the answer to a task's question names its task (MUST)
            own = answer.get("_meta")
            answer["_meta"] = {**(own if isinstance(own, dict) else {}), RELATED_TASK: related}
        return answer

    def _on_refused(self, request: Request, error: JSONRPCError) -> None:
        """The connection refused a server request (a question this client did not declare, a
        request before the handshake, a duplicate id...): the server is told with an error
        answer, the user with a warning, since a refused question may be why a tool fails.

        At most one warning per kind of refusal every :data:`REFUSAL_LOG_INTERVAL` seconds (the
        next one says how many were left out): a server flooding requests (20 000 pings) must
        not flood the log too."""
        key = (request.method[:64], error.code)
        now = asyncio.get_running_loop().time()
        seen = self._refusals.get(key)
        if seen is not None and now - seen[0] < REFUSAL_LOG_INTERVAL:
            self._refusals[key] = (seen[0], seen[1] + 1)
            return
        if len(self._refusals) >= MAX_REFUSAL_KINDS:
            self._refusals.clear()
        left_out = f"; {seen[1]} more like it were not logged" if seen and seen[1] else ""
        self._refusals[key] = (now, 0)
        logger.warning(
            "%s: refused the server's %s request: %s (%d)%s",
            self.name,
            request.method[:64],
            error.message,
            error.code,
            left_out,
        )

    async def _on_notification(self, note: Notification) -> None:
        """Every notification that is not claimed by a subscription's stream."""
        connection = self._connection
        if connection is not None and self._renewals.behind(connection.renewals):
            # e.g. the transport's notifications/mcpkit/session_expired: the client is up to
            # date with the new session before anyone hears of it
            await self._renewals.catch_up(connection.renewals)
        method = note.method
        if method == PROGRESS_NOTIFICATION:
            return  # routed to the caller's progress callback by the session
        if method == "notifications/message":
            await self._on_server_log(note)
            return
        self._apply_change(note)
        for listener in tuple(self._listeners):
            listener(note)
        if method == "notifications/elicitation/complete":
            elicitation_id = (note.params or {}).get("elicitationId")
            if not isinstance(elicitation_id, str) or not self._questions.completes(elicitation_id):
                # unknown, or completed already: ignored (the spec's MUST)
                logger.debug("%s: ignored completion of elicitation %r", self.name, elicitation_id)
                return
            if self._elicitation_complete_handler is not None:
                await _maybe_await(self._elicitation_complete_handler(elicitation_id))
            return
        if self._notification_handler is not None:
            typed = decode_notification(note)
            await _maybe_await(self._notification_handler(typed if typed is not None else note))

    def _apply_change(self, note: Notification) -> None:
        """Keep caches honest: list_changed and updated invalidate what they concern."""
        if self._cache is not None:
            self._cache.on_notification(note.method, note.params)
        if note.method == "notifications/tools/list_changed":
            self._tools_complete = False

    async def _on_server_log(self, note: Notification) -> None:
        typed = decode_notification(note)
        if typed is None:
            return
        if self._logging_handler is not None:
            token = _NOTIFYING.set(self.name)
            try:
                await _maybe_await(self._logging_handler(typed.params))
            finally:
                _NOTIFYING.reset(token)
            return
        params = typed.params
        server_logger.log(
            _PY_LEVEL.get(params.level, logging.INFO),
            "%s%s: %s",
            self.name,
            f" [{params.logger}]" if params.logger else "",
            params.data,
        )

    def __repr__(self) -> str:
        state = self.negotiated.describe() if self._negotiated else "not connected"
        return f"<Client {self.name}: {state}>"

"""The MCP endpoint: POST, GET and DELETE for both protocol eras, decided per request.

Every request goes through the same gates, in order: header sanity, media types (415/406),
a bounded body (413/408), JSON (400/-32700), then :func:`~mcpkit.protocol._http_routing.
route_request`, which picks the era and path (and answers 400/-32020/-32022/-32602, 404/-32601 or
405 itself). Then:

* **modern** requests are stateless: each POST is served on its own and closing its stream
  cancels it;
* **legacy** ``initialize`` creates a session (``Mcp-Session-Id``) unless the app is stateless;
  later messages need that id (400 without, 404 for an unknown or ended session); requests are
  served like modern ones but survive a disconnect, notifications and responses get 202, ``GET``
  opens (or resumes, with ``Last-Event-ID``) a stream, ``DELETE`` ends the session.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import msgspec

from mcpkit.protocol._batch import accepts_batches
from mcpkit.protocol._codec import decode_json, encode_message, message_from_obj
from mcpkit.protocol._errors import (
    HeaderMismatch,
    InternalError,
    InvalidRequest,
    JSONRPCError,
    MessageDecodeError,
    MethodNotFound,
    ParseError,
    UsageError,
)
from mcpkit.protocol._framing import peek_envelope
from mcpkit.protocol._http_headers import (
    MCP_PROTOCOL_VERSION_HEADER,
    ParamHeaders,
    compile_header_params,
    normalize_headers,
)
from mcpkit.protocol._http_routing import (
    MCP_SESSION_ID_HEADER,
    HttpRejection,
    Route,
    RouteKind,
    check_media,
    route_post,
    route_request,
    session_version_error,
)
from mcpkit.protocol._inflight import InboundRequest
from mcpkit.protocol._meta import RequestMeta
from mcpkit.protocol._principal import principal_of
from mcpkit.protocol._shape import prepare_outbound
from mcpkit.transports.http._server.batch import serve_batch
from mcpkit.transports.http._server.body import BodyError, read_body
from mcpkit.transports.http._server.event_store import EventStore, UnknownEventId, request_of_stream
from mcpkit.transports.http._server.exchange import (
    GetStreamOutbound,
    RequestOutbound,
    Spawn,
    StreamOptions,
    answer,
    serve_exchange,
    serve_stream,
)
from mcpkit.transports.http._server.legacy_sessions import (
    GET_STREAM_ID,
    MAX_SESSIONS_PER_PEER,
    LegacySessions,
    LegacySessionState,
    PeerSessionLimitReached,
    RequestHandle,
)
from mcpkit.transports.http._server.peers import peer_key
from mcpkit.transports.http._server.pipe import EventPipe, Item
from mcpkit.transports.http._server.servable import HttpServable
from mcpkit.transports.http._server.session_store import SessionLimitReached, SessionStore
from mcpkit.transports.http._server.sse_response import HttpResponse, Receive, Scope, encode_headers
from mcpkit.transports.http._server.stateless import StatelessConversation, StatelessConversations
from mcpkit.transports.http._server.tail import serve_tail
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, RequestId, Response
from mcpkit.types._versions import DEFAULT_HTTP_LEGACY_VERSION, is_legacy, is_modern

if TYPE_CHECKING:
    from mcpkit.transports.http._server.exchange import Conversation

__all__ = ["AUTH_SCOPE_KEY", "SESSION_NOT_FOUND", "Endpoint", "EndpointConfig"]

logger = logging.getLogger("mcpkit.http")

AUTH_SCOPE_KEY: Final = "mcpkit.auth"
"""Where an authentication middleware leaves the verified token in the ASGI scope."""
SESSION_NOT_FOUND: Final = -32001
"""The code of the 404 body for an unknown or ended session (implementation-defined range)."""
MAX_CACHED_TOOL_HEADERS: Final = 4096
"""Compiled ``x-mcp-header`` annotations kept (one entry per tool name)."""
MAX_REMEMBERED_MEDIA: Final = 256
"""Accepted ``Content-Type``/``Accept`` pairs remembered (the table is emptied when full)."""
MAX_REMEMBERED_MEDIA_BYTES: Final = 512
"""Longer pairs are checked every time, whatever clients send."""
_CLOSE: Final = ((b"connection", b"close"),)
_VERSION_HEADER: Final = MCP_PROTOCOL_VERSION_HEADER.lower()
"""The version header's key in normalised (lower-cased) headers."""


@dataclass(frozen=True, slots=True)
class EndpointConfig:
    stateless: bool
    json_response: bool
    event_store: EventStore | None
    session_store: SessionStore | None
    max_body_bytes: int
    body_timeout: float
    stream: StreamOptions
    max_sessions_per_peer: int = MAX_SESSIONS_PER_PEER


def _id_of(obj: Any) -> RequestId | None:
    value = obj.get("id") if isinstance(obj, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


class Endpoint:
    """Serves the MCP endpoint's methods (see the module docstring)."""

    def __init__(
        self,
        server: HttpServable,
        config: EndpointConfig,
        spawn: Spawn,
        session_store_factory: Callable[[], SessionStore],
    ) -> None:
        self._server = server
        self._config = config
        self._spawn = spawn
        self.server = server
        self.stream_options = config.stream
        self.versions = tuple(server.supported_versions)
        self.legacy_ok = any(is_legacy(v) for v in self.versions)
        self.modern_ok = any(is_modern(v) for v in self.versions)
        self.sessions: LegacySessions | None = None
        if self.legacy_ok and not config.stateless:
            store = config.session_store
            if store is None:  # ``is None``: an empty store is falsy (it has a length)
                store = session_store_factory()
            self.sessions = LegacySessions(
                server, store, config.event_store, max_per_peer=config.max_sessions_per_peer
            )
            self.sessions.on_rebuild = _wire_rebuilt
        self.stateless = StatelessConversations(server)
        """Legacy POSTs when there are no sessions (``stateless=True``)."""
        self._tool_cache: dict[str, tuple[Mapping[str, Any], ParamHeaders | None]] = {}
        self._tool_headers_lookup = self._tool_headers  # one bound method, not one per request
        self._media_ok: set[tuple[str | None, str | None]] = set()
        """``Content-Type``/``Accept`` pairs of POSTs that :func:`check_media` accepted (its
        verdict for a POST depends on those two headers only)."""

    # -- helpers -------------------------------------------------------------------------------

    def _remember_media(self, media: tuple[str | None, str | None]) -> None:
        if sum(len(value) for value in media if value is not None) > MAX_REMEMBERED_MEDIA_BYTES:
            return  # long values are checked every time: the table stays small
        if len(self._media_ok) >= MAX_REMEMBERED_MEDIA:
            self._media_ok.clear()
        self._media_ok.add(media)

    def _tool_headers(self, name: str) -> ParamHeaders | None:
        """A tool's compiled ``x-mcp-header`` annotations, cached while its schema is unchanged;
        ``None`` for a tool without any (most tools), so the header check skips them at once."""
        schema = self._server.tool_input_schema(name)
        if schema is None:
            return None
        cached = self._tool_cache.get(name)
        if cached is not None and cached[0] is schema:
            return cached[1]
        try:
            compiled = compile_header_params(schema)
            params: ParamHeaders | None = compiled if compiled.params else None
        except UsageError as exc:
            logger.warning("tool %r: %s; its Mcp-Param headers are not checked", name, exc)
            params = None
        if len(self._tool_cache) >= MAX_CACHED_TOOL_HEADERS:
            self._tool_cache.clear()
        self._tool_cache[name] = (schema, params)
        return params

    @staticmethod
    async def _reject(
        response: HttpResponse, rejection: HttpRejection, request_id: RequestId | None = None
    ) -> None:
        # no session (or none found yet): no revision to shape for, observers still see it
        message: Any = prepare_outbound(rejection.response(request_id), None, None)
        await response.error(rejection.status, message, encode_headers(rejection.headers))

    @staticmethod
    async def _error(
        response: HttpResponse,
        status: int,
        error: JSONRPCError,
        request_id: RequestId | None = None,
        headers: tuple[tuple[bytes, bytes], ...] = (),
        session: Conversation | None = None,
    ) -> None:
        """Answer with a JSON-RPC error: through the send point of the conversation the request
        belongs to (a session, a stateless POST's engine: shaped for its revision, the lifecycle
        told), else observed as is."""
        message: Any = ErrorResponse(request_id, error.to_error_object())
        if session is not None:
            message = session.send(message, None, None)
        else:
            message = prepare_outbound(message, None, None)
        await response.error(status, message, headers)

    # -- POST ----------------------------------------------------------------------------------

    async def post(
        self,
        scope: Scope,
        receive: Receive,
        response: HttpResponse,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """A POST; ``headers`` are its headers normalised, when the app has them already."""
        if headers is None:
            try:
                headers = normalize_headers(scope["headers"])
            except HeaderMismatch as exc:
                await self._error(response, 400, exc)
                return
        media = (headers.get("content-type"), headers.get("accept"))
        if media not in self._media_ok:  # a client sends the same pair on every request
            rejection = check_media("POST", headers)
            if rejection is not None:
                await self._reject(response, rejection)
                return
            self._remember_media(media)
        config = self._config
        try:
            body = await read_body(
                receive, headers.get("content-length"), config.max_body_bytes, config.body_timeout
            )
        except BodyError as exc:
            if exc.status is not None:
                request_id, kind = peek_envelope(exc.head) if exc.head else (None, None)
                if kind == "response" and request_id is not None:
                    # the client's answer to one of our requests was too large: fail that
                    # request now instead of leaving its handler to wait for its deadline
                    await self._fail_server_request(headers, request_id, exc.message)
                    request_id = None
                await self._error(
                    response, exc.status, InvalidRequest(exc.message), request_id, _CLOSE
                )
            return
        try:
            obj = decode_json(body)
        except (msgspec.DecodeError, RecursionError, ValueError) as exc:
            await self._error(response, 400, ParseError(f"Parse error: {exc}"))
            return
        if isinstance(obj, list) and await self._batch(
            obj, headers, scope.get(AUTH_SCOPE_KEY), response
        ):
            return
        route = route_post(
            headers,
            obj,
            # the server's own tuple, read now: the dispatcher trusts the version checked here
            supported_versions=self._server.supported_versions,
            tool_headers=self._tool_headers_lookup,
        )
        route_kind = route.kind
        if route_kind is RouteKind.ERROR:
            assert route.rejection is not None
            await self._reject(response, route.rejection, _id_of(obj))
            return
        try:
            message = message_from_obj(obj)
        except MessageDecodeError as exc:
            await self._error(response, 400, exc.error, exc.request_id)
            return
        auth = scope.get(AUTH_SCOPE_KEY)
        if route_kind is RouteKind.LEGACY_SESSION:
            await self._legacy(message, route, headers, auth, receive, response)
            return
        if route_kind is RouteKind.LEGACY_INITIALIZE and is_modern(
            headers.get(_VERSION_HEADER, "").strip()
        ):
            # A 2026-07-28 request for initialize: the method does not exist in that revision.
            await self._error(
                response,
                404,
                MethodNotFound(
                    "Method not found: initialize does not exist in protocol 2026-07-28 (send "
                    "server/discover; initialize is for the legacy handshake, sent without a "
                    f"2026 {MCP_PROTOCOL_VERSION_HEADER} header)"
                ),
                _id_of(obj),
            )
            return
        if route_kind is RouteKind.MODERN:
            if isinstance(message, Request):  # (served here: one coroutine less per request)
                await self._exchange(
                    message,
                    None,
                    None,
                    None,
                    route.protocol_version,
                    auth,
                    receive,
                    response,
                    json_only=message.method in _STATE_METHODS or None,
                    meta=route.meta,
                )
            else:
                await self._modern_notification(message, response)
        elif route_kind is RouteKind.LEGACY_INITIALIZE:
            await self._initialize(message, route, auth, response, peer_key(scope.get("client")))
        else:
            await self._legacy(message, route, headers, auth, receive, response)

    async def _batch(
        self, obj: list[Any], headers: Mapping[str, str], auth: Any, response: HttpResponse
    ) -> bool:
        """Serve a JSON-RPC batch in a session that negotiated 2025-03-26 (``_batch.py``);
        ``False`` for any other array, which the router then refuses with -32600."""
        session_id = headers.get(MCP_SESSION_ID_HEADER.lower())
        if self.sessions is None or session_id is None:
            return False
        state = await self.sessions.find(session_id)
        if state is None or not accepts_batches(state.protocol_version):
            return False
        if state.principal is not None and state.principal != principal_of(auth):
            await self._not_yours(response, None)
            return True
        mismatch = session_version_error(
            state.protocol_version, headers.get(MCP_PROTOCOL_VERSION_HEADER.lower())
        )
        if mismatch is not None:
            await self._error(response, 400, mismatch, session=state)
            return True
        try:
            message_from_obj(obj)
        except MessageDecodeError as exc:
            items = exc.batch or ()
        else:  # pragma: no cover - an array is never a single message
            return False
        await serve_batch(
            items,
            state,
            server=self._server,
            sessions=self.sessions,
            notify=self.notify,
            spawn=self._spawn,
            auth=auth,
            response=response,
        )
        return True

    async def _fail_server_request(
        self, headers: Mapping[str, str], request_id: RequestId, why: str
    ) -> None:
        session_id = headers.get(MCP_SESSION_ID_HEADER.lower())
        if self.sessions is None or session_id is None:
            return
        state = await self.sessions.find(session_id)
        if state is not None:
            state.resolve(
                ErrorResponse(
                    request_id,
                    InvalidRequest(f"the client's answer was dropped: {why}").to_error_object(),
                )
            )

    async def _modern_notification(self, message: Any, response: HttpResponse) -> None:
        """A 2026 notification (requests are served in :meth:`post`): handed to the server,
        answered 202."""
        assert isinstance(message, Notification)  # responses were refused by the router
        await self.notify(message, None)
        await response.empty(202)

    def _exchange(
        self,
        request: Request,
        pipe: EventPipe | None,
        session: LegacySessionState | None,
        connection: Any,
        version: str | None,
        auth: Any,
        receive: Receive,
        response: HttpResponse,
        entry: InboundRequest[RequestHandle] | None = None,
        stateless: StatelessConversation | None = None,
        json_only: bool | None = None,
        meta: RequestMeta | None = None,
    ) -> Awaitable[None]:
        """Serve one request on this POST: a 2026 one when ``connection`` is ``None``; a
        session's with its in-flight ``entry``, or on a ``stateless`` app the engine of its own;
        ``pipe`` is its stream when it is resumable (else one is made if the handler emits). (A
        plain function: the awaitable it returns is the whole work, one coroutine less per
        request.) ``json_only`` overrides the app's ``json_response`` for this request; ``meta`` is
        a 2026 request's ``_meta`` as the router parsed it (the server need not parse it again)."""
        if json_only is None:
            json_only = self._config.json_response
        outbound = RequestOutbound(
            pipe, session if stateless is None else stateless, version, json_only=json_only
        )
        legacy = connection is not None
        # (partials, not a closure: a closure over these nine names makes nine cells per request)
        run: Callable[[], Awaitable[Any]]
        if not legacy:
            run = partial(self._server.handle_request, request, outbound, auth=auth, meta=meta)
        elif session is not None and self.sessions is not None and self.sessions.shared:
            run = partial(
                _then_sync,
                self._server,
                request,
                outbound,
                connection,
                auth,
                self.sessions,
                session,
            )
        else:
            run = partial(
                self._server.handle_request, request, outbound, connection=connection, auth=auth
            )
        return serve_exchange(
            response,
            receive,
            run=run,
            request=request,
            outbound=outbound,
            era="legacy" if legacy else "modern",
            session=session,
            spawn=self._spawn,
            options=self._config.stream,
            json_only=json_only,
            entry=entry,
        )

    async def _initialize(
        self, message: Any, route: Route, auth: Any, response: HttpResponse, peer: str
    ) -> None:
        if not isinstance(message, Request):
            await self._error(response, 400, InvalidRequest("initialize must be a request"))
            return
        state: LegacySessionState | None = None
        entry: InboundRequest[RequestHandle] | None = None
        conversation: Conversation
        if self.sessions is None:
            # no session to create: the handshake runs on an engine of this POST's own
            stateless = self.stateless.handshake()
            conversation = stateless
            connection = stateless.connection
            try:
                stateless.admit(message)  # its lifecycle negotiates the revision
            except JSONRPCError as exc:
                await self._error(response, 200, exc, message.id, session=stateless)
                return
        else:
            try:
                state = await self.sessions.create(
                    route.protocol_version or DEFAULT_HTTP_LEGACY_VERSION, peer
                )
            except SessionLimitReached as exc:
                await self._error(
                    response,
                    429 if isinstance(exc, PeerSessionLimitReached) else 503,
                    InternalError(f"Service Unavailable: {exc}"),
                    message.id,
                    ((b"retry-after", b"5"),),
                )
                return
            conversation = state
            state.principal = principal_of(auth)  # only this caller may use or end it
            connection = state.connection
            connection.notify = GetStreamOutbound(state)
            try:  # the session's engine negotiates the revision (its lifecycle)
                entry = state.admit(message)
            except JSONRPCError as exc:
                await self._error(response, 200, exc, message.id, session=state)
                await self.sessions.discard(state)
                return
        outbound = RequestOutbound(None, None, None, json_only=True)
        server = self._server

        def run() -> Awaitable[Any]:
            return server.handle_request(message, outbound, connection=connection, auth=auth)

        try:
            reply = await answer(run, message, None, "legacy", send=conversation.send)
        finally:
            if state is not None and entry is not None:
                state.done(entry)
        headers: tuple[tuple[bytes, bytes], ...] = ()
        if state is not None:
            if reply.ok:
                headers = ((MCP_SESSION_ID_HEADER.lower().encode(), state.id.encode()),)
                assert self.sessions is not None
                await self.sessions.sync(state)  # a shared store: other workers can serve it
            else:
                assert self.sessions is not None
                await self.sessions.discard(state)
        await response.json_bytes(reply.status, reply.data, headers)

    async def _find_session(
        self,
        session_id: str | None,
        response: HttpResponse,
        request_id: RequestId | None,
        auth: Any = None,
    ) -> LegacySessionState | None:
        """The session named by the request, or ``None`` after answering 400/404 (404 too when
        another caller created it: see :meth:`_not_yours`)."""
        sessions = self.sessions
        assert sessions is not None
        if session_id is None:
            await self._error(
                response,
                400,
                InvalidRequest(
                    f"Bad Request: the {MCP_SESSION_ID_HEADER} header is required; send "
                    "initialize first and repeat the id it returns on every request"
                ),
                request_id,
            )
            return None
        state = sessions.lookup(session_id) if sessions.local else await sessions.find(session_id)
        if state is None:
            await self._error(
                response,
                404,
                JSONRPCError(
                    "Session not found: it ended or expired; initialize a new session "
                    f"(without {MCP_SESSION_ID_HEADER})",
                    code=SESSION_NOT_FOUND,
                ),
                request_id,
            )
        elif state.principal is not None and state.principal != principal_of(auth):
            await self._not_yours(response, request_id)
            return None
        return state

    async def _not_yours(self, response: HttpResponse, request_id: RequestId | None) -> None:
        """A session another caller created is answered as if it did not exist: a caller may
        neither use nor end it, nor learn that it exists."""
        logger.warning("refused a request naming a session another caller created")
        await self._error(
            response,
            404,
            JSONRPCError(
                "Session not found: it ended or expired; initialize a new session "
                f"(without {MCP_SESSION_ID_HEADER})",
                code=SESSION_NOT_FOUND,
            ),
            request_id,
        )

    async def _legacy(
        self,
        message: Any,
        route: Route,
        headers: Mapping[str, str],
        auth: Any,
        receive: Receive,
        response: HttpResponse,
    ) -> None:
        if self.sessions is None:
            await self._stateless(message, route, auth, receive, response)
            return
        request_id = message.id if isinstance(message, Request) else None
        sessions, session_id = self.sessions, route.session_id
        state = sessions.lookup(session_id) if sessions.local and session_id else None
        if state is None:  # not in memory: another store, or the 400/404 answer
            state = await self._find_session(session_id, response, request_id, auth)
            if state is None:
                return
        elif state.principal is not None and state.principal != principal_of(auth):
            await self._not_yours(response, request_id)
            return
        connection = state.connection
        negotiated = state.protocol_version
        version = negotiated or route.protocol_version or ""
        sent = headers.get(_VERSION_HEADER)
        if sent is not None and sent != negotiated:  # (the same revision needs no check)
            mismatch = session_version_error(negotiated, sent)
            if mismatch is not None:
                await self._error(response, 400, mismatch, request_id, session=state)
                return
        if not isinstance(message, Request):
            if isinstance(message, Notification):
                await self._notification(message, state, connection)
            else:  # an answer to one of our requests
                await sessions.receive_answer(state, message)
            await response.empty(202)
            return
        try:  # the session's engine: a reused in-flight id, too many in flight
            entry = state.admit(message)
        except JSONRPCError as exc:
            # a valid request refused in a legacy session: HTTP 200, the body says why
            await self._error(response, 200, exc, message.id, session=state)
            return
        store = self._config.event_store
        pipe = (  # a stream that cannot be resumed is made only if the handler emits
            EventPipe(state.new_stream_id(message.id), session_id=state.id, store=store)
            if store is not None
            else None
        )
        await self._exchange(
            message, pipe, state, connection, version, auth, receive, response, entry
        )

    async def _stateless(
        self, message: Any, route: Route, auth: Any, receive: Receive, response: HttpResponse
    ) -> None:
        """A legacy message to a stateless app: it stands alone, on an engine of its own that
        operates at the request's revision (``_stateless.py``); there is no session to find."""
        version = route.protocol_version or DEFAULT_HTTP_LEGACY_VERSION
        conversation = self.stateless.operating(version)
        if isinstance(message, Response | ErrorResponse):
            conversation.receive_answer(message)  # we asked nothing: dropped
            await response.empty(202)
            return
        if isinstance(message, Notification):
            if conversation.receive_notification(message):
                await self.notify(message, conversation.connection)
            await response.empty(202)
            return
        assert isinstance(message, Request)
        try:
            conversation.admit(message)
        except JSONRPCError as exc:
            await self._error(response, 200, exc, message.id, session=conversation)
            return
        await self._exchange(  # its stream is made only if the handler emits
            message,
            None,
            None,
            conversation.connection,
            version,
            auth,
            receive,
            response,
            stateless=conversation,
        )

    async def _notification(
        self, note: Notification, state: LegacySessionState, connection: Any
    ) -> None:
        """A client notification: a session's engine takes it first (cancels, the lifecycle);
        what it passes on reaches the server, and a shared store learns the session's change."""
        assert self.sessions is not None
        if await self.sessions.receive_notification(state, note):
            await self.notify(note, connection)
            await self.sessions.sync(state)

    async def notify(self, note: Notification, connection: Any) -> None:
        """Hand a client notification to the server; a failure is logged, never fatal."""
        try:
            outcome = self._server.handle_notification(note.method, note.params, connection)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:  # a stray or late notification is dropped, never fatal
            logger.debug("notification %s dropped: %r", note.method, exc)

    # -- GET -----------------------------------------------------------------------------------

    async def get(self, scope: Scope, receive: Receive, response: HttpResponse) -> None:
        try:
            headers = normalize_headers(scope["headers"])
        except HeaderMismatch as exc:
            await self._error(response, 400, exc)
            return
        rejection = check_media("GET", headers)
        if rejection is not None:
            await self._reject(response, rejection)
            return
        route = route_request("GET", headers, supported_versions=self.versions)
        if route.kind is RouteKind.ERROR:
            assert route.rejection is not None
            await self._reject(response, route.rejection)
            return
        if self.sessions is None:
            await self._stateless_405(response, "GET")
            return
        session_id = route.session_id
        store = self._config.event_store
        if route.last_event_id and store is not None and session_id is not None:
            await self._resume(
                receive,
                response,
                session_id,
                route.last_event_id,
                store,
                scope.get(AUTH_SCOPE_KEY),
            )
            return
        state = await self._find_session(session_id, response, None, scope.get(AUTH_SCOPE_KEY))
        if state is None:
            return
        sessions = self.sessions

        async def keepalive() -> None:
            await sessions.find(state.id)  # an open GET stream keeps its session alive

        tail = getattr(store, "tail", None)
        if sessions.shared and store is not None and tail is not None:
            # Any worker may write this session's GET stream: follow the shared log.
            prime = await store.prime(state.id, GET_STREAM_ID)
            await serve_tail(
                response,
                receive,
                tail(state.id, prime),
                prime=prime,
                spawn=self._spawn,
                options=self._config.stream,
                on_keepalive=keepalive,
            )
            return

        await serve_stream(
            response,
            receive,
            state.ensure_get_pipe(),
            spawn=self._spawn,
            options=self._config.stream,
            on_keepalive=keepalive,
        )

    async def _resume(
        self,
        receive: Receive,
        response: HttpResponse,
        session_id: str,
        last_event_id: str,
        store: EventStore,
        auth: Any = None,
    ) -> None:
        """``GET`` + ``Last-Event-ID``: replay what the client missed on that stream only."""
        assert self.sessions is not None
        state = await self.sessions.find(session_id)
        if (
            state is not None
            and state.principal is not None
            and (state.principal != principal_of(auth))
        ):
            await self._not_yours(response, None)
            return
        try:
            replay = await store.replay_after(session_id, last_event_id)
        except UnknownEventId as exc:
            status = 404 if state is None else 400
            await self._error(response, status, InvalidRequest(str(exc)))
            return
        live: EventPipe | None = None
        if state is not None:
            live = (
                state.get_pipe
                if replay.stream_id == GET_STREAM_ID
                else state.pipes.get(replay.stream_id)
            )
        if self.sessions.shared and replay.stream_id == GET_STREAM_ID:
            live = None  # every worker writes it: follow the shared log (below)
        if live is not None and not replay.closed and not live.ended:

            async def load() -> list[Item]:
                again = await store.replay_after(session_id, last_event_id)
                return [(event_id, data) for event_id, data in again.events]

            await serve_stream(
                response,
                receive,
                live,
                spawn=self._spawn,
                options=self._config.stream,
                load_replay=load,
                prime=False,
            )
            return
        tail = getattr(store, "tail", None)
        if not replay.closed and tail is not None and self.sessions.shared:
            # Another worker runs the stream (or holds the session's GET): replay, then follow
            # the shared log until the stream ends (or its worker died).
            after = replay.events[-1][0] if replay.events else last_event_id

            async def writer_gone() -> list[tuple[str, bytes]]:
                return await _fail_orphan(store, session_id, replay.stream_id)

            await serve_tail(
                response,
                receive,
                tail(session_id, after),
                first=replay.events,
                spawn=self._spawn,
                options=self._config.stream,
                on_writer_gone=writer_gone,
            )
            return
        # The stream is over, or its handler lives in no process any more (a restart): replay
        # what was stored and end; a final response, if it was produced, is among the events,
        # and a request whose handler is gone with its process is answered with an error.
        events = list(replay.events)
        if not replay.closed and state is None:
            events += await _fail_orphan(store, session_id, replay.stream_id)
        if not await response.start_sse():
            return
        for event_id, data in events:
            if not await response.event(data, event_id=event_id):
                return
        await response.end()

    # -- DELETE --------------------------------------------------------------------------------

    async def delete(self, scope: Scope, receive: Receive, response: HttpResponse) -> None:
        try:
            headers = normalize_headers(scope["headers"])
        except HeaderMismatch as exc:
            await self._error(response, 400, exc)
            return
        route = route_request("DELETE", headers, supported_versions=self.versions)
        if route.kind is RouteKind.ERROR:
            assert route.rejection is not None
            await self._reject(response, route.rejection)
            return
        if self.sessions is None:
            await self._stateless_405(response, "DELETE")
            return
        if route.session_id is None:
            await self._error(
                response,
                400,
                InvalidRequest(f"Bad Request: DELETE needs the {MCP_SESSION_ID_HEADER} to end"),
            )
            return
        state = await self.sessions.find(route.session_id)
        if (
            state is not None
            and state.principal is not None
            and (state.principal != principal_of(scope.get(AUTH_SCOPE_KEY)))
        ):
            await self._not_yours(response, None)
            return
        if await self.sessions.end(route.session_id):
            await response.empty(200)
        else:
            await self._error(
                response,
                404,
                JSONRPCError("Session not found (already ended?)", code=SESSION_NOT_FOUND),
            )

    async def _stateless_405(self, response: HttpResponse, method: str) -> None:
        await self._error(
            response,
            405,
            InvalidRequest(
                f"Method Not Allowed: {method} needs a session, and this server is stateless "
                "(every POST stands alone)"
            ),
            None,
            ((b"allow", b"POST"),),
        )


def _wire_rebuilt(state: LegacySessionState) -> None:
    """A session rebuilt from a shared store sends its unsolicited messages to its GET stream."""
    state.connection.notify = GetStreamOutbound(state)


async def _then_sync(
    server: HttpServable,
    request: Request,
    outbound: RequestOutbound,
    connection: Any,
    auth: Any,
    sessions: LegacySessions,
    session: LegacySessionState,
) -> Any:
    """Run a legacy request, then save its session's connection state (``logging/setLevel``,
    ``resources/subscribe`` change it) for the other workers."""
    result = await server.handle_request(request, outbound, connection=connection, auth=auth)
    await sessions.sync(session)
    return result


_STATE_METHODS: Final = frozenset({"tasks/get", "tasks/update", "tasks/cancel", "tasks/list"})
"""2026 methods that only read or write task records: they never emit, so they are answered as
JSON however long the shared state takes. A Redis that hangs then gets the same 503 with
``Retry-After`` as a Redis that is down, instead of an SSE stream (HTTP 200) promoted after
``sse_after`` whose only event is the error."""

ORPHANED_MESSAGE: Final = (
    "the worker running this request stopped before answering (its lease expired); "
    "send the request again"
)
"""The error that ends a resumed stream whose handler died with its worker."""


async def _fail_orphan(
    store: EventStore, session_id: str, stream_id: str
) -> list[tuple[str, bytes]]:
    """End the stream of a request whose handler is gone: a JSON-RPC error for the request,
    stored (so every later resume gets the same last event) and the stream closed.

    A stream that names no request (the session's ``GET`` stream) just ends. If the stream was
    closed meanwhile (the answer came after all), nothing is added.
    """
    request_id = request_of_stream(stream_id)
    if request_id is None:
        return []
    error = InternalError(ORPHANED_MESSAGE, data={"reason": "worker stopped"})
    data = encode_message(
        prepare_outbound(ErrorResponse(request_id, error.to_error_object()), None, None)
    )
    try:
        event_id = await store.append(session_id, stream_id, data)
    except UsageError:
        return []
    await store.close_stream(session_id, stream_id)
    logger.warning("request %r ended with an error: the worker running it stopped", request_id)
    return [(event_id, data)]

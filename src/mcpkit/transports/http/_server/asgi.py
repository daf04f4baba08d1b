"""The Streamable HTTP server as a plain ASGI application (no web framework needed).

``McpHttpApp(server)`` serves one MCP endpoint (``/mcp`` by default) in both protocol eras,
decided per request, plus a health route; optionally the deprecated 2024-11-05 HTTP+SSE
endpoints. Run it with :func:`mcpkit.transports.http.serve` (uvicorn), or mount it::

    mcp_app = server.http_app()
    app = Starlette(routes=[Mount("/", app=mcp_app)], lifespan=mcp_app.lifespan)

The app needs its **lifespan**: it enters the server's own lifespan, runs the idle-session
reaper, and on shutdown ends every session and in-flight request. ASGI servers send the lifespan
events themselves; frameworks do not forward them to mounted apps, so pass ``lifespan=`` as above
(or wrap your own lifespan around ``async with mcp_app.lifespan():``). A request that arrives
when the lifespan never ran is answered 500 with that instruction, and logged loudly once.

Security defaults: ``Host`` and ``Origin`` are checked against loopback names (DNS rebinding;
see :class:`~mcpkit.protocol._http_security.HostPolicy`, or ``MCPKIT_ALLOWED_HOSTS``), bodies are
bounded in size and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Final

from mcpkit._runtime.concurrency import cancel_and_wait, race
from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._errors import HeaderMismatch, InternalError, InvalidRequest, UsageError
from mcpkit.protocol._http_headers import normalize_headers
from mcpkit.protocol._http_security import DEFAULT_ALLOWED_HOSTS, HostPolicy
from mcpkit.transports.http._server.body import BODY_TIMEOUT_SECONDS, MAX_BODY_BYTES
from mcpkit.transports.http._server.card import CardRoutes
from mcpkit.transports.http._server.endpoint import Endpoint, EndpointConfig
from mcpkit.transports.http._server.event_store import EventStore
from mcpkit.transports.http._server.exchange import (
    DEFAULT_RETRY_MS,
    KEEPALIVE_SECONDS,
    SSE_AFTER_SECONDS,
    StreamOptions,
)
from mcpkit.transports.http._server.legacy_sessions import (
    MAX_SESSIONS_PER_PEER,
    REAP_INTERVAL_SECONDS,
)
from mcpkit.transports.http._server.servable import HttpServable
from mcpkit.transports.http._server.session_store import (
    MAX_SESSIONS,
    SESSION_IDLE_TIMEOUT_SECONDS,
    MemorySessionStore,
    SessionStore,
    StateUnavailable,
)
from mcpkit.transports.http._server.shared_state import SharedState
from mcpkit.transports.http._server.sse_response import HttpResponse, Receive, Scope, Send
from mcpkit.types._jsonrpc import ErrorResponse

__all__ = ["LIFESPAN_HINT", "HttpOptions", "McpHttpApp"]

logger = logging.getLogger("mcpkit.http")

MAX_REMEMBERED: Final = 256
"""Accepted ``Host``/``Origin`` pairs remembered (the table is emptied when full)."""
MAX_REMEMBERED_HOST_BYTES: Final = 512
"""Longer pairs are checked every time, so the table stays small whatever clients send."""
SHUTDOWN_GRACE_SECONDS: Final = 5.0
"""On shutdown, in-flight requests get this long to finish before they are cancelled."""
LIFESPAN_HINT: Final = (
    "the MCP app's lifespan never ran. When you mount it in Starlette or FastAPI, pass "
    "lifespan=mcp_app.lifespan to the outer app (or enter `async with mcp_app.lifespan():` in "
    "your own lifespan); ASGI servers run it by themselves when the MCP app is the top-level app"
)


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """Everything tunable about the HTTP app; every bound has a named default.

    * ``path`` — the MCP endpoint (relative to the mount point); ``health_path`` answers
      ``GET`` with ``{"status": "ok"}`` (``None`` to disable; it skips the Host check so load
      balancers can probe by IP).
    * ``stateless`` — legacy requests without sessions (each POST stands alone; no GET stream, no
      server→client requests). ``json_response`` — answer every request with one JSON object,
      never SSE (related notifications are dropped; server→client requests use the GET stream).
    * ``event_store`` — makes legacy SSE streams resumable with ``Last-Event-ID``
      (:class:`~mcpkit.transports.http._server.event_store.MemoryEventStore` or
      :class:`~mcpkit.transports.http._server.event_store_sqlite.SQLiteEventStore`).
    * ``session_store`` — where legacy sessions live (memory by default, bounded by
      ``max_sessions``, reaped after ``session_idle_timeout`` seconds by a task that runs from
      startup every ``reap_interval`` seconds). One peer (IPv4 address or IPv6 ``/64``) holds at
      most ``max_sessions_per_peer``: at that cap its own least recently used idle session is
      ended to make room, or the new one is refused with 429 when all of them are busy.
    * ``allowed_hosts`` / ``allowed_origins`` / ``host_policy`` — DNS-rebinding protection;
      the default allows loopback names only, extended by ``MCPKIT_ALLOWED_HOSTS`` /
      ``MCPKIT_ALLOWED_ORIGINS``.
    * ``legacy_sse`` — also serve the deprecated 2024-11-05 HTTP+SSE transport at ``sse_path``
      (GET) and ``messages_path`` (POST).
    * ``server_card`` — *experimental* (draft SEP-2127): publish the server's card at
      ``<path>/server-card`` and a catalog listing it at ``/.well-known/mcp/catalog.json`` and
      ``/.well-known/ai-catalog.json``; ``server_card_name`` is the card's reverse-DNS name
      (default: the request's host reversed, ``/``, the server's name) and ``public_url`` the
      endpoint's URL as clients reach it (default: the URL of the request).
    * ``state`` — state shared by several worker processes (``mcpkit.contrib.redis.RedisState``):
      it supplies the session and event stores (unless given) and runs for the app's life.
      A request that needs the shared state while it is unreachable gets 503 with the reason.
    """

    path: str = "/mcp"
    health_path: str | None = "/healthz"
    stateless: bool = False
    json_response: bool = False
    event_store: EventStore | None = None
    session_store: SessionStore | None = None
    max_sessions: int = MAX_SESSIONS
    max_sessions_per_peer: int = MAX_SESSIONS_PER_PEER
    session_idle_timeout: float = SESSION_IDLE_TIMEOUT_SECONDS
    reap_interval: float = REAP_INTERVAL_SECONDS
    allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS
    allowed_origins: Sequence[str] | None = None
    host_policy: HostPolicy | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    body_timeout: float = BODY_TIMEOUT_SECONDS
    retry_ms: int = DEFAULT_RETRY_MS
    keepalive_interval: float = KEEPALIVE_SECONDS
    sse_after: float = SSE_AFTER_SECONDS
    legacy_sse: bool = False
    sse_path: str = "/sse"
    messages_path: str = "/messages"
    server_card: bool = False
    server_card_name: str | None = None
    public_url: str | None = None
    state: SharedState | None = None

    def __post_init__(self) -> None:
        if self.legacy_sse and self.state is not None:
            raise UsageError(
                "legacy_sse=True cannot use shared state: a 2024-11-05 HTTP+SSE session lives in "
                "its GET /sse connection, so its POSTs must reach the same worker. Serve that "
                "transport from a separate app without state=, routed with sticky sessions"
            )
        if self.legacy_sse and self.stateless:
            raise UsageError(
                "legacy_sse=True and stateless=True contradict each other: the 2024-11-05 "
                "HTTP+SSE transport keeps a session for each GET /sse stream, and stateless=True "
                "serves without sessions; drop one of them"
            )


async def _every_step(*steps: Callable[[], Awaitable[object]]) -> None:
    """Run every shutdown step in order, whatever happens to one of them.

    A cancellation of the task shutting down interrupts only the step it lands in (a wait; what
    that step cancelled is awaited by the next one, its owner's close), and is re-raised after
    the last step: never swallowed, never leaving the app half closed. A step that fails is
    logged and its error re-raised at the end the same way.
    """
    first: BaseException | None = None
    for step in steps:
        try:
            await step()
        except asyncio.CancelledError as exc:
            first = first or exc
        except Exception as exc:
            logger.exception("a step of the MCP app's shutdown failed")
            first = first or exc
    if first is not None:
        raise first


async def _stopped(task: asyncio.Task[Any] | None) -> None:
    """Wait (bounded) for a task already cancelled to finish unwinding, without cancelling it
    again (a second cancel would interrupt its cleanup)."""
    if task is not None and not task.done():
        await asyncio.wait((task,), timeout=SHUTDOWN_GRACE_SECONDS)


def _route_path(scope: Scope) -> str:
    """The request path below the mount point (Starlette keeps the full path in ``path``)."""
    path: str = scope.get("path", "/")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path or "/"


def _host_and_origin(
    headers: Sequence[tuple[bytes, bytes]],
) -> tuple[bytes | None, bytes | None, str | None]:
    """The ``Host`` and ``Origin`` values, and the name of one that appears twice (else ``None``).

    A repeated ``Host`` or ``Origin`` is ambiguous: the policy could check one copy while a proxy
    or framework behind it acts on the other, so it is refused outright (RFC 9110 §7.2 allows
    one ``Host``; ``Origin`` is a single origin).
    """
    host: bytes | None = None
    origin: bytes | None = None
    for name, value in headers:
        if name == b"host":
            if host is not None:
                return host, origin, "Host"
            host = value
        elif name == b"origin":
            if origin is not None:
                return host, origin, "Origin"
            origin = value
    return host, origin, None


def _text(value: bytes | None) -> str | None:
    """A header value as normalised headers hold it (Latin-1 text)."""
    return value.decode("latin-1") if value is not None else None


class McpHttpApp:
    """The ASGI app (see the module docstring). Build it with ``server.http_app(**options)``."""

    def __init__(self, server: HttpServable, options: HttpOptions | None = None) -> None:
        self.server = server
        self.options = options = options or HttpOptions()
        self._path = options.path.rstrip("/")
        """The endpoint's path as requests are compared with it (a trailing ``/`` is ignored)."""
        self._direct: str | None = options.path
        """Requests to exactly this path go straight to the endpoint once their ``Host`` and
        ``Origin`` were accepted before (``None`` when another route claims it first)."""
        self.host_policy = options.host_policy or HostPolicy.from_env(
            os.environ, options.allowed_hosts, options.allowed_origins
        )
        self._tasks: TaskSet | None = None
        """The owner of every handler and stream task (made on the serving loop: see
        :meth:`_owner`); the reaper has its own, :attr:`_background`."""
        self._background: TaskSet | None = None
        self._allowed: set[tuple[str | None, str | None]] = set()
        """``Host``/``Origin`` pairs ``host_policy`` accepted (see :meth:`_host_allowed`), as
        normalised headers hold them (Latin-1 text)."""
        self._allowed_policy: HostPolicy | None = None
        self.owned_closers: list[Callable[[], Awaitable[None]]] = []
        """Closed by :meth:`aclose`: resources the app was handed to own (a SQLite store)."""
        self._stack: contextlib.AsyncExitStack | None = None
        self._reaper: asyncio.Task[None] | None = None
        self._warned = False
        event_store, session_store = options.event_store, options.session_store
        if options.state is not None:  # ``is None``: an empty store is falsy (it has a length)
            if event_store is None:
                event_store = options.state.event_store
            if session_store is None:
                session_store = options.state.session_store
        config = EndpointConfig(
            stateless=options.stateless,
            json_response=options.json_response,
            event_store=event_store,
            session_store=session_store,
            max_body_bytes=options.max_body_bytes,
            body_timeout=options.body_timeout,
            max_sessions_per_peer=options.max_sessions_per_peer,
            stream=StreamOptions(
                keepalive=options.keepalive_interval,
                sse_after=options.sse_after,
                retry_ms=options.retry_ms,
            ),
        )
        self.endpoint = Endpoint(
            server,
            config,
            self.spawn,
            lambda: MemorySessionStore(
                max_sessions=options.max_sessions, idle_timeout=options.session_idle_timeout
            ),
        )
        self._legacy_sse: Any = None
        if options.legacy_sse:
            from mcpkit.transports.http._server.legacy_sse import LegacySseEndpoint

            self._legacy_sse = LegacySseEndpoint(self.endpoint, options.messages_path, self.spawn)
        self._cards: CardRoutes | None = None
        if options.server_card:
            self._cards = CardRoutes(
                server, options.path, name=options.server_card_name, public_url=options.public_url
            )
        if options.path == options.health_path or (
            self._cards is not None and self._cards.handles(options.path)
        ):
            self._direct = None

    # -- bookkeeping ---------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._stack is not None

    @property
    def session_count(self) -> int:
        """Legacy sessions held by this process."""
        sessions = self.endpoint.sessions
        return len(sessions) if sessions is not None else 0

    @property
    def reaper_running(self) -> bool:
        """Whether the idle-session reaper is running (from startup to shutdown, with sessions)."""
        return self._reaper is not None and not self._reaper.done()

    @property
    def task_count(self) -> int:
        """Handler and stream tasks alive right now (a leak check for tests and metrics)."""
        return 0 if self._tasks is None else len(self._tasks)

    def begin_shutdown(self) -> None:
        """The server is about to stop (SIGTERM): end every open ``subscriptions/listen`` now.

        A listen never ends by itself, so an HTTP server waiting for its responses to finish
        would wait for it until its graceful-shutdown timeout and then cut it off with no
        final result. Ended here, each listen stream sends its final result and closes, and the
        server's wait completes. :func:`~mcpkit.transports.http.serve` calls this once it has
        stopped accepting connections.
        """
        hub = getattr(self.server, "listen_hub", None)  # optional: a server without listens
        if hub is not None:
            hub.close_where(lambda _outbound: True)

    async def aclose(self) -> None:
        """Release what the app owns (run by :func:`~mcpkit.transports.http.serve` at exit)."""
        closers, self.owned_closers = self.owned_closers, []
        for close in closers:
            try:
                await close()
            except Exception:
                logger.exception("closing %r failed", close)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as a task owned by the app: cancelled and awaited at shutdown."""
        tasks = self._tasks
        if tasks is None:
            tasks = self._owner()
        return tasks.spawn(coro)

    def _owner(self) -> TaskSet:
        """The app's task owner, made on the running loop (the app is built before it runs)."""
        self._tasks = TaskSet(asyncio.get_running_loop(), "mcpkit http app", logger)
        return self._tasks

    async def wait_idle(self) -> None:
        """Return once no handler or stream task is running (tests, graceful drains)."""
        if self._tasks is not None:
            await self._tasks.wait_empty()

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Any = None) -> AsyncIterator[None]:
        """The app's lifespan (usable as Starlette's ``lifespan=``; see the module docstring)."""
        if self._stack is not None:
            raise RuntimeError("the MCP app's lifespan is already running")
        tasks = self._owner()  # a fresh owner on this loop (an app's lifespan may run again)
        stack = contextlib.AsyncExitStack()
        await stack.enter_async_context(self.server.running())
        if self.options.state is not None:
            await stack.enter_async_context(self.options.state.running(self))
        self._stack = stack
        background = self._background = TaskSet(
            asyncio.get_running_loop(), "mcpkit http app background", logger
        )
        sessions = self.endpoint.sessions
        # ``is not None``: an empty session table is falsy, and the reaper must run from startup
        # (a table that starts empty is exactly the one an unauthenticated client can fill). It
        # is not one of the app's handler tasks: ``task_count`` and ``wait_idle`` ignore it.
        if sessions is not None:
            self._reaper = background.spawn(
                sessions.reap_forever(self.options.reap_interval), name="mcpkit session reaper"
            )
        try:
            yield
        finally:
            reaper = self._reaper
            try:
                await _every_step(
                    lambda: cancel_and_wait(reaper, timeout=SHUTDOWN_GRACE_SECONDS),
                    lambda: _stopped(reaper),  # the step above was interrupted: no 2nd cancel
                    background.aclose,
                    lambda: self._drain(tasks),
                    tasks.aclose,  # cancels what did not finish in time, and waits for it
                    self._stopping,
                    stack.aclose,
                )
            finally:
                self._reaper = None
                self._stack = None

    async def _stopping(self) -> None:
        """Requests are refused from here on (the server's own lifespan is left next)."""
        self._stack = None

    async def _drain(self, tasks: TaskSet) -> None:
        """End every session, then give in-flight requests :data:`SHUTDOWN_GRACE_SECONDS` to
        finish (the owner's close cancels the rest)."""
        sessions = self.endpoint.sessions
        if sessions is not None:
            await sessions.close_all()
        if len(tasks):
            await race(tasks.wait_empty(), timeout=SHUTDOWN_GRACE_SECONDS)

    # -- ASGI ----------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            response = HttpResponse(send)
            path: str = scope.get("path", "/")
            if scope.get("root_path"):
                path = _route_path(scope)
            method = scope["method"]
            if path == self._direct and method in ("POST", "GET", "DELETE"):
                raw = scope["headers"]
                try:
                    headers = normalize_headers(raw) if type(raw) is list else None
                except HeaderMismatch:  # a repeated Mcp-* header: the endpoint answers it
                    headers = None
                if (
                    headers is not None
                    and len(headers) == len(raw)  # no name repeats (nor Host, nor Origin)
                    and self._allowed_policy is self.host_policy
                    and (headers.get("host"), headers.get("origin")) in self._allowed
                    and self._stack is not None
                ):
                    # the MCP endpoint, a Host/Origin pair accepted before, the app started:
                    # what nearly every request is (the rest goes through every check below)
                    if method != "POST":
                        await self._endpoint(method, scope, receive, response)
                        return
                    try:  # (a POST: as _endpoint does, one coroutine less)
                        await self.endpoint.post(scope, receive, response, headers)
                    except StateUnavailable as exc:
                        await self._unavailable(response, exc)
                    return
            await self._http(path, method, scope, receive, response)
        elif kind == "lifespan":
            await self._run_lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})

    def _routed(self, path: str) -> bool:
        """Whether ``path`` is the MCP endpoint's (a trailing ``/`` is ignored)."""
        return path == self._path or path.rstrip("/") == self._path

    async def _run_lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        cm = self.lifespan()
        try:
            await cm.__aenter__()
        except Exception as exc:
            logger.exception("the MCP app failed to start")
            await send({"type": "lifespan.startup.failed", "message": repr(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        while (await receive())["type"] != "lifespan.shutdown":
            pass
        try:
            await cm.__aexit__(None, None, None)
        except Exception as exc:
            logger.exception("the MCP app failed to shut down cleanly")
            await send({"type": "lifespan.shutdown.failed", "message": repr(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})

    async def _http(
        self, path: str, method: str, scope: Scope, receive: Receive, response: HttpResponse
    ) -> None:
        """Every request but the common one :meth:`__call__` serves itself, through every
        check in order."""
        options = self.options
        if options.health_path is not None and path == options.health_path:
            await self._health(method, response)
            return
        host, origin, duplicate = _host_and_origin(scope["headers"])
        if duplicate is not None:
            logger.warning("refused a request with more than one %s header", duplicate)
            duplicated = InvalidRequest(
                f"Bad Request: more than one {duplicate} header; send exactly one (a proxy "
                "that appends instead of replacing it must be fixed)"
            )
            await response.error(400, ErrorResponse(None, duplicated.to_error_object()))
            return
        if not self._host_allowed(host, origin):
            rejection = self.host_policy.check(
                host.decode("latin-1") if host is not None else None,
                origin.decode("latin-1") if origin is not None else None,
            )
            if rejection is not None:
                logger.warning("refused a request: %s", rejection.error.message)
                await response.error(rejection.status, rejection.response())
                return
            self._remember_allowed(host, origin)
        if self._cards is not None and self._cards.handles(path):
            await self._cards(path, scope, response)  # static metadata: no lifespan needed
            return
        if not self.started:
            self._lifespan_missing()
            error = InternalError(f"Server misconfigured: {LIFESPAN_HINT}")
            await response.error(500, ErrorResponse(None, error.to_error_object()))
            return
        if self._routed(path):
            if method in ("POST", "GET", "DELETE"):
                await self._endpoint(method, scope, receive, response)
            else:
                allow = "GET, POST, DELETE" if self.endpoint.legacy_ok else "POST"
                await response.text(
                    405, f"Method Not Allowed: use {allow}", ((b"allow", allow.encode()),)
                )
            return
        if self._legacy_sse is not None and path in (options.sse_path, options.messages_path):
            await self._legacy_sse(path == options.sse_path, scope, receive, response)
            return
        await response.text(404, f"Not Found: the MCP endpoint is {options.path}")

    async def _endpoint(
        self, method: str, scope: Scope, receive: Receive, response: HttpResponse
    ) -> None:
        endpoint = self.endpoint
        serve = (
            endpoint.post
            if method == "POST"
            else endpoint.get
            if method == "GET"
            else endpoint.delete
        )
        try:
            await serve(scope, receive, response)
        except StateUnavailable as exc:
            await self._unavailable(response, exc)

    @staticmethod
    async def _unavailable(response: HttpResponse, exc: StateUnavailable) -> None:
        # The shared state (Redis) is down: fail fast with the reason; the next request tries
        # again, and nothing needs a restart once it is back.
        logger.warning("answered 503: %s", exc)
        if response.started:
            await response.end()
            return
        error = InternalError(f"Service Unavailable: {exc}")
        await response.error(
            503, ErrorResponse(None, error.to_error_object()), ((b"retry-after", b"1"),)
        )

    def _host_allowed(self, host: bytes | None, origin: bytes | None) -> bool:
        """Whether this ``Host``/``Origin`` pair passed the current policy before: a client
        sends the same pair on every request, so the policy's parsing runs once per pair."""
        return self._allowed_policy is self.host_policy and (_text(host), _text(origin)) in (
            self._allowed
        )

    def _remember_allowed(self, host: bytes | None, origin: bytes | None) -> None:
        if len(host or b"") + len(origin or b"") > MAX_REMEMBERED_HOST_BYTES:
            return
        if self._allowed_policy is not self.host_policy or len(self._allowed) >= MAX_REMEMBERED:
            self._allowed.clear()
            self._allowed_policy = self.host_policy
        self._allowed.add((_text(host), _text(origin)))

    def _lifespan_missing(self) -> None:
        if not self._warned:
            self._warned = True
            logger.error("refusing requests: %s", LIFESPAN_HINT)

    async def _health(self, method: str, response: HttpResponse) -> None:
        if method not in ("GET", "HEAD"):
            await response.text(405, "Method Not Allowed: use GET", ((b"allow", b"GET, HEAD"),))
        elif not self.started:
            await response.json(503, {"status": "starting"})
        else:
            await response.json(200, {"status": "ok"})

"""``Gateway``: many MCP servers (backends) behind one MCP endpoint, for many clients.

    gateway = Gateway.from_file("gateway.json")
    gateway.run("http", port=8000)                 # or "stdio"; gateway.http_app() for ASGI

A :class:`~mcpkit.client.host.Host` keeps one supervised connection per backend (stdio or HTTP,
either era; restarts with backoff); an mcpkit :class:`~mcpkit.server.Server` serves the
aggregated catalogue to clients in both eras. Per request the gateway:

1. names the client (:func:`~mcpkit.gateway._identity.client_name`: the OAuth token's client, a
   static token's name, or ``anonymous``), applies its rate limit (:mod:`.ratelimit`);
2. lists only what the client's policy allows (:mod:`.policy`) and refuses anything else as if it
   did not exist (``Unknown tool``, resource not found), on every call, not only in listings;
3. routes the call to its backend with the gateway's own credentials for it, bounded by the
   backend's ``timeout``, carrying progress back and cancellation forward, and the backend's
   questions to the client in the client's era (:mod:`._bridge`);
4. writes an audit record (:mod:`.audit`).

A backend that is down, goes away mid-call or times out only affects its own entries: its tools
answer ``isError`` results that say so (``resources/read`` and ``prompts/get``: JSON-RPC error
:data:`BACKEND_UNAVAILABLE`), while every other backend keeps serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, Unpack, overload

import msgspec

from mcpkit.client import ServerUnavailable
from mcpkit.client.host import Host, ServerEntry, load_servers, parse_servers
from mcpkit.client.parked import ParkedCall, ParkingLot
from mcpkit.concurrency import TaskSet, race
from mcpkit.gateway._audit import AuditOutcome, AuditRecord, AuditSink, JsonLinesAudit, emit
from mcpkit.gateway._audit import arguments_digest as digest
from mcpkit.gateway._bridge import (
    PENDING_TTL,
    Asker,
    FrontCall,
    LogRelay,
    Questions,
    ask_front,
    relay_log,
)
from mcpkit.gateway._catalog import Catalog, build_catalog
from mcpkit.gateway._config import ClientRule, GatewaySettings, load_gateway_config
from mcpkit.gateway._identity import ANONYMOUS, StaticBearer, client_name
from mcpkit.gateway._policy import ALLOW_ALL, DENY_ALL, Kind, Policy
from mcpkit.gateway._ratelimit import RateLimit, RateLimited, RateLimiter
from mcpkit.gateway._tasks import GatewayTasks, TaskRoute, TaskRoutes
from mcpkit.gateway._uris import UnsafeUri, normalize_uri
from mcpkit.gateway._watches import Watches
from mcpkit.protocol import (
    CLIENT_CAPABILITIES_KEY,
    LOG_LEVEL_KEY,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ConnectionBroken,
    ConnectionClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    MethodNotFound,
    RequestTimeout,
    ResourceNotFound,
    UsageError,
)
from mcpkit.server import Context, InputRequested, RequestView, Server
from mcpkit.server.middleware import Handler
from mcpkit.server.tasks import (
    CORE_TASKS_VERSION,
    client_declared_tasks,
    core_task_param,
)
from mcpkit.types import (
    INPUT_REQUESTS_KEY,
    INPUT_RESPONSES_KEY,
    REQUEST_STATE_KEY,
    RESULT_TYPE_INPUT_REQUIRED,
    RESULT_TYPE_KEY,
    RESULT_TYPE_TASK,
    TASKS_EXTENSION_ID,
    JSONObject,
    ResourceUpdatedNotification,
)
from mcpkit.types import meta as keys

if TYPE_CHECKING:
    from mcpkit.contrib.auth import ProtectedResource
    from mcpkit.gateway._gateway_options import GatewayOptions, GatewayRunOptions
    from mcpkit.server import HttpAppOptions
    from mcpkit.server.tasks import TaskManager

__all__ = ["BACKEND_UNAVAILABLE", "BackendUnavailable", "Gateway"]

logger = logging.getLogger("mcpkit.gateway")
T = TypeVar("T")

BACKEND_UNAVAILABLE: Final = -32050
"""JSON-RPC error of ``resources/read`` / ``prompts/get`` / ``completion/complete`` when the
backend is down, went away during the call, or did not answer in time."""
LIST_TIMEOUT: Final = 10.0
LIST_RATE_FACTOR: Final = 10
"""Listings are rate limited too, in a bucket this many times a client's call rate and burst."""
LIST_BURST_FLOOR: Final = 10
"""The smallest burst of listings (a client lists several kinds when it connects)."""
MISS_REFRESH_INTERVAL: Final = 1.0
"""Seconds between catalogue refreshes forced by names the catalogue does not know."""
MAX_LISTEN_URIS: Final = 64
"""Resource URIs one ``subscriptions/listen`` may name (more: -32602)."""
_STRIPPED: Final = (RESULT_TYPE_KEY, "ttlMs", "cacheScope")
_SERVER_INFO: Final = keys.SERVER_INFO
_ROUNDS: Final = frozenset({"tools/call", "prompts/get", "resources/read"})
"""2026 methods whose input-required rounds pass straight through between two 2026 peers."""
_STATE: Final = "gateway/state"
_CALL: Final = "gateway/call"
"""``memo`` key of a 2026 round's parked backend call (its id, sealed in ``requestState``)."""
_PRIVATE_LISTS: Final = {
    method: (60_000, "private")
    for method in (
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    )
}
"""2026 cache hints: each client's lists depend on its policy, so no shared cache may reuse them."""
_OUTAGES: Final = (ServerUnavailable, ConnectionBroken, ConnectionClosed, RequestTimeout)


class BackendUnavailable(JSONRPCError):
    """A backend is down, went away during the call, or did not answer in time."""

    code = BACKEND_UNAVAILABLE


def _clean(result: JSONObject) -> JSONObject:
    """A backend's result as the front era will shape it (its own 2026 fields removed)."""
    for key in _STRIPPED:
        result.pop(key, None)
    meta = result.get("_meta")
    if isinstance(meta, dict) and _SERVER_INFO in meta:
        meta = {k: v for k, v in meta.items() if k != _SERVER_INFO}
        if meta:
            result["_meta"] = meta
        else:
            del result["_meta"]
    return result


def _forwarded_meta(info: RequestView) -> JSONObject | None:
    """The front request's ``_meta`` a backend should see (trace context and the like), without
    the protocol's own keys (the gateway's client sets those for the backend's era), plus the
    log level the front client asked for (a legacy session without one gets everything)."""
    meta = info.params.get("_meta")
    kept: JSONObject = {}
    if isinstance(meta, dict):
        kept = {
            k: v
            for k, v in meta.items()
            if k != keys.PROGRESS_TOKEN and not k.startswith(keys.MCP_PREFIX)
        }
    level = info.log_level if info.era == "modern" else (info.log_level or "debug")
    if level is not None:
        kept[LOG_LEVEL_KEY] = level
    return kept or None


_FRONT_CAPABILITIES: Final = ("elicitation", "sampling", "roots", "experimental", "extensions")
"""What of a front client's capabilities a 2026 backend is shown (``tasks`` is 2025-only)."""
_TASK_METHODS: Final = ("tasks/get", "tasks/update", "tasks/cancel", "tasks/result")


def _front_capabilities(info: RequestView) -> JSONObject:
    """The front client's own capabilities, as a 2026 backend's request declares them: the
    backend then decides what to ask, and whether a call becomes a task (the Tasks extension
    is carried: :mod:`._tasks`), exactly as it would if that client called it directly
    (``roots.listChanged`` is legacy-only)."""
    caps = info.client_capabilities
    out: JSONObject = {k: caps[k] for k in _FRONT_CAPABILITIES if k in caps}
    if "roots" in out:
        out["roots"] = {}
    return out


def _without_server_info(result: JSONObject) -> JSONObject:
    """A backend's task answer as the front sees it: every field kept (``ttlMs`` is the task's
    own there), only the backend's ``serverInfo`` left out (the gateway names itself)."""
    meta = result.get("_meta")
    if isinstance(meta, dict) and _SERVER_INFO in meta:
        meta = {k: v for k, v in meta.items() if k != _SERVER_INFO}
        if meta:
            result["_meta"] = meta
        else:
            del result["_meta"]
    return result


def _front_error(info: RequestView, method: str, exc: JSONRPCError) -> JSONRPCError:
    """A backend's error in the front client's revision, as a direct call would have said it:
    a legacy client never gets a code only 2026 defines (-32021 is -32600 there, as mcpkit's
    own server says a missing capability in a legacy session), and "no such resource" is
    -32002 for it whatever the backend's era (a 2026 front gets -32602 with ``data.uri`` from
    the dispatcher, which rewrites -32002 itself)."""
    if info.era == "modern":
        return exc
    if exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
        required = exc.data.get("requiredCapabilities") if isinstance(exc.data, dict) else None
        extensions = required.get("extensions") if isinstance(required, dict) else None
        if isinstance(extensions, dict) and TASKS_EXTENSION_ID in extensions:
            # a tool that runs only as a task, for a client that cannot start one: what a
            # legacy session is told directly
            return MethodNotFound(exc.message)
        return InvalidRequest(exc.message, exc.data)
    if (
        method == "resources/read"
        and isinstance(exc, InvalidParams)
        and isinstance(exc.data, dict)
        and "uri" in exc.data
    ):
        return ResourceNotFound(exc.message, exc.data)
    return exc


def _outage(backend: str, exc: BaseException) -> str:
    if isinstance(exc, RequestTimeout):
        return f"backend {backend!r} did not answer in time ({exc})"
    if isinstance(exc, ServerUnavailable):
        return f"backend {backend!r} is unavailable: {exc}"
    return f"backend {backend!r} went away during the call: {exc}"


def _client_info(name: str) -> JSONObject:
    """How the gateway introduces itself to its backends."""
    import mcpkit

    return {"name": name, "version": mcpkit.__version__}


class _GatewayServer(Server):
    """The front server: a :class:`Server` whose catalogue methods the gateway answers
    (:func:`_take_over`); it only says which input schema a listed tool has."""

    def __init__(
        self,
        gateway: Gateway,
        name: str,
        *,
        lifespan: Callable[[Server], contextlib.AbstractAsyncContextManager[Any]],
        cache_policy: dict[str, tuple[int, str]],
        tasks: TaskManager,
    ) -> None:
        self.gateway = gateway
        super().__init__(name, lifespan=lifespan, cache_policy=cache_policy, tasks=tasks)

    def tool_input_schema(self, name: str) -> JSONObject | None:
        """A tool's ``inputSchema`` as the gateway lists it (``Mcp-Param-*`` header checks)."""
        catalog = self.gateway._catalog or self.gateway._previous
        route = catalog.tools.get(name) if catalog is not None else None
        schema = route.definition.get("inputSchema") if route is not None else None
        return schema if isinstance(schema, dict) else None


def _take_over(server: Server, gateway: Gateway) -> dict[str, Handler]:
    """Answer the catalogue methods with the gateway (``Server.handle``); the server's own
    handlers of the methods the gateway delegates to (listen, subscribe, tasks) are returned."""
    own = {
        method: server.handler(method)
        for method in ("subscriptions/listen", "resources/subscribe", *_TASK_METHODS, "tasks/list")
    }
    replaced: dict[str, Handler] = {
        "tools/list": gateway._list_tools,
        "tools/call": gateway._call_tool,
        "prompts/list": gateway._list_prompts,
        "prompts/get": gateway._get_prompt,
        "resources/list": gateway._list_resources,
        "resources/templates/list": gateway._list_templates,
        "resources/read": gateway._read_resource,
        "resources/subscribe": gateway._subscribe,
        "completion/complete": gateway._complete,
        "subscriptions/listen": gateway._listen,
        **{method: gateway._task_request for method in _TASK_METHODS},
        "tasks/list": gateway._list_tasks,
    }
    for method, handler in replaced.items():
        server.handle(method)(handler)
    return own


class Gateway:
    """Backends behind one endpoint; see the module docstring.

    ``backends``: an ``mcpServers`` mapping, :class:`ServerEntry` list or config file path (as
    for :class:`Host`). ``clients``: client name → :class:`ClientRule`; ``anonymous``: the policy
    of unauthenticated requests. ``tokens`` (token → client name) turns on the static-token
    mode of :meth:`http_app`; ``resource`` (a :class:`ProtectedResource`) puts it behind OAuth
    instead. ``audit``: a JSON-lines path or an :data:`~mcpkit.gateway._audit.AuditSink`.
    """

    def __init__(
        self,
        backends: Mapping[str, Any] | Sequence[ServerEntry] | str | os.PathLike[str],
        *,
        name: str = "mcpkit-gateway",
        clients: Mapping[str, ClientRule] | None = None,
        anonymous: Policy | None = None,
        anonymous_rate_limit: RateLimit | None = None,
        tokens: Mapping[str, str] | None = None,
        resource: ProtectedResource | None = None,
        audit: AuditSink | str | os.PathLike[str] | None = None,
        namespacing: str = "always",
        separator: str = "__",
        call_timeout: float = 60.0,
        backend_timeouts: Mapping[str, float] | None = None,
        list_timeout: float = LIST_TIMEOUT,
        host_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.questions = Questions()
        if isinstance(backends, str | os.PathLike):
            entries = load_servers(backends)
        elif isinstance(backends, Mapping):
            entries = parse_servers(
                backends if "mcpServers" in backends else {"mcpServers": backends}
            )
        else:
            entries = list(backends)
        host_options = dict(host_options or {})
        server_options = {k: dict(v) for k, v in host_options.pop("server_options", {}).items()}
        self.backend_timeouts = dict(backend_timeouts or {})
        self._task_routes = TaskRoutes()
        for entry in entries:  # every backend asks its questions through the front call
            options = {
                **self.questions.handlers(entry.name),
                "notification_handler": self._backend_notice(entry.name),
                # to follow a backend's task on its listen stream (calls declare the front
                # client's own capabilities instead: see _forward)
                "extensions": {TASKS_EXTENSION_ID: {}},
                **server_options.get(entry.name, {}),
            }
            if "mode" in entry.options:  # e.g. "legacy": talk to it in the handshake era
                options["mode"] = entry.options["mode"]
            if "timeout" in entry.options:
                self.backend_timeouts.setdefault(entry.name, float(entry.options["timeout"]))
            server_options[entry.name] = options
        host_options.setdefault("client_options", {"client_info": _client_info(name)})
        self.host = Host(
            entries,
            namespacing=namespacing,  # type: ignore[arg-type]
            separator=separator,
            list_timeout=list_timeout,
            on_change=self._backend_changed,
            server_options=server_options,
            **host_options,
        )
        self.clients = dict(clients or {})
        self.tokens = dict(tokens or {})
        self.resource = resource
        if anonymous is None:
            anonymous = DENY_ALL if (self.tokens or resource is not None) else ALLOW_ALL
        self.anonymous = anonymous
        self.anonymous_rate_limit = anonymous_rate_limit
        self.call_timeout = call_timeout
        self.list_timeout = list_timeout
        self._owned_audit: JsonLinesAudit | None = None
        if isinstance(audit, str | os.PathLike):
            self._owned_audit = JsonLinesAudit(audit)
            audit = self._owned_audit
        self.audit: AuditSink | None = audit
        self.limiter = RateLimiter()
        self._catalog: Catalog | None = None
        self._catalog_key: tuple[Any, ...] = ()
        self._previous: Catalog | None = None
        self._catalog_lock = asyncio.Lock()
        self._dirty = False
        self._notify_pending = False
        self._missed_at = -MISS_REFRESH_INTERVAL
        self._refreshing: asyncio.Task[None] | None = None
        self._parked: ParkingLot[tuple[str, str]] = ParkingLot(
            PENDING_TTL, name="gateway: 2026 calls awaiting their client"
        )
        """Backend calls held across a 2026 client's rounds, by (client, call id)."""
        self._owned: TaskSet | None = None
        """The gateway's background work (refreshes, followers, audit writes)."""
        self._watches = Watches(self._follow, spawn=self._spawn)
        self._task_follows: dict[
            tuple[str, str], tuple[asyncio.Task[None], asyncio.Future[None]]
        ] = {}
        """Backend tasks followed for 2026 listeners: the relay, and when its listen is in place."""
        self._announced: Catalog | None = None
        self.server: Server = _GatewayServer(
            self,
            name,
            lifespan=self._lifespan,
            cache_policy=_PRIVATE_LISTS,
            # the Tasks extension is declared and its methods served: a backend's tasks are
            # carried (:mod:`._tasks`); the manager answers for ids no backend holds
            tasks=GatewayTasks(
                self._task_routes, lambda info: self._rule(info)[0], self._follow_task
            ),
        )
        self._own_handlers = _take_over(self.server, self)

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], **overrides: Unpack[GatewayOptions]
    ) -> Gateway:
        """A gateway for a configuration file (:mod:`mcpkit.gateway._config`)."""
        entries, settings = load_gateway_config(path)
        return cls.from_settings(entries, settings, **overrides)

    @classmethod
    def from_settings(
        cls,
        entries: Sequence[ServerEntry],
        settings: GatewaySettings,
        **overrides: Unpack[GatewayOptions],
    ) -> Gateway:
        options: dict[str, Any] = {
            "name": settings.name,
            "clients": settings.clients,
            "anonymous": settings.anonymous,
            "anonymous_rate_limit": settings.anonymous_rate_limit,
            "tokens": settings.tokens() or None,
            "audit": settings.audit,
            "namespacing": settings.namespacing,
            "separator": settings.separator,
            "call_timeout": settings.call_timeout,
            "backend_timeouts": settings.backend_timeouts,
        }
        options.update(overrides)
        return cls(list(entries), **options)

    def _backend_notice(self, backend: str) -> Callable[[Any], Awaitable[None]]:
        """A backend's notifications beyond lists, logs and progress: a 2025-11-25 task's
        ``notifications/tasks/status`` goes to the session of the client that started it."""

        async def notice(note: Any) -> None:
            wire = note if isinstance(note, dict) else msgspec.to_builtins(note)
            if not isinstance(wire, dict) or wire.get("method") != "notifications/tasks/status":
                return
            params = wire.get("params")
            task_id = params.get("taskId") if isinstance(params, dict) else None
            route = self._task_routes.held_by(task_id, backend)
            if route is None or route.notify is None:
                return
            assert isinstance(params, dict)
            try:
                await route.notify.send_notification("notifications/tasks/status", params)
            except Exception as exc:  # the client went away: its task goes on
                logger.debug("task %s: status not delivered: %s", task_id, exc)

        return notice

    # -- serving -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _lifespan(self, _server: Server) -> AsyncIterator[Gateway]:
        await self.host.start()
        try:
            yield self
        finally:
            await self._parked.aclose()
            await self._watches.aclose()
            if self._owned is not None:
                await self._owned.aclose()
                self._owned = None
            self._task_follows.clear()
            await self.host.aclose()
            if self._owned_audit is not None:
                self._owned_audit.close()

    async def __aenter__(self) -> Gateway:
        self._running = self.server.running()
        await self._running.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self._running.__aexit__(*exc_info)

    def http_app(self, **options: Unpack[HttpAppOptions]) -> Any:
        """The gateway as an ASGI app: the MCP endpoint behind the configured authentication
        (static tokens or OAuth); ``options`` are those of ``Server.http_app``."""
        app: Any = self.server.http_app(**options)
        if self.resource is not None:
            from mcpkit.contrib.auth import RequireBearer

            return _Wrapped(RequireBearer(app, self.resource), app)
        if self.tokens:
            return StaticBearer(app, self.tokens)
        return app

    @overload
    def run(self, transport: Literal["stdio"] = "stdio") -> None: ...

    @overload
    def run(self, transport: Literal["http"], **options: Unpack[GatewayRunOptions]) -> None: ...

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve until stopped: ``"stdio"`` or ``"http"`` (options: ``host``, ``port`` and the
        HTTP app's; stdio takes none, and is refused any rather than ignore them)."""
        if transport not in ("stdio", "http"):
            raise UsageError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
        if transport == "stdio":
            if options:
                given = ", ".join(f"{key}={value!r}" for key, value in options.items())
                raise UsageError(
                    f"gateway.run() serves stdio, which takes no options, but got {given}; "
                    f'for Streamable HTTP write gateway.run("http", {given})'
                )
            self.server.run("stdio")
            return
        from mcpkit.transports.http import serve

        host = options.pop("host", "127.0.0.1")
        port = options.pop("port", 8000)
        app = self.http_app(**options)

        def announce(bound_host: str, bound_port: int) -> None:
            import sys

            url = _endpoint_url(bound_host, bound_port, str(options.get("path", "/mcp")))
            sys.stderr.write(f"mcpkit: gateway {self.server.name} at {url}\n")
            sys.stderr.flush()

        serve(app, host=host, port=port, on_listening=announce)

    # -- who is calling ------------------------------------------------------------------------

    def _rule(self, info: RequestView) -> tuple[str, Policy, ClientRule | None]:
        name = client_name(info.auth)
        rule = self.clients.get(name)
        if rule is not None:
            return name, rule.policy, rule
        if name == ANONYMOUS:
            return name, self.anonymous, None
        return name, DENY_ALL, None

    def _limit(self, client: str, rule: ClientRule | None, *, listing: bool = False) -> None:
        """Take one token of ``client``'s rate limit (anonymous callers share one bucket).

        Listings have a bucket of their own, :data:`LIST_RATE_FACTOR` times as generous: a
        client whose calls are limited can still see what it may call, but cannot make the
        gateway list its backends (which may be slow) as fast as it likes."""
        limit = rule.rate_limit if rule is not None else None
        if rule is None and client == ANONYMOUS:
            limit = self.anonymous_rate_limit
        if limit is None:
            return
        if listing:
            limit = RateLimit(
                rate=limit.rate * LIST_RATE_FACTOR,
                burst=max(limit.burst * LIST_RATE_FACTOR, LIST_BURST_FLOOR),
            )
            client = f"{client}\x00lists"
        self.limiter.check(client, limit)

    # -- the catalogue -------------------------------------------------------------------------

    def _backend_changed(self, _backend: str) -> None:
        """A backend's lists changed: refresh the catalogue in the background (coalesced), then
        tell the clients, whose next listing then sees the change."""
        if not self._notify_pending:  # the lists as clients last saw them, to compare with
            self._announced = self._catalog or self._previous
        self._dirty = True
        self._notify_pending = True
        self._refresh_soon()

    def _key(self) -> tuple[Any, ...]:
        return tuple((n, s.state, s.connections) for n, s in self.host.servers.items())

    def _stale(self) -> bool:
        return self._dirty or self._key() != self._catalog_key

    async def catalog(self) -> Catalog:
        """Every backend's offer. Once built it is answered at once, never waiting for a
        backend to list: a stale one (a backend changed, came or went) is rebuilt in the
        background, one rebuild at a time however often backends announce changes, so a slow
        or noisy backend cannot stall calls to the others."""
        catalog = self._catalog
        if catalog is not None:
            if self._stale():
                self._refresh_soon()
            return catalog
        async with self._catalog_lock:  # the first build: nothing to answer with yet
            if self._catalog is None:
                await self._rebuild()
        assert self._catalog is not None
        return self._catalog

    async def _rebuild(self) -> None:
        key = self._key()  # taken first: a change during the build makes it stale again
        self._dirty = False
        self._catalog = await build_catalog(self.host, self.list_timeout, self._previous)
        self._previous = self._catalog
        self._catalog_key = key

    def _refresh_soon(self) -> asyncio.Task[None]:
        task = self._refreshing
        if task is None or task.done():
            task = self._spawn(self._refresh())
            self._refreshing = task
        return task

    def _spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Start background work the gateway owns (cancelled and awaited when it stops)."""
        if self._owned is None:  # made in the loop the gateway runs in (ended by _lifespan)
            self._owned = TaskSet(asyncio.get_running_loop(), "gateway", logger)
        return self._owned.spawn(coro)

    async def _refresh(self) -> None:
        while self._stale():
            try:
                async with self._catalog_lock:
                    await self._rebuild()
            except Exception:
                logger.exception("rebuilding the gateway's catalogue failed")
                return
        if self._notify_pending:
            # only the lists that changed (a backend that added a tool changed no prompt)
            self._notify_pending = False
            before, after = self._announced, self._catalog
            for kind in ("tools", "prompts", "resources"):
                unknown = before is None or after is None
                if unknown or _listing(before, kind) != _listing(after, kind):  # type: ignore[arg-type]
                    await self.server.notify_list_changed(kind)

    async def _catalog_after_miss(self) -> Catalog:
        """The catalogue once more, for a name the current one lacks (a backend may have gained
        it without saying so): a refresh, at most one per :data:`MISS_REFRESH_INTERVAL` whatever
        names callers guess, waited for at most ``list_timeout``."""
        now = time.monotonic()
        if not self._stale() and now - self._missed_at >= MISS_REFRESH_INTERVAL:
            self._missed_at = now
            self._dirty = True
        if self._stale():
            # waited for, bounded, never cancelled (race leaves a future it is given running)
            await race(self._refresh_soon(), timeout=self.list_timeout)
        return await self.catalog()

    async def _visible(self, info: RequestView, kind: Kind) -> list[JSONObject]:
        client, policy, rule = self._rule(info)
        self._limit(client, rule, listing=True)  # a backend may be slow to list
        catalog = await self.catalog()
        if kind == "tools":
            routes = catalog.tools.values()
        elif kind == "prompts":
            routes = catalog.prompts.values()
        else:
            routes = catalog.resources.values()
        return [r.definition for r in routes if policy.allows(kind, r.backend, r.own)]

    async def _list_tools(self, info: RequestView, ctx: Context) -> JSONObject:
        _no_cursor(info)
        return {"tools": await self._visible(info, "tools")}

    async def _list_prompts(self, info: RequestView, ctx: Context) -> JSONObject:
        _no_cursor(info)
        return {"prompts": await self._visible(info, "prompts")}

    async def _list_resources(self, info: RequestView, ctx: Context) -> JSONObject:
        _no_cursor(info)
        return {"resources": await self._visible(info, "resources")}

    async def _list_templates(self, info: RequestView, ctx: Context) -> JSONObject:
        _no_cursor(info)
        client, policy, rule = self._rule(info)
        self._limit(client, rule, listing=True)
        catalog = await self.catalog()
        listed: list[JSONObject] = []
        for route, _ in catalog.templates:
            # the same template from two backends is one entry (reads go to the first)
            if policy.allows("resources", route.backend, route.own) and route.definition not in (
                listed
            ):
                listed.append(route.definition)
        return {"resourceTemplates": listed}

    # -- calls ---------------------------------------------------------------------------------

    async def _audited(
        self,
        info: RequestView,
        target: str | None,
        arguments: Any,
        run: Callable[[str, Policy], Awaitable[tuple[str | None, JSONObject]]],
    ) -> JSONObject:
        """Rate limit, run, and record one call (``run`` returns the backend and the result)."""
        started = time.time()
        clock = time.perf_counter()
        client, policy, rule = self._rule(info)
        backend: str | None = None
        outcome: AuditOutcome = "ok"
        error: str | None = None
        try:
            self._limit(client, rule)
            backend, result = await run(client, policy)
            if result.get("isError") is True:
                outcome = "tool_error"
            return result
        except InputRequested:
            outcome = "input_required"
            raise
        except RateLimited as exc:
            outcome, error = "rate_limited", f"{exc.code}: {exc.message}"
            raise
        except _Refused as exc:
            outcome, error = "denied", f"{exc.error.code}: {exc.error.message}"
            raise exc.error from None
        except BackendUnavailable as exc:
            backend = exc.data.get("backend") if isinstance(exc.data, dict) else backend
            outcome, error = "unavailable", f"{exc.code}: {exc.message}"
            raise
        except JSONRPCError as exc:
            outcome, error = "error", f"{exc.code}: {exc.message}"
            raise
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        except Exception as exc:
            outcome, error = "error", f"{type(exc).__name__}: {exc}"
            raise
        finally:
            if self.audit is not None:  # nothing to compute for a gateway without a log
                record = AuditRecord(
                    time=started,
                    client=client,
                    method=info.method,
                    backend=backend,
                    target=target,
                    arguments_digest=digest(arguments),
                    outcome=outcome,
                    duration_ms=round((time.perf_counter() - clock) * 1000, 3),
                    era=info.protocol_version,
                    error=error,
                )
                # written whatever happens to the caller: by the gateway's own task, which a
                # cancelled caller does not wait for (it sees its CancelledError at once)
                await asyncio.shield(self._spawn(emit(self.audit, record)))

    def _timeout(self, backend: str) -> float:
        return self.backend_timeouts.get(backend, self.call_timeout)

    async def _forward(
        self,
        info: RequestView,
        ctx: Context,
        client: str,
        backend: str,
        method: str,
        params: JSONObject,
    ) -> JSONObject:
        """Send ``method`` to ``backend`` for this front request; the backend's result."""
        meta = _forwarded_meta(info)
        if meta:
            params["_meta"] = meta
        progress = None
        if info.progress_token is not None:

            async def progress(value: float, total: float | None, message: str | None) -> None:
                await ctx.report_progress(value, total, message)

        backend_era = self.host.client(backend).era
        if backend_era == "modern":
            # the backend decides what to ask by what the front client declared
            params.setdefault("_meta", {})[CLIENT_CAPABILITIES_KEY] = _front_capabilities(info)
        try:
            return await self._carry(info, ctx, client, backend, method, params, progress)
        except JSONRPCError as exc:
            raise _front_error(info, method, exc) from None

    async def _carry(
        self,
        info: RequestView,
        ctx: Context,
        client: str,
        backend: str,
        method: str,
        params: JSONObject,
        progress: Any,
    ) -> JSONObject:
        """:meth:`_forward`'s transport: a 2026 round passed through, a legacy front asked
        directly, or a 2026 front's pending call."""
        if info.era == "modern" and method in _ROUNDS and self.host.client(backend).era == "modern":
            return await self._modern_round(info, ctx, client, backend, method, params, progress)

        async def send(asker: Asker, log: LogRelay) -> JSONObject:
            upstream = self.host.client(backend)
            with self.questions.opened(FrontCall(backend, client, asker, log)):
                result = await upstream.send_request(
                    method,
                    params,
                    timeout=self._timeout(backend),
                    progress_callback=progress,
                    answer_input=True,
                )
            return _clean(result)

        if info.era == "legacy" or method == "completion/complete":

            async def ask(question: str, wire: JSONObject) -> JSONObject:
                return await ask_front(ctx, question, wire, None)

            async def log(note: Any) -> None:
                await relay_log(ctx, note)

            return await send(ask, log)
        return await self._pending_round(info, ctx, client, send)

    async def _modern_round(
        self,
        info: RequestView,
        ctx: Context,
        client: str,
        backend: str,
        method: str,
        params: JSONObject,
        progress: Any,
    ) -> JSONObject:
        """A 2026 client in front of a 2026 backend: each round passes through. The backend's
        questions reach the client with their own keys (several at once, as the backend asked
        them), the client's answers go back as they came, and the backend's ``requestState``
        rides inside the gateway's own sealed state; the backend sees the client's declared
        capabilities, so it asks only what the client can answer."""
        responses = info.params.get(INPUT_RESPONSES_KEY)
        if isinstance(responses, dict) and responses:
            params[INPUT_RESPONSES_KEY] = responses
        state = info.memo.get(_STATE)
        if isinstance(state, str):
            params[REQUEST_STATE_KEY] = state

        async def refuse(question: str, wire: JSONObject) -> JSONObject:
            raise InternalError(f"{question}: a 2026 backend asks in its result, not by request")

        async def log(note: Any) -> None:
            await relay_log(ctx, note)

        upstream = self.host.client(backend)
        with self.questions.opened(FrontCall(backend, client, refuse, log)):
            result = await upstream.send_request(
                method, params, timeout=self._timeout(backend), progress_callback=progress
            )
        # the backend runs it as a task: carried
        if result.get(RESULT_TYPE_KEY) == RESULT_TYPE_TASK:
            self._task_routes.add(
                str(result.get("taskId")), backend, client, "modern", result.get("ttlMs")
            )
            return _without_server_info(result)
        if result.get(RESULT_TYPE_KEY) != RESULT_TYPE_INPUT_REQUIRED:
            return _clean(result)
        info.memo.pop(_STATE, None)
        state = result.get(REQUEST_STATE_KEY)
        if isinstance(state, str):
            info.memo[_STATE] = state
        requests = result.get(INPUT_REQUESTS_KEY)
        raise InputRequested(requests if isinstance(requests, dict) else {})

    async def _pending_round(
        self,
        info: RequestView,
        ctx: Context,
        client: str,
        send: Callable[[Asker, LogRelay], Awaitable[JSONObject]],
    ) -> JSONObject:
        """A 2026 front round: continue the pending backend call, or start it."""
        call_id = info.memo.get(_CALL)
        call = self._parked.take((client, call_id)) if isinstance(call_id, str) else None
        if call is None:  # a first round, or one whose call expired or is another client's
            call = self._parked.start(_backend_call(send))
            info.memo[_CALL] = call.id
        call.context = ctx  # the backend call's logs go to the round in progress
        try:
            while (asked := await call.step()) is not None:
                question, wire = asked.question
                # the same key in every round: the client's retry carries the answer under it
                asked.answer(await ask_front(ctx, question, wire, f"gateway-{asked.number}"))
        except InputRequested:  # the client answers in its next round: the call waits
            self._parked.park((client, call.id), call)
            raise
        except BaseException:  # the round failed (or the client refused): the call ends
            call.cancel()
            raise
        result: JSONObject = call.result()
        return result

    async def _task_request(self, info: RequestView, ctx: Context) -> JSONObject:
        """A task request: to the backend holding the task this client started (:mod:`._tasks`),
        else answered by the gateway's own task manager, which says what a server says of a
        task it does not know (or of a request that did not declare the extension)."""
        own = self._own_handlers[info.method]  # the server's own task manager's answer
        client, _, _ = self._rule(info)
        task_id = info.params.get("taskId")
        route = self._task_routes.find(task_id, client, info.era)
        if route is None or (
            info.era == "modern" and not client_declared_tasks(info.client_capabilities)
        ):
            return await own(info, ctx)
        backend = route.backend

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            params = {k: v for k, v in info.params.items() if k != "_meta"}
            meta = _forwarded_meta(info) or {}
            upstream = self.host.client(backend)
            if upstream.era == "modern":
                meta[CLIENT_CAPABILITIES_KEY] = _front_capabilities(info)
            params["_meta"] = meta

            async def ask(question: str, wire: JSONObject) -> JSONObject:
                return await ask_front(ctx, question, wire, None)

            async def log(note: Any) -> None:
                await relay_log(ctx, note)

            try:
                # 2025-11-25 tasks/result blocks while the task asks its questions, which
                # reach this client through the open call
                carried = FrontCall(backend, client, ask, log, task_id=str(task_id))
                with self.questions.opened(carried):
                    result = await upstream.send_request(
                        info.method,
                        params,
                        timeout=None if info.method == "tasks/result" else self._timeout(backend),
                    )
            except _OUTAGES as exc:
                raise BackendUnavailable(_outage(backend, exc), {"backend": backend}) from None
            except JSONRPCError as exc:
                raise _front_error(info, info.method, exc) from None
            return backend, _without_server_info(result)

        return await self._audited(info, task_id if isinstance(task_id, str) else None, None, run)

    async def _list_tasks(self, info: RequestView, ctx: Context) -> JSONObject:
        """2025-11-25 ``tasks/list``: this client's tasks, each as its backend reports it now
        (one page; a task its backend no longer knows is left out)."""
        own_list = self._own_handlers["tasks/list"]
        if info.params.get("cursor") is not None:
            return await own_list(info, ctx)  # the manager's own -32602
        own = await own_list(info, ctx)  # checks the session may list (2025-11-25)
        client, _, _ = self._rule(info)
        listed = list(own.get("tasks", []))
        for task_id, route in self._task_routes.owned(client, "legacy"):
            try:
                task = await self.host.client(route.backend).send_request(
                    "tasks/get", {"taskId": task_id}, timeout=self._timeout(route.backend)
                )
            except (*_OUTAGES, JSONRPCError) as exc:
                logger.debug("tasks/list: task %s on %r: %s", task_id, route.backend, exc)
                continue
            listed.append(_without_server_info(task))
        return {"tasks": listed}

    async def _call_tool(self, info: RequestView, ctx: Context) -> JSONObject:
        name = info.params.get("name")
        if not isinstance(name, str):
            raise InvalidParams("tools/call needs params.name (a string)")
        arguments = info.params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise InvalidParams("tools/call params.arguments must be an object")

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            catalog = await self.catalog()
            route = catalog.tools.get(name)
            if route is None:  # a backend may have gained it since: look once more
                route = (await self._catalog_after_miss()).tools.get(name)
            if route is None or not policy.allows("tools", route.backend, route.own):
                raise _Refused(InvalidParams(f"Unknown tool: {name}"))
            params: JSONObject = {"name": route.own}
            if arguments is not None:
                params["arguments"] = arguments
            task = core_task_param(info)
            carried = task is not None and (
                self.host.client(route.backend).protocol_version == CORE_TASKS_VERSION
            )
            if carried:  # 2025-11-25 to 2025-11-25: the backend's core task, carried
                params["task"] = task
            try:
                result = await self._forward(info, ctx, client, route.backend, "tools/call", params)
                created = result.get("task") if carried else None
                if isinstance(created, dict):
                    session = info.session_notifier
                    self._task_routes.add(
                        str(created.get("taskId")),
                        route.backend,
                        client,
                        "legacy",
                        created.get("ttl"),
                        notify=session,
                    )
                return route.backend, result
            except _OUTAGES as exc:
                text = _outage(route.backend, exc)
                return route.backend, {"content": [{"type": "text", "text": text}], "isError": True}

        return await self._audited(info, name, arguments, run)

    async def _get_prompt(self, info: RequestView, ctx: Context) -> JSONObject:
        name = info.params.get("name")
        if not isinstance(name, str):
            raise InvalidParams("prompts/get needs params.name (a string)")
        arguments = info.params.get("arguments")

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            route = (await self.catalog()).prompts.get(name)
            if route is None:
                route = (await self._catalog_after_miss()).prompts.get(name)
            if route is None or not policy.allows("prompts", route.backend, route.own):
                raise _Refused(InvalidParams(f"Unknown prompt: {name}"))
            params: JSONObject = {"name": route.own}
            if arguments is not None:
                params["arguments"] = arguments
            return route.backend, await self._guarded(
                info, ctx, client, route.backend, "prompts/get", params
            )

        return await self._audited(info, name, arguments, run)

    async def _guarded(
        self,
        info: RequestView,
        ctx: Context,
        client: str,
        backend: str,
        method: str,
        params: JSONObject,
    ) -> JSONObject:
        """:meth:`_forward`, with an outage as :class:`BackendUnavailable`."""
        try:
            return await self._forward(info, ctx, client, backend, method, params)
        except _OUTAGES as exc:
            raise BackendUnavailable(_outage(backend, exc), {"backend": backend}) from None

    async def _resource_backend(
        self, info: RequestView, uri: str, policy: Policy
    ) -> tuple[str, str]:
        """The backend of ``uri`` and the URI to forward to it (its normal form, the one the
        policy judged: :mod:`._uris`); refused as not found when the policy does not allow it."""
        try:
            normal = normalize_uri(uri)
        except UnsafeUri:
            raise _Refused(ResourceNotFound(f"Resource not found: {uri}", {"uri": uri})) from None
        found = (await self.catalog()).resource_backend(normal)
        if found is None:
            found = (await self._catalog_after_miss()).resource_backend(normal)
        if found is None or not policy.allows("resources", found[0], normal):
            raise _Refused(ResourceNotFound(f"Resource not found: {uri}", {"uri": uri}))
        return found[0], normal

    async def _read_resource(self, info: RequestView, ctx: Context) -> JSONObject:
        uri = info.params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParams("resources/read needs params.uri (a string)")

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            backend, normal = await self._resource_backend(info, uri, policy)
            return backend, await self._guarded(
                info, ctx, client, backend, "resources/read", {"uri": normal}
            )

        return await self._audited(info, uri, None, run)

    async def _complete(self, info: RequestView, ctx: Context) -> JSONObject:
        ref = info.params.get("ref")
        if not isinstance(ref, dict):
            raise InvalidParams("completion/complete needs params.ref")
        kind = ref.get("type")
        target = ref.get("name") if kind == "ref/prompt" else ref.get("uri")
        if kind not in ("ref/prompt", "ref/resource") or not isinstance(target, str):
            raise InvalidParams("params.ref must be ref/prompt{name} or ref/resource{uri}")

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            catalog = await self.catalog()
            params = {k: v for k, v in info.params.items() if k != "_meta"}
            if kind == "ref/prompt":
                route = catalog.prompts.get(target)
                if route is None or not policy.allows("prompts", route.backend, route.own):
                    raise _Refused(InvalidParams(f"Unknown prompt: {target}"))
                params["ref"] = {**ref, "name": route.own}
                backend = route.backend
            else:
                try:
                    normal = normalize_uri(target)
                except UnsafeUri:
                    raise _Refused(InvalidParams(f"Unknown resource template: {target}")) from None
                found = catalog.resource_backend(normal)
                if found is None or not policy.allows("resources", found[0], normal):
                    raise _Refused(InvalidParams(f"Unknown resource template: {target}"))
                params["ref"] = {**ref, "uri": normal}
                backend = found[0]
            return backend, await self._guarded(
                info, ctx, client, backend, "completion/complete", params
            )

        return await self._audited(info, target, info.params.get("argument"), run)

    # -- subscriptions -------------------------------------------------------------------------

    async def _subscribe(self, info: RequestView, ctx: Context) -> JSONObject:
        uri = info.params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParams("resources/subscribe needs params.uri (a string)")

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            backend, normal = await self._resource_backend(info, uri, policy)
            # held for the gateway's life: a legacy session's subscription has no end we see
            # (bounded per backend all the same)
            self._watches.hold([(backend, normal)])
            info.params["uri"] = normal  # the session subscribes to the form updates carry
            return backend, await self._own_handlers["resources/subscribe"](info, ctx)

        return await self._audited(info, uri, None, run)

    async def _listen(self, info: RequestView, ctx: Context) -> JSONObject:
        """A client's listen: its resource filter narrowed to what its policy allows and the
        backends can follow, held for as long as the stream is open; rate limited and audited
        like a call (the record is written when the stream ends)."""
        requested = info.params.get("notifications")
        uris = requested.get("resourceSubscriptions") if isinstance(requested, dict) else None
        if isinstance(uris, list) and len(uris) > MAX_LISTEN_URIS:
            raise InvalidParams(
                f"a listen may name at most {MAX_LISTEN_URIS} resource URIs, not {len(uris)}"
            )

        async def run(client: str, policy: Policy) -> tuple[str | None, JSONObject]:
            held: list[tuple[str, str]] = []
            try:
                if isinstance(uris, list) and isinstance(requested, dict):
                    wanted = []
                    for uri in uris:
                        if not isinstance(uri, str):
                            raise InvalidParams("notifications.resourceSubscriptions must be URIs")
                        try:
                            wanted.append(await self._resource_backend(info, uri, policy))
                        except _Refused:
                            continue  # not agreed to: left out of the acknowledged filter
                    held = self._watches.hold(dict.fromkeys(wanted))
                    requested["resourceSubscriptions"] = [uri for _, uri in held]
                return None, await self._own_handlers["subscriptions/listen"](info, ctx)
            finally:
                self._watches.release(held)

        return await self._audited(info, None, requested, run)

    def _follow_task(self, task_id: str, route: TaskRoute) -> asyncio.Future[None]:
        """Follow a 2026 backend's task on its own listen stream (once, whoever listens) and
        publish its ``notifications/tasks`` to the gateway's listeners of that task.

        Returns a future done once the backend has acknowledged that listen (or the relay has
        ended): the client's own listen is acknowledged only then."""
        key = (route.backend, f"task:{task_id}")
        follow = self._task_follows.get(key)
        if follow is not None and not follow[0].done():
            return follow[1]
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        relay = self._spawn(self._relay_task(route.backend, task_id, ready))
        self._task_follows[key] = (relay, ready)
        return ready

    async def _relay_task(self, backend: str, task_id: str, ready: asyncio.Future[None]) -> None:
        try:
            client = self.host.client(backend)
            async with client.listen(task_ids=[task_id]) as subscription:
                first = True
                async for note in subscription:
                    if first:
                        first = False  # the acknowledgement: the backend's listen is in place
                        if not ready.done():
                            ready.set_result(None)
                        continue
                    if getattr(note, "method", None) != "notifications/tasks":
                        continue
                    params = getattr(note, "params", None)
                    if not isinstance(params, dict):
                        continue
                    task = {k: v for k, v in params.items() if k != "_meta"}
                    await self.server.notify_task_status(task_id, task)
                    if task.get("status") in ("completed", "failed", "cancelled"):
                        return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the backend went away: the client still polls tasks/get
            logger.info("backend %r: following task %s ended: %s", backend, task_id, exc)
        finally:
            if not ready.done():
                ready.set_result(None)  # nothing more to wait for

    async def _follow(self, backend: str, uris: list[str]) -> None:
        """Follow ``uris`` on ``backend`` with one stream (until cancelled: :mod:`._watches`)."""
        supervisor = self.host.servers[backend]
        while True:
            seen = supervisor.connections
            try:
                client = supervisor.client
                async with client.listen(resource_uris=uris) as subscription:
                    first = True
                    async for note in subscription:
                        if first:
                            first = False  # the acknowledgement
                            continue
                        if isinstance(note, ResourceUpdatedNotification):
                            await self.server.notify_resource_updated(note.params.uri)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.info("backend %r: following %d resources ended: %s", backend, len(uris), exc)
            # the backend went away: follow again once it is back (a new connection)
            await supervisor.wait_for(
                lambda s, seen=seen: s.state == "ready" and s.connections > seen  # type: ignore[misc]
            )
            if supervisor.state in ("failed", "stopped"):
                return


def _backend_call(
    send: Callable[[Asker, LogRelay], Awaitable[JSONObject]],
) -> Callable[[ParkedCall[JSONObject]], Awaitable[JSONObject]]:
    """A backend call for a parked call: its questions are asked through the parked call (the
    driver carries them to the 2026 client), its logs go to the round in progress."""

    async def body(call: ParkedCall[JSONObject]) -> JSONObject:
        async def ask(question: str, wire: JSONObject) -> JSONObject:
            answer: JSONObject = await call.ask((question, wire))
            return answer

        async def log(note: Any) -> None:
            await relay_log(call.context, note)

        return await send(ask, log)

    return body


def _endpoint_url(host: str, port: int, path: str) -> str:
    """The URL clients use for an endpoint bound to ``host:port`` (all interfaces: loopback)."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"


def _no_cursor(info: RequestView) -> None:
    """The gateway lists everything in one page and issues no cursor: any cursor is one it did
    not issue, -32602 as a direct server says (never the whole list again)."""
    if info.params.get("cursor") is not None:
        raise InvalidParams("Invalid cursor: not a cursor this server issued")


def _listing(catalog: Catalog, kind: str) -> list[JSONObject]:
    """What a list of ``kind`` shows (resources: with their templates), to compare catalogues."""
    if kind == "tools":
        return [route.definition for route in catalog.tools.values()]
    if kind == "prompts":
        return [route.definition for route in catalog.prompts.values()]
    resources = [route.definition for route in catalog.resources.values()]
    return resources + [route.definition for route, _ in catalog.templates]


class _Refused(Exception):
    """A call the client's policy does not allow (answered as if the target did not exist)."""

    def __init__(self, error: JSONRPCError) -> None:
        super().__init__(error.message)
        self.error = error


class _Wrapped:
    """An auth middleware that also exposes the MCP app's lifespan and shutdown hooks."""

    def __init__(self, outer: Any, inner: Any) -> None:
        self._outer = outer
        self._inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._outer(scope, receive, send)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

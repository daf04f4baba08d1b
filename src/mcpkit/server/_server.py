"""The :class:`Server`: the facade users declare things on and serve.

It owns nothing of its own beyond its identity and settings: each job is a small object it
assembles — one registry per kind (:mod:`~mcpkit.server._registries`), the method handlers that
read them (:mod:`~mcpkit.server._handlers`, :mod:`~mcpkit.server._session_handlers`), the
announcements of changes (:mod:`~mcpkit.server._announce`), the lifespan
(:mod:`~mcpkit.server._lifespan`) and the dispatcher (:mod:`~mcpkit.server._dispatch`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, KeysView, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, overload

from mcpkit.protocol._errors import UsageError
from mcpkit.protocol._lifecycle import ServerLifecycle
from mcpkit.server._announce import Announcer, LegacyFanout
from mcpkit.server._context import ContextServices
from mcpkit.server._dispatch import (
    LEGACY_METHODS,
    MODERN_METHODS,
    Dispatcher,
    Handler,
)
from mcpkit.server._handlers import (
    CompletionHandlers,
    PromptHandlers,
    ResourceHandlers,
    ToolHandlers,
)
from mcpkit.server._lifespan import Lifespan
from mcpkit.server._listen import ListenHub
from mcpkit.server._prompts import RegisteredPrompt
from mcpkit.server._registries import (
    CompletionRegistry,
    PromptRegistry,
    ResourceRegistry,
    ToolRegistry,
)
from mcpkit.server._request import LegacyConnection, Outbound
from mcpkit.server._resources import RegisteredResource, file_resource_reader
from mcpkit.server._session_handlers import SessionHandlers
from mcpkit.server._tools import RegisteredTool
from mcpkit.types._jsonrpc import JSONObject, Request
from mcpkit.types._versions import ALL_VERSIONS, LEGACY_VERSIONS

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Unpack

    from mcpkit.protocol._meta import RequestMeta
    from mcpkit.server._http_options import HttpAppOptions, HttpRunOptions
    from mcpkit.server._request_state import RequestStateSealer
    from mcpkit.server._stdio import InMemoryClientStream
    from mcpkit.server._tools import TaskStart, TaskSupport
    from mcpkit.server.apps import UiOptions, UiResource
    from mcpkit.server.middleware import Handler as PublicHandler
    from mcpkit.server.middleware import Middleware, RequestHook
    from mcpkit.server.tasks import TaskManager, TaskStore
    from mcpkit.transports.http._server.asgi import McpHttpApp
    from mcpkit.types._apps import AppVisibility

logger = logging.getLogger("mcpkit.server")

F = TypeVar("F", bound=Callable[..., Any])
H = TypeVar("H", bound="PublicHandler")  # (a name: the middleware module is not imported)

Transport = Literal["stdio", "http"]
"""What :meth:`Server.run` serves on."""
TRANSPORTS: Final = ("stdio", "http")

DEFAULT_CACHE_POLICY: Final[dict[str, tuple[int, str]]] = {
    "server/discover": (60_000, "public"),
    "tools/list": (60_000, "public"),
    "prompts/list": (60_000, "public"),
    "resources/list": (60_000, "public"),
    "resources/templates/list": (60_000, "public"),
    "resources/read": (0, "private"),
}
"""``ttlMs`` and ``cacheScope`` per cacheable 2026 method; list_changed invalidates early."""


class Server:
    """An MCP server: declare tools, resources and prompts; serve them over any transport.

    One server object serves both eras at once: legacy sessions (``initialize``) and stateless
    2026-07-28 requests, on the same stdio process or HTTP endpoint.
    """

    request_hook: RequestHook | None = None
    """Wraps every request (telemetry; see :data:`~mcpkit.server.middleware.RequestHook`).
    Set on the class, it applies to every server without one of its own."""

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        icons: Sequence[JSONObject] | None = None,
        website_url: str | None = None,
        page_size: int | None = None,
        lifespan: Callable[[Server], contextlib.AbstractAsyncContextManager[Any]] | None = None,
        state_keys: Sequence[bytes] | None = None,
        cache_policy: dict[str, tuple[int, str]] | None = None,
        extensions: dict[str, JSONObject] | None = None,
        supported_versions: Sequence[str] = ALL_VERSIONS,
        ref_free_schemas: bool = False,
        tasks: bool | TaskStore | TaskManager | None = False,
        mask_errors: bool = False,
    ) -> None:
        self.name = name
        self.mask_errors = mask_errors
        """An exception a tool did not mean to raise (not a ``ToolError``) reaches the client
        as a generic ``isError`` text with a reference written to the log, not its message."""
        self.version = version
        self.instructions = instructions
        info: JSONObject = {"name": name, "version": version}
        for key, value in (
            ("title", title),
            ("description", description),
            ("icons", list(icons) if icons else None),
            ("websiteUrl", website_url),
        ):
            if value is not None:
                info[key] = value
        self.server_info = info
        self.page_size = page_size
        self.supported_versions = tuple(
            v for v in reversed(ALL_VERSIONS) if v in supported_versions
        )
        self.cache_policy = dict(DEFAULT_CACHE_POLICY)
        if cache_policy:
            self.cache_policy.update(cache_policy)
        self.extensions = dict(extensions or {})
        self.ref_free_schemas = ref_free_schemas
        self.middleware: list[Middleware] = []
        self._state_sealer: RequestStateSealer | None = None
        if state_keys:  # given keys are checked now; the default ring is made on first use
            self.state_sealer = _make_sealer(list(state_keys))
        self._lifespan = Lifespan(lifespan)
        self._announcer = Announcer()
        self._tools = ToolRegistry(self._announcer.changed)
        self._resources = ResourceRegistry(self._announcer.changed)
        self._prompts = PromptRegistry(self._announcer.changed)
        self._completions = CompletionRegistry()
        self.tasks: TaskManager | None = _make_task_manager(tasks)
        """The Tasks extension (``mcpkit.server.tasks``), when enabled with ``tasks=``."""
        self._context_services = ContextServices(
            resources=self._resources, lifespan=self._lifespan, tasks=self.tasks, server=self
        )
        """What each request's :class:`Context` reaches: narrow parts, not this server."""
        self._session_handlers = SessionHandlers(self, self._announcer.listen_hub, self.tasks)
        modern, legacy = MODERN_METHODS, LEGACY_METHODS
        if self.tasks is not None:
            from mcpkit.server.tasks import CORE_TASK_METHODS, TASK_METHODS, TaskHost

            listen_hub = self._announcer.listen_hub
            self.tasks.bind(TaskHost(self._context_services, listen_hub.publish_task))

            modern = modern | TASK_METHODS
            legacy = legacy | CORE_TASK_METHODS
        self._method_handlers = self._default_handlers()
        """Method → handler, shared with the dispatcher: ``handle``/``wrap`` change it."""
        self._dispatcher = Dispatcher(
            self,
            self._method_handlers,
            services=self._context_services,
            modern_methods=modern,
            legacy_methods=legacy,
        )

    @property
    def lifespan_state(self) -> Any:
        """What the lifespan yielded, while the server runs (``None`` otherwise)."""
        return self._lifespan.state

    @property
    def listen_hub(self) -> ListenHub:
        """The open 2026-07-28 ``subscriptions/listen`` streams."""
        return self._announcer.listen_hub

    @property
    def legacy_fanout(self) -> LegacyFanout | None:
        """Delivers list changes and resource updates to legacy sessions instead of this
        process's own connections (set by a shared state backend: with many workers a session
        is not tied to one process, and each must be told once)."""
        return self._announcer.legacy_fanout

    @legacy_fanout.setter
    def legacy_fanout(self, fanout: LegacyFanout | None) -> None:
        self._announcer.legacy_fanout = fanout

    @property
    def state_sealer(self) -> RequestStateSealer:
        """Seals 2026 ``requestState`` tokens; made on first use (most servers never need it,
        and its key generation and hashing imports would cost every server's startup)."""
        if self._state_sealer is None:
            self._state_sealer = _make_sealer(None)
        return self._state_sealer

    @state_sealer.setter
    def state_sealer(self, sealer: RequestStateSealer) -> None:
        self._state_sealer = sealer

    # -- declaring things ----------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: JSONObject | None = None,
        read_only: bool | None = None,
        destructive: bool | None = None,
        idempotent: bool | None = None,
        open_world: bool | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        required_scopes: Sequence[str] = (),
        input_schema: JSONObject | None = None,
        task_support: TaskSupport = "forbidden",
        task_start: TaskStart = "immediate",
        ui: str | UiResource | None = None,
        visibility: Sequence[AppVisibility] | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: JSONObject | None = None,
        read_only: bool | None = None,
        destructive: bool | None = None,
        idempotent: bool | None = None,
        open_world: bool | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        required_scopes: Sequence[str] = (),
        input_schema: JSONObject | None = None,
        task_support: TaskSupport = "forbidden",
        task_start: TaskStart = "immediate",
        ui: str | UiResource | None = None,
        visibility: Sequence[AppVisibility] | None = None,
    ) -> F | Callable[[F], F]:
        """Register a function as a tool: ``@server.tool`` or ``@server.tool(name=...)``.

        ``input_schema`` replaces the schema derived from the signature (contract-first tools);
        the arguments are then validated with JSON Schema and passed as keyword arguments.
        ``task_support`` / ``task_start``: running calls as tasks, see :mod:`mcpkit.server.tasks`.
        ``ui`` / ``visibility``: MCP Apps, the view the result renders in and who may see the
        tool (``["app"]``: only its view calls it), see :mod:`mcpkit.server.apps`.
        """
        if ui is not None or visibility is not None:
            from mcpkit.server.apps import tool_ui_meta

            meta = {**(meta or {}), "ui": tool_ui_meta(ui, visibility)}
        # (a copy, as the user's dict may change later; the loop only when a hint is given:
        # registering 1,000 tools must stay cheap)
        hints = dict(annotations) if annotations else None
        if (
            read_only is not None
            or destructive is not None
            or idempotent is not None
            or open_world is not None
        ):
            hints = hints or {}
            for key, value in (
                ("readOnlyHint", read_only),
                ("destructiveHint", destructive),
                ("idempotentHint", idempotent),
                ("openWorldHint", open_world),
            ):
                if value is not None:
                    hints[key] = value

        def register(func: F) -> F:
            self.add_tool(
                RegisteredTool(
                    func,
                    name=name,
                    title=title,
                    description=description,
                    annotations=hints or None,
                    icons=icons,
                    meta=meta,
                    timeout=timeout,
                    structured_output=structured_output,
                    ref_free=self.ref_free_schemas,
                    required_scopes=required_scopes,
                    input_schema=input_schema,
                    task_support=task_support,
                    task_start=task_start,
                )
            )
            return func

        return register(fn) if fn is not None else register

    def add_tool(self, tool: RegisteredTool) -> None:
        if tool.name in self._tools:
            raise UsageError(f"a tool named {tool.name!r} is already registered")
        if tool.task_support == "required" and self.tasks is None:
            raise UsageError(
                f"tool {tool.name!r} requires tasks, which this server does not run: "
                "enable them with Server(..., tasks=True)"
            )
        self._tools.add(tool)

    def remove_tool(self, name: str) -> None:
        self._tools.remove(name)

    @property
    def tool_names(self) -> KeysView[str]:
        """The names of the registered tools, as a live view (what a generator of tools, such as
        the OpenAPI provider, must not reuse)."""
        return self._tools.keys()

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: JSONObject | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
    ) -> Callable[[F], F]:
        """Register a reader for a URI or an RFC 6570 template: ``@server.resource("x://{id}")``."""

        def register(func: F) -> F:
            self.add_resource(
                RegisteredResource(
                    uri,
                    func,
                    name=name,
                    title=title,
                    description=description,
                    mime_type=mime_type,
                    size=size,
                    annotations=annotations,
                    icons=icons,
                    meta=meta,
                )
            )
            return func

        return register

    def add_resource(self, resource: RegisteredResource) -> None:
        self._resources.add(resource)

    @overload
    def ui_resource(
        self, uri: str, source: str | Path, /, **options: Unpack[UiOptions]
    ) -> UiResource: ...

    @overload
    def ui_resource(
        self, uri: str, source: None = None, /, **options: Unpack[UiOptions]
    ) -> Callable[[F], F]: ...

    def ui_resource(
        self, uri: str, source: str | Path | None = None, /, **options: Unpack[UiOptions]
    ) -> UiResource | Callable[[F], F]:
        """Declare an MCP Apps view: ``server.ui_resource("ui://x", html)`` (a string, or a
        ``Path`` read on each request), or ``@server.ui_resource("ui://x")`` on a function
        returning the HTML. Options: ``csp=Csp(...)``, ``permissions``, ``prefers_border``,
        ``domain``, ``bridge=True`` (inline mcpkit's app bridge); see :mod:`mcpkit.server.apps`.
        """
        from mcpkit.server.apps import UiResource
        from mcpkit.types._apps import APPS_EXTENSION_ID

        self.extensions.setdefault(APPS_EXTENSION_ID, {})  # said in 2026-07-28 capabilities
        if source is not None:
            view = UiResource(uri, source, **options)
            self.add_resource(view)
            return view

        def register(func: F) -> F:
            self.add_resource(UiResource(uri, func, **options))
            return func

        return register

    def remove_resource(self, uri: str) -> None:
        self._resources.remove(uri)

    def add_directory(
        self, uri_prefix: str, root: str, *, name: str = "files", mime_type: str | None = None
    ) -> None:
        """Serve the files under ``root`` as ``{uri_prefix}{+path}`` (traversal-safe)."""
        reader = file_resource_reader(root)
        self.add_resource(
            RegisteredResource(uri_prefix + "{+path}", reader, name=name, mime_type=mime_type)
        )

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
    ) -> F | Callable[[F], F]:
        """Register a prompt template: ``@server.prompt`` or ``@server.prompt(name=...)``."""

        def register(func: F) -> F:
            self.add_prompt(
                RegisteredPrompt(
                    func, name=name, title=title, description=description, icons=icons, meta=meta
                )
            )
            return func

        return register(fn) if fn is not None else register

    def add_prompt(self, prompt: RegisteredPrompt) -> None:
        self._prompts.add(prompt)

    def remove_prompt(self, name: str) -> None:
        self._prompts.remove(name)

    def completion(
        self, *, argument: str, prompt: str | None = None, resource: str | None = None
    ) -> Callable[[F], F]:
        """Register completions for one argument of a prompt or a resource template.

        The function receives ``(value, arguments)`` — the partial value and the arguments
        already resolved — and returns a list of strings (best first).
        """
        if (prompt is None) == (resource is None):
            raise UsageError("give exactly one of prompt= or resource=")

        def register(func: F) -> F:
            self._completions.add(func, argument=argument, prompt=prompt, resource=resource)
            return func

        return register

    def add_middleware(self, middleware: Middleware) -> None:
        """Wrap every request: ``async def mw(info, call_next) -> result``."""
        self.middleware.append(middleware)

    # -- method handlers (the extension surface) -----------------------------------------------

    def handler(self, method: str) -> PublicHandler:
        """The handler answering ``method`` now (the server's own unless replaced or wrapped):
        what a replacement calls to delegate to the default. Unknown methods: ``UsageError``."""
        found = self._method_handlers.get(method)
        if found is None:
            raise UsageError(
                f"{method!r} is not a method this server serves "
                f"(known: {', '.join(sorted(self._method_handlers))})"
            )
        return found  # type: ignore[return-value]  # (RequestInfo is a RequestView)

    def handle(self, method: str) -> Callable[[H], H]:
        """Replace the handler of ``method``: ``@server.handle("tools/list")`` on
        ``async def h(request: RequestView, ctx: Context) -> result``.

        The era, version and capability checks, the middleware and the shaping of the result
        for the era still run around it, exactly as around the server's own handler; only what
        answers the method changes. Only methods the server serves can be replaced (a method
        the protocol does not have would never reach a handler): ``UsageError`` otherwise.
        The decorated function is returned unchanged.
        """
        self.handler(method)  # known, or UsageError

        def register(fn: H) -> H:
            self._method_handlers[method] = fn
            return fn

        return register

    def wrap(self, method: str, middleware: Middleware) -> None:
        """Wrap the current handler of ``method`` only: ``middleware(request, call_next)`` as
        for :meth:`add_middleware`, called for that method alone (inside the server-wide
        middleware). Wrapping again wraps the wrapped handler."""
        inner = self.handler(method)

        async def wrapped(request: Any, ctx: Any) -> JSONObject:
            return await middleware(request, lambda: inner(request, ctx))

        self._method_handlers[method] = wrapped

    # -- change notifications ------------------------------------------------------------------

    async def notify_list_changed(self, kind: str) -> None:
        """Tell clients that the list of ``tools``, ``resources`` or ``prompts`` changed."""
        await self._announcer.list_changed(kind)

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell subscribers (legacy subscribe, 2026 listen filters) that ``uri`` changed."""
        await self._announcer.resource_updated(uri)

    async def notify_task_status(self, task_id: str, task: JSONObject) -> None:
        """Tell the 2026 listeners of ``task_id`` its new state (``notifications/tasks``):
        what the server's own task manager publishes, for tasks held elsewhere (a gateway's
        backend). ``task`` is the task as ``tasks/get`` answers it."""
        await self._announcer.listen_hub.publish_task(task_id, task)

    # -- serving -------------------------------------------------------------------------------

    @property
    def open_sessions(self) -> int:
        """Legacy sessions with an id (Streamable HTTP ``Mcp-Session-Id``) not ended yet.

        Read on demand (by the session gauge of :mod:`mcpkit.contrib.otel`), never kept as a
        counter: sessions end in several places (DELETE, idle reaping, shutdown).
        """
        return self._announcer.open_sessions

    def legacy_versions(self) -> tuple[str, ...]:
        """The handshake-era revisions this server speaks (what ``initialize`` negotiates)."""
        return tuple(v for v in self.supported_versions if v in LEGACY_VERSIONS)

    def new_connection(
        self, session_id: str | None = None, *, lifecycle: ServerLifecycle
    ) -> LegacyConnection:
        """State for one legacy conversation (a stdio process, an HTTP session, a stateless
        HTTP POST), sharing the ``lifecycle`` of the
        :class:`~mcpkit.protocol._connection.ServerConnection` the transport runs it on."""
        conn = LegacyConnection(lifecycle, session_id)
        self._announcer.track(conn)
        return conn

    def handle_request(
        self,
        request: Request,
        outbound: Outbound,
        *,
        connection: LegacyConnection | None = None,
        auth: Any = None,
        meta: RequestMeta | None = None,
    ) -> Awaitable[JSONObject]:
        """Serve one request (await the result); raises
        :class:`~mcpkit.protocol._errors.JSONRPCError` to answer with an error. Transports call
        this; one that has already validated a 2026 request's ``_meta`` (the HTTP router does:
        its shape, and its version against :attr:`supported_versions`) passes it as ``meta``, so
        it is not parsed nor checked twice. (A plain function returning the
        dispatcher's coroutine: one coroutine less per request.)"""
        hook = self.request_hook
        if hook is None:
            return self._dispatcher.handle_request(
                request, outbound, connection=connection, auth=auth, meta=meta
            )
        dispatcher = self._dispatcher
        return hook(
            self,
            request,
            connection,
            lambda: dispatcher.handle_request(
                request, outbound, connection=connection, auth=auth, meta=meta
            ),
        )

    def handle_notification(
        self, method: str, params: JSONObject | None, connection: LegacyConnection | None
    ) -> None:
        """A client notification the transport's connection passed on. What the protocol makes
        of one (the handshake's ``notifications/initialized``, a cancel) its connection already
        did; no other notification asks anything of the server, so this is the hook a
        transport calls, not a decision."""

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Server]:
        """Run the lifespan once per process, however many transports use the server."""
        self._announcer.loop = asyncio.get_running_loop()
        async with self._lifespan.running(self, self._stopping):
            yield self

    async def _stopping(self) -> None:
        """The last transport is leaving: end listen streams and task bodies, then the
        lifespan closes."""
        await self._announcer.listen_hub.close_all()
        await self._announcer.aclose()
        if self.tasks is not None:
            await self.tasks.shutdown()

    @overload
    def run(self, transport: Literal["stdio"] = "stdio") -> None: ...

    @overload
    def run(self, transport: Literal["http"], **options: Unpack[HttpRunOptions]) -> None: ...

    def run(self, transport: Transport = "stdio", **options: Any) -> None:
        """Serve until the client goes away: ``stdio`` (default) or ``http``.

        ``http`` takes ``host``, ``port``, ``log_level``, ``uvicorn_options`` and the fields of
        ``HttpOptions`` (:class:`~mcpkit.server.HttpRunOptions`); stdio takes none. The
        overloads make a misspelt option, or an option with no transport (``run(port=8000)``),
        a type error; at run time too an option the transport has no use for is refused
        (``UsageError`` naming the ones it takes) before anything starts: ``run(port=8000)``
        serving stdio, silently, would hide the mistake.

        Without a logging configuration of the program's own, warnings and errors (a tool's
        traceback) go to stderr as Python prints them by default; ``MCPKIT_VERBOSE=1`` (set by
        ``mcpkit -v``) adds info, ``2`` debug.
        """
        if transport not in TRANSPORTS:
            raise UsageError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
        if transport == "stdio" and options:
            given = ", ".join(f"{key}={value!r}" for key, value in options.items())
            raise UsageError(
                f"server.run() serves stdio, which takes no options, but got {given}; "
                f'for Streamable HTTP write server.run("http", {given})'
            )
        _log_as_asked()
        if transport == "stdio":
            from mcpkit.server._stdio import run_stdio

            asyncio.run(run_stdio(self))
        elif transport == "http":
            from mcpkit.server._http_entry import run_http

            run_http(self, **options)
        else:
            raise UsageError(f"unknown transport {transport!r}; use 'stdio' or 'http'")

    def http_app(self, **options: Unpack[HttpAppOptions]) -> McpHttpApp:
        """This server as an ASGI app (``mcpkit.transports.http.McpHttpApp``; needs the ``http``
        extra). ``options`` are the fields of ``HttpOptions`` (:class:`~mcpkit.server.
        HttpAppOptions`); mount it with its lifespan."""
        from mcpkit.server._http_entry import asgi_app

        return asgi_app(self, **options)

    def card_metadata(self) -> JSONObject:
        """What this server's Server Card says (experimental; the HTTP app's ``server_card``):
        its ``serverInfo`` and what ``server/discover`` answers."""
        return {
            "serverInfo": dict(self.server_info),
            "supportedVersions": list(self.supported_versions),
            "capabilities": self.capabilities(modern=True),
        }

    def tool_input_schema(self, name: str) -> JSONObject | None:
        """A registered tool's ``inputSchema`` (the HTTP transport checks ``Mcp-Param-*``)."""
        return self._tools.input_schema(name)

    def connect_in_memory(self) -> InMemoryClientStream:
        """A client-side :class:`MessageStream` connected to this server in-process.

        The server side runs in a background task until the stream is closed.
        """
        from mcpkit.server._stdio import connect_in_memory

        return connect_in_memory(self)

    # -- method handlers -----------------------------------------------------------------------

    def _default_handlers(self) -> dict[str, Handler]:
        """The server's own handler of each method (``handle``/``wrap`` change the table)."""
        handlers: dict[str, Handler] = {
            **self._session_handlers.table(),
            **ToolHandlers(self._tools, self, self.tasks).table(),
            **ResourceHandlers(self._resources, self).table(),
            **PromptHandlers(self._prompts, self).table(),
            **CompletionHandlers(self._completions, self._prompts).table(),
        }
        if self.tasks is not None:
            handlers["tasks/get"] = self.tasks.handle_get
            handlers["tasks/update"] = self.tasks.handle_update
            handlers["tasks/cancel"] = self.tasks.handle_cancel
            handlers["tasks/result"] = self.tasks.handle_result
            handlers["tasks/list"] = self.tasks.handle_list
        return handlers

    def capabilities(self, *, modern: bool, version: str | None = None) -> JSONObject:
        """What this server declares: ``server/discover`` (``modern``) or ``initialize`` for
        the negotiated ``version`` (2025-11-25 adds the core ``tasks`` capability)."""
        caps: JSONObject = {
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": True},
            "completions": {},
            "logging": {},
        }
        if not modern and self.tasks is not None:
            from mcpkit.server.tasks import CORE_TASKS_VERSION

            if version == CORE_TASKS_VERSION:
                tasks: JSONObject = {"cancel": {}, "requests": {"tools": {"call": {}}}}
                if self.tasks.store.listable:
                    tasks["list"] = {}
                caps["tasks"] = tasks
        extensions = dict(self.extensions)
        if modern and self.tasks is not None:
            from mcpkit.server.tasks import TASKS_EXTENSION_ID

            extensions.setdefault(TASKS_EXTENSION_ID, {})
        if extensions:
            caps["extensions"] = extensions
        return caps


def _make_task_manager(tasks: bool | TaskStore | TaskManager | None) -> TaskManager | None:
    if tasks is False or tasks is None:
        return None  # the tasks module is not even imported
    from mcpkit.server.tasks import TaskManager, TaskStore

    if isinstance(tasks, TaskManager):
        return tasks
    if isinstance(tasks, TaskStore):
        return TaskManager(tasks)
    if tasks is True:
        return TaskManager()
    raise UsageError(f"tasks= takes True, a TaskStore or a TaskManager, not {tasks!r}")


def _make_sealer(keys: list[bytes] | None) -> RequestStateSealer:
    from mcpkit.server._request_state import RequestStateSealer

    return RequestStateSealer(keys)


def _log_as_asked() -> None:
    """Honour ``MCPKIT_VERBOSE`` when the program configured no logging of its own."""
    import os

    raw = os.environ.get("MCPKIT_VERBOSE", "")
    root = logging.getLogger()
    if not raw.isdigit() or int(raw) <= 0 or root.handlers:
        return
    logging.basicConfig(
        level=logging.INFO if int(raw) == 1 else logging.DEBUG,
        format="%(name)s: %(message)s",
    )

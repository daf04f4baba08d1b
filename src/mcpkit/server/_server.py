"""The :class:`Server`: what users declare, and the method handlers of both eras."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, overload

from mcpkit.protocol.errors import InvalidParams, MethodNotFound, UsageError
from mcpkit.protocol.lifecycle import ServerLifecycle, ServerState
from mcpkit.protocol.meta import LOG_LEVELS
from mcpkit.server._dispatch import (
    LEGACY_METHODS,
    MODERN_METHODS,
    Dispatcher,
    Handler,
    resource_not_found,
)
from mcpkit.server._listen import ListenHub
from mcpkit.server._request import LegacyConnection, Outbound, RequestInfo
from mcpkit.server.context import Context
from mcpkit.server.middleware import Middleware, RequestHook
from mcpkit.server.pagination import paginate
from mcpkit.server.prompts import RegisteredPrompt
from mcpkit.server.resources import RegisteredResource, file_resource_reader
from mcpkit.server.tools import RegisteredTool
from mcpkit.types.jsonrpc import JSONObject, Notification, Request, Response
from mcpkit.types.versions import ALL_VERSIONS, LEGACY_VERSIONS, at_least

if TYPE_CHECKING:
    from mcpkit.server._stdio import InMemoryClientStream
    from mcpkit.server.request_state import RequestStateSealer
    from mcpkit.server.tasks import TaskManager, TaskStore
    from mcpkit.server.tools import TaskStart, TaskSupport
    from mcpkit.transports.http.asgi import McpHttpApp

logger = logging.getLogger("mcpkit.server")

F = TypeVar("F", bound=Callable[..., Any])

LegacyFanout = Callable[[str, JSONObject | None, str | None], Awaitable[None]]
"""``(method, params, uri)``: deliver a list change (``uri`` ``None``) or a resource update to
the legacy sessions that should see it (see :attr:`Server.legacy_fanout`)."""

DEFAULT_CACHE_POLICY: Final[dict[str, tuple[int, str]]] = {
    "server/discover": (60_000, "public"),
    "tools/list": (60_000, "public"),
    "prompts/list": (60_000, "public"),
    "resources/list": (60_000, "public"),
    "resources/templates/list": (60_000, "public"),
    "resources/read": (0, "private"),
}
"""``ttlMs`` and ``cacheScope`` per cacheable 2026 method; list_changed invalidates early."""

MAX_COMPLETION_VALUES: Final = 100


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
    ) -> None:
        self.name = name
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
        self._lifespan = lifespan
        self._lifespan_users = 0
        self._lifespan_stack: contextlib.AsyncExitStack | None = None
        self._lifespan_lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.lifespan_state: Any = None
        self._tools: dict[str, RegisteredTool] = {}
        self._resources: dict[str, RegisteredResource] = {}
        self._prompts: dict[str, RegisteredPrompt] = {}
        self._completions: dict[tuple[str, str, str], Callable[..., Any]] = {}
        self._list_cache: dict[str, list[JSONObject]] = {}
        self._list_version = 0
        self._connections: weakref.WeakSet[LegacyConnection] = weakref.WeakSet()
        self.listen_hub = ListenHub()
        self.legacy_fanout: LegacyFanout | None = None
        """Delivers list changes and resource updates to legacy sessions instead of this
        process's own connections (set by a shared state backend: with many workers a session
        is not tied to one process, and each must be told once)."""
        self.tasks: TaskManager | None = _make_task_manager(tasks)
        """The Tasks extension (``mcpkit.server.tasks``), when enabled with ``tasks=``."""
        modern, legacy = MODERN_METHODS, LEGACY_METHODS
        if self.tasks is not None:
            self.tasks.bind(self)
            from mcpkit.server.tasks import CORE_TASK_METHODS, TASK_METHODS

            modern = modern | TASK_METHODS
            legacy = legacy | CORE_TASK_METHODS
        self._dispatcher = Dispatcher(
            self, self._handlers(), modern_methods=modern, legacy_methods=legacy
        )

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
    ) -> F | Callable[[F], F]:
        """Register a function as a tool: ``@server.tool`` or ``@server.tool(name=...)``.

        ``input_schema`` replaces the schema derived from the signature (contract-first tools);
        the arguments are then validated with JSON Schema and passed as keyword arguments.
        ``task_support`` / ``task_start``: running calls as tasks, see :mod:`mcpkit.server.tasks`.
        """
        hints = dict(annotations or {})
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
        self._tools[tool.name] = tool
        self._changed("tools")

    def remove_tool(self, name: str) -> None:
        if self._tools.pop(name, None) is None:
            raise UsageError(f"no tool named {name!r}")
        self._changed("tools")

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
        if resource.uri in self._resources:
            raise UsageError(f"a resource {resource.uri!r} is already registered")
        self._resources[resource.uri] = resource
        self._changed("resources")

    def remove_resource(self, uri: str) -> None:
        if self._resources.pop(uri, None) is None:
            raise UsageError(f"no resource {uri!r}")
        self._changed("resources")

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
        if prompt.name in self._prompts:
            raise UsageError(f"a prompt named {prompt.name!r} is already registered")
        self._prompts[prompt.name] = prompt
        self._changed("prompts")

    def remove_prompt(self, name: str) -> None:
        if self._prompts.pop(name, None) is None:
            raise UsageError(f"no prompt named {name!r}")
        self._changed("prompts")

    def completion(
        self, *, argument: str, prompt: str | None = None, resource: str | None = None
    ) -> Callable[[F], F]:
        """Register completions for one argument of a prompt or a resource template.

        The function receives ``(value, arguments)`` — the partial value and the arguments
        already resolved — and returns a list of strings (best first).
        """
        if (prompt is None) == (resource is None):
            raise UsageError("give exactly one of prompt= or resource=")
        key = ("ref/prompt", prompt, argument) if prompt else ("ref/resource", resource, argument)

        def register(func: F) -> F:
            self._completions[key] = func  # type: ignore[index]
            return func

        return register

    def add_middleware(self, middleware: Middleware) -> None:
        """Wrap every request: ``async def mw(info, call_next) -> result``."""
        self.middleware.append(middleware)

    # -- change notifications ------------------------------------------------------------------

    def _changed(self, kind: str) -> None:
        self._list_cache.clear()
        self._list_version += 1  # outstanding cursors of the old lists are now refused
        try:
            task = asyncio.get_running_loop().create_task(self.notify_list_changed(kind))
        except RuntimeError:  # no loop here: a sync tool in a worker thread, or set-up code
            loop = self._loop
            if loop is not None and loop.is_running():
                asyncio.run_coroutine_threadsafe(self.notify_list_changed(kind), loop)
        else:
            self._background.add(task)  # keep a reference until it is done
            task.add_done_callback(self._background.discard)

    async def notify_list_changed(self, kind: str) -> None:
        """Tell clients that the list of ``tools``, ``resources`` or ``prompts`` changed."""
        method = f"notifications/{kind}/list_changed"
        if self.legacy_fanout is not None:
            await self.legacy_fanout(method, None, None)
            await self.listen_hub.publish(f"{kind}ListChanged", method, None)
            return
        for conn in list(self._connections):
            if conn.initialized and conn.notify is not None:
                with contextlib.suppress(Exception):
                    await conn.notify.send_notification(method, None)
        await self.listen_hub.publish(f"{kind}ListChanged", method, None)

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell subscribers (legacy subscribe, 2026 listen filters) that ``uri`` changed."""
        if self.legacy_fanout is not None:
            await self.legacy_fanout("notifications/resources/updated", {"uri": uri}, uri)
            await self.listen_hub.publish_resource(uri)
            return
        for conn in list(self._connections):
            if uri in conn.subscriptions and conn.notify is not None:
                with contextlib.suppress(Exception):
                    await conn.notify.send_notification(
                        "notifications/resources/updated", {"uri": uri}
                    )
        await self.listen_hub.publish_resource(uri)

    # -- serving -------------------------------------------------------------------------------

    @property
    def open_sessions(self) -> int:
        """Legacy sessions with an id (Streamable HTTP ``Mcp-Session-Id``) not ended yet.

        Read on demand (by the session gauge of :mod:`mcpkit.contrib.otel`), never kept as a
        counter: sessions end in several places (DELETE, idle reaping, shutdown).
        """
        return sum(
            1
            for conn in list(self._connections)
            if conn.session_id is not None and conn.lifecycle.state is not ServerState.CLOSED
        )

    def legacy_versions(self) -> tuple[str, ...]:
        """The handshake-era revisions this server speaks (what ``initialize`` negotiates)."""
        return tuple(v for v in self.supported_versions if v in LEGACY_VERSIONS)

    def new_connection(
        self, session_id: str | None = None, *, lifecycle: ServerLifecycle | None = None
    ) -> LegacyConnection:
        """State for one legacy conversation (a stdio process or an HTTP session); ``lifecycle``
        when a :class:`~mcpkit.protocol.connection.ServerConnection` already runs it."""
        conn = LegacyConnection(session_id, self.legacy_versions(), lifecycle=lifecycle)
        self._connections.add(conn)
        return conn

    async def handle_request(
        self,
        request: Request,
        outbound: Outbound,
        *,
        connection: LegacyConnection | None = None,
        auth: Any = None,
    ) -> JSONObject:
        """Serve one request; raises :class:`~mcpkit.protocol.errors.JSONRPCError` to answer
        with an error. Transports call this."""
        hook = self.request_hook
        if hook is None:
            return await self._dispatcher.handle_request(
                request, outbound, connection=connection, auth=auth
            )
        dispatcher = self._dispatcher
        return await hook(
            self,
            request,
            connection,
            lambda: dispatcher.handle_request(request, outbound, connection=connection, auth=auth),
        )

    def handle_notification(
        self, method: str, params: JSONObject | None, connection: LegacyConnection | None
    ) -> None:
        if connection is not None and not connection.engine_admits:
            connection.lifecycle.receive(Notification(method, params))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Server]:
        """Run the lifespan once per process, however many transports use the server."""
        self._loop = asyncio.get_running_loop()
        async with self._lifespan_lock:
            self._lifespan_users += 1
            if self._lifespan_users == 1 and self._lifespan is not None:
                stack = contextlib.AsyncExitStack()
                self.lifespan_state = await stack.enter_async_context(self._lifespan(self))
                self._lifespan_stack = stack
        try:
            yield self
        finally:
            async with self._lifespan_lock:
                self._lifespan_users -= 1
                if self._lifespan_users == 0:
                    await self.listen_hub.close_all()
                    if self.tasks is not None:
                        await self.tasks.shutdown()
                    if self._lifespan_stack is not None:
                        stack, self._lifespan_stack = self._lifespan_stack, None
                        await stack.aclose()
                        self.lifespan_state = None

    def run(self, transport: str = "stdio", **kwargs: Any) -> None:
        """Serve until the client goes away: ``stdio`` (default) or ``http``.

        Without a logging configuration of the program's own, warnings and errors (a tool's
        traceback) go to stderr as Python prints them by default; ``MCPKIT_VERBOSE=1`` (set by
        ``mcpkit -v``) adds info, ``2`` debug.
        """
        _log_as_asked()
        if transport == "stdio":
            from mcpkit.server._stdio import run_stdio

            asyncio.run(run_stdio(self))
        elif transport == "http":
            from mcpkit.server._http_entry import run_http

            run_http(self, **kwargs)
        else:
            raise UsageError(f"unknown transport {transport!r}; use 'stdio' or 'http'")

    def http_app(self, **options: Any) -> McpHttpApp:
        """This server as an ASGI app (``mcpkit.transports.http.McpHttpApp``; needs the ``http``
        extra). ``options`` are the fields of ``HttpOptions``; mount it with its lifespan."""
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
        tool = self._tools.get(name)
        if tool is None:
            return None
        schema = tool.definition.get("inputSchema")
        return schema if isinstance(schema, dict) else None

    def connect_in_memory(self) -> InMemoryClientStream:
        """A client-side :class:`MessageStream` connected to this server in-process.

        The server side runs in a background task until the stream is closed.
        """
        from mcpkit.server._stdio import connect_in_memory

        return connect_in_memory(self)

    # -- method handlers -----------------------------------------------------------------------

    def _handlers(self) -> dict[str, Handler]:
        handlers: dict[str, Handler] = {
            "initialize": self._initialize,
            "ping": self._ping,
            "server/discover": self._discover,
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
            "resources/list": self._list_resources,
            "resources/templates/list": self._list_templates,
            "resources/read": self._read_resource,
            "resources/subscribe": self._subscribe,
            "resources/unsubscribe": self._unsubscribe,
            "prompts/list": self._list_prompts,
            "prompts/get": self._get_prompt,
            "completion/complete": self._complete,
            "logging/setLevel": self._set_level,
            "subscriptions/listen": self._listen,
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

    async def _initialize(self, info: RequestInfo, ctx: Context) -> JSONObject:
        conn = info.connection
        assert conn is not None
        version = conn.protocol_version  # negotiated by the lifecycle when it saw the request
        assert version is not None
        info.outbound.protocol_version = version
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": self.capabilities(modern=False, version=version),
            "serverInfo": self._server_info_for(version),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        conn.lifecycle.send(Response(info.request_id, result))
        return result

    def _server_info_for(self, version: str) -> JSONObject:
        if at_least(version, "2025-06-18"):
            return self.server_info
        return {"name": self.server_info["name"], "version": self.server_info["version"]}

    async def _ping(self, info: RequestInfo, ctx: Context) -> JSONObject:
        return {}

    async def _discover(self, info: RequestInfo, ctx: Context) -> JSONObject:
        result: JSONObject = {
            "supportedVersions": list(self.supported_versions),
            "capabilities": self.capabilities(modern=True),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _page(
        self,
        key: str,
        items: Callable[[], list[JSONObject]],
        info: RequestInfo,
        *,
        cache_key: str | None = None,
    ) -> JSONObject:
        cache_key = cache_key or key
        cached = self._list_cache.get(cache_key)
        if cached is None:
            cached = self._list_cache[cache_key] = items()
        cursor = info.params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            raise InvalidParams("cursor must be a string")
        if self.page_size is None and cursor is None:
            return {key: cached}
        page, next_cursor = paginate(
            cached, cursor, self.page_size or len(cached) or 1, version=self._list_version
        )
        result: JSONObject = {key: list(page)}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    async def _list_tools(self, info: RequestInfo, ctx: Context) -> JSONObject:
        core_tasks = info.era == "legacy" and info.protocol_version == "2025-11-25"
        if self.tasks is not None and core_tasks:
            return self._page("tools", self._core_task_tools, info, cache_key="tools@2025-11-25")
        return self._page("tools", lambda: [t.definition for t in self._tools.values()], info)

    def _core_task_tools(self) -> list[JSONObject]:
        """2025-11-25 listings: tools that run as tasks say so in ``execution.taskSupport``."""
        out = []
        for tool in self._tools.values():
            definition = tool.definition
            if tool.task_support != "forbidden":
                definition = {**definition, "execution": {"taskSupport": tool.task_support}}
            out.append(definition)
        return out

    async def _call_tool(self, info: RequestInfo, ctx: Context) -> JSONObject:
        name = info.params.get("name")
        if not isinstance(name, str):
            raise InvalidParams("tools/call needs params.name (a string)")
        tool = self._tools.get(name)
        if tool is None:
            raise InvalidParams(f"Unknown tool: {name}")
        arguments = info.params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise InvalidParams("tools/call params.arguments must be an object")
        if tool.required_scopes:
            from mcpkit.server.auth_hooks import check_tool_scopes

            check_tool_scopes(info.auth, tool.required_scopes)
        if self.tasks is not None:
            if tool.task_support != "forbidden":
                return await self.tasks.call_tool(tool, arguments, info, ctx)
            from mcpkit.server.tasks import core_task_param

            if core_task_param(info) is not None:
                raise MethodNotFound(
                    f"Tool {name} does not run as a task (its execution.taskSupport is "
                    "forbidden): call it without params.task"
                )
        return await tool.call(arguments, ctx)

    async def _list_resources(self, info: RequestInfo, ctx: Context) -> JSONObject:
        return self._page(
            "resources",
            lambda: [r.definition for r in self._resources.values() if not r.is_template],
            info,
        )

    async def _list_templates(self, info: RequestInfo, ctx: Context) -> JSONObject:
        return self._page(
            "resourceTemplates",
            lambda: [r.definition for r in self._resources.values() if r.is_template],
            info,
        )

    async def _read_resource(self, info: RequestInfo, ctx: Context) -> JSONObject:
        uri = info.params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParams("resources/read needs params.uri (a string)")
        return {"contents": await self._read_resource_contents(uri, ctx, info)}

    async def _read_resource_contents(
        self, uri: str, ctx: Context, info: RequestInfo | None = None
    ) -> list[JSONObject]:
        info = info or ctx._info
        exact = self._resources.get(uri)
        candidates = [exact] if exact is not None and not exact.is_template else []
        candidates += [r for r in self._resources.values() if r.is_template]
        for resource in candidates:
            variables = resource.match(uri)
            if variables is None:
                continue
            try:
                return await resource.read(uri, variables, ctx)
            except (FileNotFoundError, IsADirectoryError, PermissionError):
                raise resource_not_found(info, uri) from None
            except LookupError:
                raise resource_not_found(info, uri) from None
        raise resource_not_found(info, uri)

    async def _subscribe(self, info: RequestInfo, ctx: Context) -> JSONObject:
        uri = info.params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParams("resources/subscribe needs params.uri (a string)")
        assert info.connection is not None
        info.connection.subscriptions.add(uri)
        return {}

    async def _unsubscribe(self, info: RequestInfo, ctx: Context) -> JSONObject:
        uri = info.params.get("uri")
        if not isinstance(uri, str):
            raise InvalidParams("resources/unsubscribe needs params.uri (a string)")
        assert info.connection is not None
        info.connection.subscriptions.discard(uri)
        return {}

    async def _list_prompts(self, info: RequestInfo, ctx: Context) -> JSONObject:
        return self._page("prompts", lambda: [p.definition for p in self._prompts.values()], info)

    async def _get_prompt(self, info: RequestInfo, ctx: Context) -> JSONObject:
        name = info.params.get("name")
        if not isinstance(name, str):
            raise InvalidParams("prompts/get needs params.name (a string)")
        prompt = self._prompts.get(name)
        if prompt is None:
            raise InvalidParams(f"Unknown prompt: {name}")
        arguments = info.params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise InvalidParams("prompts/get params.arguments must be an object")
        return await prompt.render(arguments, ctx)

    async def _complete(self, info: RequestInfo, ctx: Context) -> JSONObject:
        ref = info.params.get("ref")
        argument = info.params.get("argument")
        if not isinstance(ref, dict) or not isinstance(argument, dict):
            raise InvalidParams("completion/complete needs params.ref and params.argument")
        kind = ref.get("type")
        target = ref.get("name") if kind == "ref/prompt" else ref.get("uri")
        arg_name = argument.get("name")
        value = argument.get("value", "")
        if kind not in ("ref/prompt", "ref/resource") or not isinstance(target, str):
            raise InvalidParams("params.ref must be ref/prompt{name} or ref/resource{uri}")
        if not isinstance(arg_name, str) or not isinstance(value, str):
            raise InvalidParams("params.argument needs a string name and value")
        if kind == "ref/prompt" and target not in self._prompts:
            raise InvalidParams(f"Unknown prompt: {target}")
        handler = self._completions.get((kind, target, arg_name))
        if handler is None:
            return {"completion": {"values": [], "hasMore": False}}
        context = info.params.get("context")
        resolved = context.get("arguments") if isinstance(context, dict) else None
        values = handler(value, resolved if isinstance(resolved, dict) else {})
        if inspect.isawaitable(values):
            values = await values
        values = [str(v) for v in values]
        return {
            "completion": {
                "values": values[:MAX_COMPLETION_VALUES],
                "total": len(values),
                "hasMore": len(values) > MAX_COMPLETION_VALUES,
            }
        }

    async def _set_level(self, info: RequestInfo, ctx: Context) -> JSONObject:
        level = info.params.get("level")
        if level not in LOG_LEVELS:
            raise InvalidParams(f"level must be one of {', '.join(LOG_LEVELS)}")
        assert info.connection is not None
        info.connection.log_level = level
        return {}

    async def _listen(self, info: RequestInfo, ctx: Context) -> JSONObject:
        caps = self.capabilities(modern=True)
        task_filter = self.tasks.agree_listen if self.tasks is not None else None
        return await self.listen_hub.serve(info, caps, task_filter=task_filter)

    def _unknown(self, method: str) -> MethodNotFound:
        return MethodNotFound(f"Method not found: {method}")


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
    from mcpkit.server.request_state import RequestStateSealer

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

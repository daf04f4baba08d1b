"""What the feature methods mean: ``tools/*``, ``resources/*``, ``prompts/*``, ``completion/*``.

Each handler group takes the registries it reads and nothing else of the server (``Listing``
is the one setting they share: the page size). Params are decoded in one pass into the method's
model from :mod:`mcpkit.types` (:func:`~mcpkit.server._params.decode_params`); a shape that does
not fit is -32602 before any user code runs. Era differences the handlers must know (the
2025-11-25 task listing, the not-found error of each era) are decided from the
:class:`~mcpkit.server._request.RequestInfo` the dispatcher built.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Final, Protocol

from mcpkit.protocol._errors import InvalidParams, MethodNotFound
from mcpkit.server._context import Context
from mcpkit.server._dispatch import Handler, resource_not_found
from mcpkit.server._params import decode_params
from mcpkit.server._registries import (
    CompletionRegistry,
    PromptRegistry,
    Registry,
    ResourceNotFoundError,
    ResourceRegistry,
    ToolRegistry,
)
from mcpkit.server._request import RequestInfo
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._versions import CORE_TASKS_VERSION

if TYPE_CHECKING:  # the models are resolved from the method table on first use (_params)
    from mcpkit.server.tasks import TaskManager
    from mcpkit.types._common import PaginatedRequestParams
    from mcpkit.types._completion import CompleteRequestParams
    from mcpkit.types._prompts import GetPromptRequestParams
    from mcpkit.types._resources import (
        ReadResourceRequestParams,
        SubscribeRequestParams,
        UnsubscribeRequestParams,
    )
    from mcpkit.types._tools import CallToolRequestParams

__all__ = [
    "CompletionHandlers",
    "PromptHandlers",
    "ResourceHandlers",
    "ToolHandlers",
]

MAX_COMPLETION_VALUES: Final = 100


if TYPE_CHECKING:  # a Protocol class costs every server's start; only mypy reads it

    class Listing(Protocol):
        """How ``*/list`` pages (the server's ``page_size``; ``None``: one page)."""

        @property
        def page_size(self) -> int | None: ...


def _page(
    registry: Registry[Any],
    key: str,
    items: list[JSONObject],
    info: RequestInfo,
    listing: Listing,
) -> JSONObject:
    params: PaginatedRequestParams = decode_params(info.method, info.request.params)
    return registry.page(key, items, params.cursor, listing.page_size)


def _declared_apps(info: RequestInfo) -> bool:
    """MCP Apps: a tool only an app may call is unknown to a client that declared no apps."""
    from mcpkit.protocol._apps import client_supports_apps

    return client_supports_apps(info.client_capabilities)


class ToolHandlers:
    """``tools/list`` and ``tools/call``."""

    __slots__ = ("_listing", "_tasks", "tools")

    def __init__(
        self, tools: ToolRegistry, listing: Listing, tasks: TaskManager | None = None
    ) -> None:
        self.tools = tools
        self._listing = listing
        self._tasks = tasks

    def table(self) -> dict[str, Handler]:
        return {"tools/list": self.list, "tools/call": self.call}

    async def list(self, info: RequestInfo, ctx: Context) -> JSONObject:
        task_support = (
            self._tasks is not None
            and info.era == "legacy"
            and info.protocol_version == CORE_TASKS_VERSION
        )
        from mcpkit.protocol._apps import client_supports_apps  # a server start never pays it

        items = self.tools.definitions(
            task_support=task_support, apps=client_supports_apps(info.client_capabilities)
        )
        return _page(self.tools, "tools", items, info, self._listing)

    def call(self, info: RequestInfo, ctx: Context) -> Awaitable[JSONObject]:
        # The hot path, a plain function that hands over the tool's coroutine (one coroutine
        # less per call; a refusal below is raised by the call inside the caller's
        # ``await handler(...)``, where a coroutine's would be). Decoding into
        # CallToolRequestParams costs ~800 (legacy) to ~2,500 (2026, whose _meta msgspec
        # copies) instructions per call more than checking by type the three members read here
        # (callgrind, stdio server; docs/performance.md): a request that passes these checks is
        # served as is, one that does not is judged and answered by the model, so the -32602
        # wording is the model's either way.
        raw = info.request.params or {}
        name = raw.get("name")
        arguments = raw.get("arguments")
        meta = raw.get("_meta")
        if (
            type(name) is not str
            or (arguments is not None and type(arguments) is not dict)
            or (meta is not None and type(meta) is not dict)
        ):
            params: CallToolRequestParams = decode_params("tools/call", raw)
            name, arguments = params.name, params.arguments
        tool = self.tools.find(name)
        if tool is None or (tool.app_only and not _declared_apps(info)):
            raise InvalidParams(f"Unknown tool: {name}")
        if tool.required_scopes:
            from mcpkit.server._auth_hooks import check_tool_scopes

            check_tool_scopes(info.auth, tool.required_scopes)
        tasks = self._tasks
        if tasks is not None:
            if tool.task_support != "forbidden":
                return tasks.call_tool(tool, arguments, info, ctx)
            from mcpkit.server.tasks import core_task_param

            if core_task_param(info) is not None:
                raise MethodNotFound(
                    f"Tool {name} does not run as a task (its execution.taskSupport is "
                    "forbidden): call it without params.task"
                )
        return tool.call(arguments, ctx)


class ResourceHandlers:
    """``resources/list``, ``resources/templates/list``, ``resources/read`` and the legacy
    ``resources/subscribe`` / ``resources/unsubscribe``."""

    __slots__ = ("_listing", "resources")

    def __init__(self, resources: ResourceRegistry, listing: Listing) -> None:
        self.resources = resources
        self._listing = listing

    def table(self) -> dict[str, Handler]:
        return {
            "resources/list": self.list,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
        }

    async def list(self, info: RequestInfo, ctx: Context) -> JSONObject:
        items = self.resources.resources()
        return _page(self.resources, "resources", items, info, self._listing)

    async def list_templates(self, info: RequestInfo, ctx: Context) -> JSONObject:
        items = self.resources.templates()
        return _page(self.resources, "resourceTemplates", items, info, self._listing)

    async def read(self, info: RequestInfo, ctx: Context) -> JSONObject:
        params: ReadResourceRequestParams = decode_params("resources/read", info.request.params)
        try:
            contents = await self.resources.read_contents(params.uri, ctx)
        except ResourceNotFoundError:
            raise resource_not_found(info, params.uri) from None
        return {"contents": contents}

    async def subscribe(self, info: RequestInfo, ctx: Context) -> JSONObject:
        params: SubscribeRequestParams = decode_params("resources/subscribe", info.request.params)
        assert info.connection is not None  # a legacy-only method: the dispatcher saw to it
        info.connection.subscriptions.add(params.uri)
        return {}

    async def unsubscribe(self, info: RequestInfo, ctx: Context) -> JSONObject:
        params: UnsubscribeRequestParams = decode_params(
            "resources/unsubscribe", info.request.params
        )
        assert info.connection is not None
        info.connection.subscriptions.discard(params.uri)
        return {}


class PromptHandlers:
    """``prompts/list`` and ``prompts/get``."""

    __slots__ = ("_listing", "prompts")

    def __init__(self, prompts: PromptRegistry, listing: Listing) -> None:
        self.prompts = prompts
        self._listing = listing

    def table(self) -> dict[str, Handler]:
        return {"prompts/list": self.list, "prompts/get": self.get}

    async def list(self, info: RequestInfo, ctx: Context) -> JSONObject:
        items = self.prompts.definitions()
        return _page(self.prompts, "prompts", items, info, self._listing)

    async def get(self, info: RequestInfo, ctx: Context) -> JSONObject:
        params: GetPromptRequestParams = decode_params("prompts/get", info.request.params)
        prompt = self.prompts.find(params.name)
        if prompt is None:
            raise InvalidParams(f"Unknown prompt: {params.name}")
        return await prompt.render(params.arguments, ctx)


class CompletionHandlers:
    """``completion/complete`` for prompt arguments and resource template variables."""

    __slots__ = ("completions", "prompts")

    def __init__(self, completions: CompletionRegistry, prompts: PromptRegistry) -> None:
        self.completions = completions
        self.prompts = prompts

    def table(self) -> dict[str, Handler]:
        return {"completion/complete": self.complete}

    async def complete(self, info: RequestInfo, ctx: Context) -> JSONObject:
        params: CompleteRequestParams = decode_params("completion/complete", info.request.params)
        from mcpkit.types._completion import PromptReference  # loaded by the decode above

        ref = params.ref
        if isinstance(ref, PromptReference):
            kind, target = "ref/prompt", ref.name
            if target not in self.prompts:
                raise InvalidParams(f"Unknown prompt: {target}")
        else:
            kind, target = "ref/resource", ref.uri
        resolved = params.context.arguments if params.context is not None else None
        values = await self.completions.complete(
            kind, target, params.argument.name, params.argument.value, resolved or {}
        )
        if values is None:
            return {"completion": {"values": [], "hasMore": False}}
        return {
            "completion": {
                "values": values[:MAX_COMPLETION_VALUES],
                "total": len(values),
                "hasMore": len(values) > MAX_COMPLETION_VALUES,
            }
        }

"""The MCP methods of :class:`~mcpkit.client.Client`, the same in both eras.

Everything returns typed objects from :mod:`mcpkit.types`. Lists are fetched page by page until
the server stops giving a ``nextCursor`` (an empty-string cursor is a real cursor in 2026), with
a bound on pages and a guard against a server that repeats a cursor. Results the server marked
cacheable (2026 ``ttlMs``) are served from the client's cache until they expire or a
notification invalidates them.

Tool calls follow MRTR rounds (2026), check ``structuredContent`` against the tool's
``outputSchema`` (compiled once per tool), and never turn an ``isError`` result into an
exception: that result is for the model to read. Protocol errors raise the typed hierarchy of
:mod:`mcpkit.protocol.errors`; a missing resource is :class:`ResourceNotFound` whichever code the
server used for it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

import msgspec

from mcpkit._runtime.session import ProgressCallback
from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._typed import decode_result
from mcpkit.client.cache import ResultCache
from mcpkit.client.errors import (
    InputValidationError,
    OutputValidationError,
    ServerMisbehaved,
    UnknownTool,
    UnsupportedInEra,
)
from mcpkit.client.questions import Questions, RootsSource
from mcpkit.client.schemas import SchemaCache, SchemaProblem, ValidationMode
from mcpkit.protocol.capabilities import require_server_capability
from mcpkit.protocol.errors import InvalidParams, JSONRPCError, UsageError
from mcpkit.protocol.http_headers import tool_header_problem
from mcpkit.protocol.meta import LOG_LEVELS
from mcpkit.types.completion import (
    CompleteResult,
    PromptReference,
    ResourceTemplateReference,
)
from mcpkit.types.jsonrpc import JSONObject, Notification
from mcpkit.types.lifecycle import DiscoverResult
from mcpkit.types.prompts import GetPromptResult, Prompt
from mcpkit.types.resources import ReadResourceResult, Resource, ResourceTemplate
from mcpkit.types.tools import CallToolResult, Tool
from mcpkit.types.versions import Era

if TYPE_CHECKING:
    from mcpkit.client.client import Client
    from mcpkit.client.negotiate import Negotiated
    from mcpkit.client.subscriptions import ResyncCallback, Subscription

__all__ = ["MAX_PAGES", "ClientFeatures"]

logger = logging.getLogger("mcpkit.client")

MAX_PAGES: Final = 1000
"""Pages followed for one list before the server is considered to be looping."""


class ClientFeatures:
    """Mixin with the MCP methods; :class:`~mcpkit.client.Client` provides the plumbing."""

    name: str
    output_validation: ValidationMode
    _cache: ResultCache | None
    _schemas: SchemaCache
    _tools: dict[str, JSONObject]
    _tools_complete: bool
    _questions: Questions
    _log_level: str | None
    _listeners: set[Callable[[Notification], None]]
    _http: bool

    # provided by Client
    @property
    def negotiated(self) -> Negotiated:
        raise NotImplementedError

    @property
    def era(self) -> Era:
        raise NotImplementedError

    @property
    def server_capabilities(self) -> JSONObject:
        raise NotImplementedError

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
        raise NotImplementedError

    async def _request_with_input(
        self,
        method: str,
        params: JSONObject,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> tuple[JSONObject, int]:
        raise NotImplementedError

    def _require_channel(self) -> Any:
        raise NotImplementedError

    @staticmethod
    def _resource_error(exc: JSONRPCError, uri: str) -> JSONRPCError:
        raise NotImplementedError

    # -- lists ---------------------------------------------------------------------------------

    async def _page(self, method: str, cursor: str | None) -> JSONObject:
        selector = "" if cursor is None else f"cursor:{cursor}"
        if self._cache is not None:
            cached = self._cache.get(method, selector)
            if cached is not None:
                return cached
        result = await self._request(method, {} if cursor is None else {"cursor": cursor})
        if self._cache is not None and self.era == "modern":
            self._cache.put(method, selector, result)
        return result

    async def _list_all(self, method: str, key: str) -> list[JSONObject]:
        require_server_capability(self.server_capabilities, method)
        for attempt in range(2):
            try:
                return await self._collect(method, key)
            except InvalidParams:
                # A cursor from a cached page went stale: drop every page and start over once.
                if attempt or self._cache is None or not len(self._cache):
                    raise
                self._cache.invalidate_method(method)
        raise AssertionError("unreachable")

    async def _collect(self, method: str, key: str) -> list[JSONObject]:
        items: list[JSONObject] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = await self._page(method, cursor)
            entries = page.get(key)
            if not isinstance(entries, list):
                raise ServerMisbehaved(f"{method}: the result has no {key!r} list")
            items.extend(entries)
            next_cursor = page.get("nextCursor")
            if next_cursor is None:
                return items
            if not isinstance(next_cursor, str):
                raise ServerMisbehaved(f"{method}: nextCursor must be a string")
            if next_cursor in seen:
                raise ServerMisbehaved(f"{method}: the server repeated cursor {next_cursor!r}")
            seen.add(next_cursor)
            cursor = next_cursor
        raise ServerMisbehaved(f"{method}: more than {MAX_PAGES} pages; stopped following")

    async def list_tools(self) -> list[Tool]:
        """Every tool the server offers (all pages)."""
        raw = await self._list_all("tools/list", "tools")
        if self._http and self.era == "modern":
            raw = _drop_invalid_header_tools(raw)
        tools = decode_result(list[Tool], raw, "tools/list")
        self._tools = {entry["name"]: entry for entry in raw if isinstance(entry, dict)}
        self._tools_complete = True
        return tools

    async def list_resources(self) -> list[Resource]:
        raw = await self._list_all("resources/list", "resources")
        return decode_result(list[Resource], raw, "resources/list")

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        raw = await self._list_all("resources/templates/list", "resourceTemplates")
        return decode_result(list[ResourceTemplate], raw, "resources/templates/list")

    async def list_prompts(self) -> list[Prompt]:
        raw = await self._list_all("prompts/list", "prompts")
        return decode_result(list[Prompt], raw, "prompts/list")

    # -- tools ---------------------------------------------------------------------------------

    async def _tool_definition(self, name: str) -> JSONObject | None:
        tool = self._tools.get(name)
        if tool is None and not self._tools_complete:
            try:
                await self.list_tools()
            except JSONRPCError as exc:
                logger.debug("%s: could not list tools to find %r: %s", self.name, name, exc)
            tool = self._tools.get(name)
        return tool

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        output_validation: ValidationMode | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> CallToolResult:
        """Call a tool. An ``isError`` result is returned, not raised.

        Cancelling the awaiting task cancels the call on the server. ``timeout`` overrides the
        client's default for this call.
        """
        mode = output_validation or self.output_validation
        tool = self._tools.get(name)
        if tool is None and (mode != "off" or self._http):
            tool = await self._tool_definition(name)
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        if meta:
            params["_meta"] = dict(meta)
        result, _ = await self._request_with_input(
            "tools/call", params, timeout=timeout, progress_callback=progress_callback, tool=tool
        )
        result_type = result.get("resultType")
        if result_type not in (None, "complete"):
            raise ServerMisbehaved(
                f"tools/call {name!r} answered resultType {result_type!r}, which this client "
                "did not opt in to"
            )
        typed = decode_result(CallToolResult, result, "tools/call")
        if mode != "off" and tool is not None:
            self._check_output(name, tool, result, mode)
        return typed

    def _check_output(
        self, name: str, tool: JSONObject, result: JSONObject, mode: ValidationMode
    ) -> None:
        schema = tool.get("outputSchema")
        if not isinstance(schema, dict) or result.get("isError"):
            return
        if "structuredContent" not in result:
            problem: tuple[str, str] | None = (
                "$",
                "the tool declares an outputSchema but the result has no structuredContent",
            )
        else:
            try:
                compiled = self._schemas.get(name, "outputSchema", schema)
            except SchemaProblem:
                return  # already logged once when compiled
            problem = compiled.first_error(result["structuredContent"])
        if problem is None:
            return
        path, detail = problem
        message = (
            f"tool {name!r} returned structuredContent that does not match its outputSchema at "
            f"{path}: {detail}"
        )
        if mode == "strict":
            raise OutputValidationError(
                message, tool=name, path=path, detail=detail, value=result.get("structuredContent")
            )
        logger.warning("%s: %s", self.name, message)

    async def check_arguments(self, name: str, arguments: Mapping[str, Any] | None) -> None:
        """Raise :class:`InputValidationError` (naming the field) unless ``arguments`` fit the
        tool's ``inputSchema``; :class:`UnknownTool` if the server does not list it."""
        tool = await self._tool_definition(name)
        if tool is None:
            raise UnknownTool(name, list(self._tools))
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict):
            return
        try:
            compiled = self._schemas.get(name, "inputSchema", schema)
        except SchemaProblem:
            return
        problem = compiled.first_error(dict(arguments or {}))
        if problem is not None:
            path, detail = problem
            raise InputValidationError(
                f"invalid arguments for tool {name!r} at {path}: {detail}",
                tool=name,
                path=path,
                detail=detail,
                value=arguments,
            )

    async def ainvoke(
        self,
        tool: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> CallToolResult:
        """Check ``params`` against the tool's ``inputSchema`` (nothing is sent if they fail),
        call it, and check the result against its ``outputSchema`` (strictly)."""
        await self.check_arguments(tool, params)
        return await self.call_tool(
            tool,
            params or {},
            timeout=timeout,
            progress_callback=progress_callback,
            output_validation="strict",
        )

    # -- resources -----------------------------------------------------------------------------

    async def read_resource(
        self,
        uri: str,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> ReadResourceResult:
        """Read a resource; a missing one raises :class:`ResourceNotFound`."""
        require_server_capability(self.server_capabilities, "resources/read")
        if self._cache is not None:
            cached = self._cache.get("resources/read", uri)
            if cached is not None:
                return decode_result(ReadResourceResult, cached, "resources/read")
        try:
            result, retries = await self._request_with_input(
                "resources/read",
                {"uri": uri},
                timeout=timeout,
                progress_callback=progress_callback,
            )
        except JSONRPCError as exc:
            raise self._resource_error(exc, uri) from None
        if self._cache is not None and retries == 0 and self.era == "modern":
            self._cache.put("resources/read", uri, result)
        return decode_result(ReadResourceResult, result, "resources/read")

    async def subscribe_resource(self, uri: str) -> None:
        """Legacy ``resources/subscribe``; in 2026 use :meth:`listen` with ``resources=[uri]``."""
        self._legacy_only("resources/subscribe", "listen(resources=[uri])")
        require_server_capability(self.server_capabilities, "resources/subscribe")
        await self._request("resources/subscribe", {"uri": uri})

    async def unsubscribe_resource(self, uri: str) -> None:
        self._legacy_only("resources/unsubscribe", "closing the listen() subscription")
        require_server_capability(self.server_capabilities, "resources/unsubscribe")
        await self._request("resources/unsubscribe", {"uri": uri})

    # -- prompts and completion ----------------------------------------------------------------

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
    ) -> GetPromptResult:
        require_server_capability(self.server_capabilities, "prompts/get")
        params: JSONObject = {"name": name}
        if arguments is not None:
            bad = [key for key, value in arguments.items() if not isinstance(value, str)]
            if bad:
                raise UsageError(f"prompt arguments must be strings; not: {', '.join(bad)}")
            params["arguments"] = dict(arguments)
        result, _ = await self._request_with_input("prompts/get", params, timeout=timeout)
        return decode_result(GetPromptResult, result, "prompts/get")

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference | Mapping[str, Any],
        argument: str,
        value: str,
        *,
        context_arguments: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        """Ask for completions of ``argument`` (partially typed as ``value``) of a prompt or a
        resource template (``ref``)."""
        require_server_capability(self.server_capabilities, "completion/complete")
        ref_obj = dict(ref) if isinstance(ref, Mapping) else msgspec.to_builtins(ref)
        params: JSONObject = {"ref": ref_obj, "argument": {"name": argument, "value": value}}
        if context_arguments:
            params["context"] = {"arguments": dict(context_arguments)}
        result = await self._request("completion/complete", params)
        return decode_result(CompleteResult, result, "completion/complete")

    # -- utilities -----------------------------------------------------------------------------

    async def set_logging_level(self, level: str) -> None:
        """Legacy: ``logging/setLevel``. 2026: every later request carries ``logLevel``."""
        if level not in LOG_LEVELS:
            raise UsageError(
                f"unknown log level {level!r}; expected one of {', '.join(LOG_LEVELS)}"
            )
        if self.era == "modern":
            self._log_level = level
            return
        require_server_capability(self.server_capabilities, "logging/setLevel")
        await self._request("logging/setLevel", {"level": level})

    async def ping(self, *, timeout: TimeoutArg = DEFAULT) -> None:
        """Check the server answers. 2026 removed ``ping``; a ``server/discover`` does the job."""
        if self.era == "modern":
            await self.discover(timeout=timeout)
            return
        await self._request("ping", None, timeout=timeout)

    async def discover(self, *, timeout: TimeoutArg = DEFAULT) -> DiscoverResult:
        """Send ``server/discover`` again (2026) and adopt what it says."""
        if self.era != "modern":
            raise UnsupportedInEra("server/discover is a 2026-07-28 method; this server is legacy")
        result = await self._request("server/discover", {}, timeout=timeout)
        typed = decode_result(DiscoverResult, result, "server/discover")
        negotiated = self.negotiated
        negotiated.capabilities = result.get("capabilities") or {}
        negotiated.discover_result = result
        return typed

    async def set_roots(self, roots: RootsSource) -> None:
        """Replace the roots; a legacy server is told with ``notifications/roots/list_changed``."""
        if self._questions.roots is None:
            raise UsageError("roots must be given when the client is created (to declare them)")
        self._questions.roots = roots
        if self.era == "legacy":
            channel = self._require_channel()
            await channel.notify(
                "notifications/roots/list_changed",
                None,
                protocol_version=self.negotiated.protocol_version,
            )

    def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        resource_uris: Sequence[str] = (),
        on_resync: ResyncCallback | None = None,
    ) -> Subscription:
        """Change notifications as an async iterator (use ``async with``), in both eras.

        The first item is the acknowledgement (``notifications/subscriptions/acknowledged``,
        synthesised for legacy servers) saying what the server agreed to. 2026: one
        ``subscriptions/listen`` stream, re-opened with backoff if the server ends it, with
        ``on_resync`` called after each re-open (changes may have been missed). Legacy: the
        session's notifications, and ``resources/subscribe`` for ``resource_uris``.
        """
        from mcpkit.client.subscriptions import Subscription

        return Subscription(
            cast("Client", self),
            tools=tools,
            prompts=prompts,
            resources=resources,
            resource_uris=list(resource_uris),
            on_resync=on_resync,
        )

    def _legacy_only(self, method: str, instead: str) -> None:
        if self.era == "modern":
            raise UnsupportedInEra(
                f"{method} does not exist in protocol {self.negotiated.protocol_version}; "
                f"use {instead}"
            )


def _drop_invalid_header_tools(tools: list[JSONObject]) -> list[JSONObject]:
    """2026 HTTP: a tool whose ``x-mcp-header`` annotations are invalid MUST be dropped."""
    kept = []
    for tool in tools:
        problem = tool_header_problem(tool.get("inputSchema"))
        if problem:
            logger.warning(
                "dropping tool %r: invalid x-mcp-header annotation: %s", tool.get("name"), problem
            )
            continue
        kept.append(tool)
    return kept

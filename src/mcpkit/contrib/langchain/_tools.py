"""Every tool of a ``Host`` (or one ``Client``) as a LangChain tool, async and sync.

    async with Host(servers, namespacing="always", client_options=bridge.client_options()) as host:
        tools = await load_tools(host, bridge=bridge)     # profile__get_user, catalog__search ...

* The argument schema is the tool's MCP ``inputSchema`` (a JSON Schema dict, as LangChain
  accepts); arguments are checked against it before anything is sent
  (:class:`~mcpkit.client.InputValidationError`, naming the field), and ``structuredContent``
  against the ``outputSchema`` after (:class:`~mcpkit.client.OutputValidationError`).
* Names are the host's (namespaced per server as the host is told, its filters applied) or,
  for one client, the server's names with an optional ``prefix``.
* Calls go through the host's live connection to each server — one per server, reconnected by
  the host — never a session per call.
* Results are ``(content, artifact)`` (:mod:`.convert`); ``isError`` is a ``ToolException``
  with the server's text, which the tool returns to the model as an error ``ToolMessage``
  (``handle_tool_error=True``). When the model made the call, what it can act on — invalid
  arguments, a missing resource (``ResourceNotFound`` in both eras, see :mod:`.errors`), a
  result breaking its ``outputSchema`` — comes back to it the same way
  (``errors_to_model=False`` raises mcpkit's typed errors instead, as a direct call does).
* Progress notifications stream out of the graph as ``mcp_progress`` custom events; questions
  become interrupts (:mod:`.bridge`).

The sync ``invoke`` runs the call on the loop that owns the connections (from another thread,
e.g. LangGraph's sync ``graph.invoke``): tools are loaded on that loop, so load them with
``await load_tools(...)`` there, or with :func:`load_tools_sync` from a ``SyncHost``.
"""

# No ``from __future__ import annotations`` here: LangChain reads ``_arun``'s type hints on
# every call, and string annotations would be compiled again each time.

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec
from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict, Field

from mcpkit.client import Client, Host, SyncClient, SyncHost
from mcpkit.contrib.langchain._bridge import _TOOL_CALL_ID, GraphBridge, current_writer, in_graph
from mcpkit.contrib.langchain._convert import tool_output
from mcpkit.contrib.langchain._errors import MODEL_ERRORS, era_neutral
from mcpkit.protocol import UsageError
from mcpkit.types import CallToolResult, JSONObject, Tool

__all__ = ["MCPTool", "Source", "load_tools", "load_tools_sync", "resolve_client"]

Source = Host | Client


def resolve_client(source: Source, server: str) -> Client:
    """The live client of ``server`` (a host's server name, or the one client's name)."""
    if isinstance(source, Host):
        return source.client(server)
    return source


def _canonical(arguments: Any) -> str:
    return msgspec.json.encode(arguments, order="sorted").decode()


class MCPTool(BaseTool):
    """One MCP tool as a LangChain tool (use :func:`load_tools` to make them)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    response_format: Any = "content_and_artifact"
    handle_tool_error: Any = True
    mcp_server: str
    """The server's name in the host (or the client's name)."""
    mcp_tool: str
    """The tool's own name on that server."""
    mcp_validate: bool = True
    mcp_errors_to_model: bool = True
    """Invalid arguments, a missing resource, a result breaking its ``outputSchema``: an error
    ``ToolMessage`` for the model that made the call (``False``: raise the typed error)."""
    mcp_source: Any = Field(default=None, exclude=True)
    mcp_bridge: Any = Field(default=None, exclude=True)
    mcp_loop: Any = Field(default=None, exclude=True)

    async def mcp_call(self, arguments: JSONObject) -> CallToolResult:
        """Call the tool (validated, routed, questions as interrupts); the raw result."""
        client = resolve_client(self.mcp_source, self.mcp_server)
        if not in_graph():  # a plain call: nothing to stream, nobody to interrupt
            if self.mcp_validate:
                return await client.ainvoke(self.mcp_tool, arguments)
            return await client.call_tool(self.mcp_tool, arguments)
        writer = current_writer()
        bridge: GraphBridge = self.mcp_bridge

        tool_call_id = _TOOL_CALL_ID.get()

        def progress(value: float, total: float | None, message: str | None) -> None:
            if writer is not None:
                writer(
                    {
                        "type": "mcp_progress",
                        "server": self.mcp_server,
                        "tool": self.mcp_tool,
                        "tool_call_id": tool_call_id,
                        "progress": value,
                        "total": total,
                        "message": message,
                    }
                )

        def start() -> Coroutine[Any, Any, CallToolResult]:
            if self.mcp_validate:
                return client.ainvoke(self.mcp_tool, arguments, progress_callback=progress)
            return client.call_tool(self.mcp_tool, arguments, progress_callback=progress)

        return await bridge.run(
            start,
            server=self.mcp_server,
            server_name=client.negotiated.server_name,
            tool=self.mcp_tool,
            key=(self.mcp_server, self.mcp_tool, _canonical(arguments)),
            writer=writer,
            era=client.era,
        )

    async def arun(
        self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kwargs: Any
    ) -> Any:
        """LangChain's ``arun``, with the model's ``tool_call_id`` kept for stream events."""
        token = _TOOL_CALL_ID.set(tool_call_id)
        try:
            return await super().arun(tool_input, *args, tool_call_id=tool_call_id, **kwargs)
        finally:
            _TOOL_CALL_ID.reset(token)

    def run(
        self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kwargs: Any
    ) -> Any:
        """LangChain's ``run``, with the model's ``tool_call_id`` kept for stream events."""
        token = _TOOL_CALL_ID.set(tool_call_id)
        try:
            return super().run(tool_input, *args, tool_call_id=tool_call_id, **kwargs)
        finally:
            _TOOL_CALL_ID.reset(token)

    def _model_error(self, exc: Exception) -> Exception:
        """What a typed error becomes: a ``ToolException`` (an error ``ToolMessage`` for the
        model) when the model made the call, else the era-neutral typed error."""
        neutral = era_neutral(exc)
        if self.mcp_errors_to_model and _TOOL_CALL_ID.get() is not None:
            problem = ToolException(str(neutral))
            problem.__cause__ = neutral
            return problem
        assert isinstance(neutral, Exception)
        return neutral

    async def _arun(self, **kwargs: Any) -> tuple[Any, Any]:
        kwargs.pop("run_manager", None)
        try:
            result = await self.mcp_call(kwargs)
        except MODEL_ERRORS as exc:
            raise self._model_error(exc) from None
        return tool_output(result)

    def _run(self, **kwargs: Any) -> tuple[Any, Any]:
        kwargs.pop("run_manager", None)
        loop: asyncio.AbstractEventLoop | None = self.mcp_loop
        if loop is None or loop.is_closed():
            raise UsageError(f"{self.name}: the loop that owns the MCP connections is gone")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise UsageError(
                f"{self.name}: a sync invoke on the loop that owns the MCP connections would "
                "block it; use ainvoke (or call invoke from another thread)"
            )
        try:
            # the loop's task runs in a copy of this thread's context (``call_soon_threadsafe``
            # copies it here): LangGraph's config goes along, so interrupts still work
            result = asyncio.run_coroutine_threadsafe(self.mcp_call(kwargs), loop).result()
        except MODEL_ERRORS as exc:
            raise self._model_error(exc) from None
        return tool_output(result)


def _make(
    source: Source,
    name: str,
    server: str,
    tool: Tool,
    bridge: GraphBridge,
    validate: bool,
    handle_tool_error: Any,
    errors_to_model: bool,
) -> MCPTool:
    description = tool.description or tool.title or tool.name
    return MCPTool(
        name=name,
        description=description,
        args_schema=dict(tool.input_schema),
        handle_tool_error=handle_tool_error,
        mcp_server=server,
        mcp_tool=tool.name,
        mcp_validate=validate,
        mcp_errors_to_model=errors_to_model,
        mcp_source=source,
        mcp_bridge=bridge,
        mcp_loop=asyncio.get_running_loop(),
        metadata={"mcp_server": server, "mcp_tool": tool.name},
    )


async def load_tools(
    source: Source,
    *,
    bridge: GraphBridge | None = None,
    prefix: str = "",
    validate: bool = True,
    handle_tool_error: bool | str | Callable[[Exception], str] = True,
    errors_to_model: bool = True,
) -> list[MCPTool]:
    """The tools of ``source`` as LangChain tools.

    ``bridge``: the :class:`GraphBridge` whose :meth:`~GraphBridge.client_options` the source
    was built with (questions become interrupts, logs stream events); without one, progress
    still streams and questions go to the client's own handlers. ``validate=False`` skips the
    input check and uses the client's ``output_validation``. ``handle_tool_error`` is
    LangChain's: what an ``isError`` result becomes (``True``: the server's text).
    ``errors_to_model``: when the model made the call (a tool call with an id, as LangGraph's
    ``ToolNode`` makes), invalid arguments, a missing resource and a result that breaks its
    ``outputSchema`` come back to it as error tool messages too, instead of ending the run;
    ``False`` raises them (a direct ``ainvoke(dict)`` always raises them).
    """
    bridge = bridge or GraphBridge()
    if isinstance(source, Host):
        rows = [(row.name, row.server, row.tool) for row in await source.list_tools()]
    elif isinstance(source, Client):
        rows = [(prefix + tool.name, source.name, tool) for tool in await source.list_tools()]
    else:
        raise UsageError(f"load_tools needs a Host or a Client, not {type(source).__name__}")
    if isinstance(source, Host) and prefix:
        rows = [(prefix + name, server, tool) for name, server, tool in rows]
    return [
        _make(source, name, server, tool, bridge, validate, handle_tool_error, errors_to_model)
        for name, server, tool in rows
    ]


def load_tools_sync(
    source: SyncHost | SyncClient,
    *,
    bridge: GraphBridge | None = None,
    prefix: str = "",
    validate: bool = True,
    handle_tool_error: bool | str | Callable[[Exception], str] = True,
    errors_to_model: bool = True,
) -> list[MCPTool]:
    """:func:`load_tools` for a blocking ``SyncHost`` / ``SyncClient`` (tools run on its loop);
    the same keywords."""
    target: Source = source.host if isinstance(source, SyncHost) else source.client
    return source._thread.run(
        load_tools(
            target,
            bridge=bridge,
            prefix=prefix,
            validate=validate,
            handle_tool_error=handle_tool_error,
            errors_to_model=errors_to_model,
        )
    )

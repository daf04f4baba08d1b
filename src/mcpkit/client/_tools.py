"""Tools: listing, calling (with MRTR rounds and output checks) and checked invocation.

Tool calls follow 2026 ``input_required`` rounds, check ``structuredContent`` against the tool's
``outputSchema`` (compiled once per tool), and never turn an ``isError`` result into an
exception: that result is for the model to read. :meth:`ToolMethods.ainvoke` also checks the
arguments against ``inputSchema`` before anything is sent. On 2026 HTTP, tools whose
``x-mcp-header`` annotations are invalid are dropped from the listing (the spec's MUST).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcpkit._runtime.session import ProgressCallback
from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._errors import (
    InputValidationError,
    OutputValidationError,
    ServerMisbehaved,
    UnknownTool,
    UnsupportedInEra,
)
from mcpkit.client._mrtr import INPUT_REQUIRED, InputRequired, check_input_required
from mcpkit.client._plumbing import ClientPlumbing
from mcpkit.client._schemas import SchemaProblem, ValidationMode
from mcpkit.client._typed import decode_result, decode_tool_result
from mcpkit.protocol._errors import InvalidParams, JSONRPCError
from mcpkit.protocol._http_headers import tool_header_problem
from mcpkit.protocol._schema_dialects import argument_problem_text
from mcpkit.types._base import (
    INPUT_RESPONSES_KEY,
    REQUEST_STATE_KEY,
    RESULT_TYPE_COMPLETE,
    RESULT_TYPE_KEY,
    RESULT_TYPE_TASK,
)
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._tools import CallToolResult, Tool

__all__ = ["ToolMethods"]

logger = logging.getLogger("mcpkit.client")


class ToolMethods(ClientPlumbing):
    """``list_tools``, ``call_tool``, ``call_tool_round``, ``check_arguments``, ``ainvoke``."""

    async def list_tools(self) -> list[Tool]:
        """Every tool the server offers (all pages)."""
        raw = await self._list_all("tools/list", "tools")
        if self._http and self.era == "modern":
            raw = _drop_invalid_header_tools(raw)
        tools = decode_result(list[Tool], raw, "tools/list")
        self._tools = {entry["name"]: entry for entry in raw if isinstance(entry, dict)}
        self._tools_complete = True
        return tools

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
        try:
            # _request_with_input, inlined: fresh params carry no round keys, and
            # input_required rounds are followed only when the server asks
            result = await self._request(
                "tools/call",
                params,
                timeout=timeout,
                progress_callback=progress_callback,
                tool=tool,
            )
            if result.get(RESULT_TYPE_KEY) == INPUT_REQUIRED and self.era == "modern":
                result, _ = await self._follow_input_rounds(
                    "tools/call", params, result, timeout, progress_callback, tool
                )
        except InvalidParams as exc:
            if await self._not_listed(name, exc):
                # The server's -32602 for a name it does not offer: the error a Host raises for
                # it too, so one ``except UnknownTool`` serves both.
                raise UnknownTool(
                    name, list(self._tools), message=exc.message, data=exc.data, remote=exc.remote
                ) from None
            # 2026-07-28 says "no such resource" as -32602 with data.uri (legacy: -32002): the
            # same typed error in both eras, from a tool as from resources/read.
            raise self._resource_error(exc, "") from None
        if result.get(RESULT_TYPE_KEY) == RESULT_TYPE_TASK:
            return await self._follow_created_task(name, tool, result)
        return self._finish_call(name, tool, result, mode)

    async def _not_listed(self, name: str, exc: InvalidParams) -> bool:
        """Whether a -32602 answer to ``tools/call name`` means the server has no such tool
        (checked against a fresh ``tools/list``: the error's wording is the server's own)."""
        if isinstance(exc.data, dict) and "uri" in exc.data:
            return False
        try:
            await self.list_tools()
        except JSONRPCError:
            return False
        return name not in self._tools

    async def _follow_created_task(
        self, name: str, tool: JSONObject | None, result: JSONObject
    ) -> CallToolResult:
        """A ``CreateTaskResult`` answered a plain call: followed to its end where the client
        declared the Tasks extension (:mod:`mcpkit.client._tasks`), else the server's fault."""
        raise ServerMisbehaved(
            f"tools/call {name!r} answered resultType 'task', which this client did not opt in to"
        )

    async def call_tool_round(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        output_validation: ValidationMode | None = None,
    ) -> CallToolResult | InputRequired:
        """One round of a 2026-07-28 tool call, for callers that answer questions themselves.

        Where :meth:`call_tool` answers ``input_required`` with the client's handlers and
        retries, this returns the :class:`~mcpkit.client._mrtr.InputRequired` to the caller,
        which may keep it (it is plain data) and continue later, even in another process, by
        calling again with the same ``arguments``, ``input_responses`` (answers by key, see
        :meth:`answer_input_request` for the ones a handler can answer) and the
        ``request_state`` it carried. A legacy server asks inside the open request instead, so
        this raises :class:`UnsupportedInEra` there: use :meth:`call_tool` and handlers.
        """
        if self.era != "modern":
            raise UnsupportedInEra(
                "call_tool_round is for 2026-07-28 servers; a legacy server asks its questions "
                "inside the open call: use call_tool with an elicitation_handler"
            )
        mode = output_validation or self.output_validation
        tool = self._tools.get(name)
        if tool is None:
            tool = await self._tool_definition(name)
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        if input_responses is not None:
            params[INPUT_RESPONSES_KEY] = dict(input_responses)
        if request_state is not None:
            params[REQUEST_STATE_KEY] = request_state
        result = await self._request(
            "tools/call", params, timeout=timeout, progress_callback=progress_callback, tool=tool
        )
        if result.get(RESULT_TYPE_KEY) == INPUT_REQUIRED:
            return check_input_required("tools/call", result)
        return self._finish_call(name, tool, result, mode)

    async def answer_input_request(
        self, key: str, request: Any, *, asked_during: str = "tools/call"
    ) -> JSONObject:
        """Answer one entry of an :class:`InputRequired` with this client's handlers
        (elicitation, sampling, roots), exactly as :meth:`call_tool` would."""
        return await self._questions.answer_input_request(
            key,
            request,
            protocol_version=self.negotiated.protocol_version,
            server_name=self.negotiated.server_name,
            asked_during=asked_during,
        )

    def _finish_call(
        self, name: str, tool: JSONObject | None, result: JSONObject, mode: ValidationMode
    ) -> CallToolResult:
        result_type = result.get(RESULT_TYPE_KEY)
        if result_type not in (None, RESULT_TYPE_COMPLETE):
            raise ServerMisbehaved(
                f"tools/call {name!r} answered resultType {result_type!r}, which this client "
                "did not opt in to"
            )
        typed = decode_tool_result(result)
        if mode != "off" and tool is not None and "outputSchema" in tool:
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
        problem = compiled.first_argument_problem(dict(arguments or {}))
        if problem is not None:
            path, detail = problem
            # Worded as the server words the same mistake (an ``isError`` result's text).
            raise InputValidationError(
                argument_problem_text(path, detail),
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

"""Span names and attributes from an MCP request, per the OpenTelemetry MCP conventions.

The names come from the OpenTelemetry semantic conventions for MCP (status: development):
``mcp.method.name``, ``mcp.protocol.version``, ``mcp.session.id``, ``mcp.resource.uri``,
``jsonrpc.request.id``, ``gen_ai.tool.name``, ``gen_ai.prompt.name``, ``gen_ai.operation.name``,
``error.type`` and ``rpc.response.status_code``. What the conventions have no name for is
under ``mcpkit.`` (the era, a 2026 ``input_required`` round, the client's server name).

Span names are ``{method} {target}`` with the tool or prompt name as target, never the resource
URI (unbounded cardinality).
"""

from __future__ import annotations

from typing import Any, Final

from mcpkit.protocol import JSONRPCError, RequestTimeout

__all__ = [
    "ERA",
    "ERROR_TYPE",
    "METHOD",
    "OPERATION",
    "PROMPT_NAME",
    "PROTOCOL_VERSION",
    "REQUEST_ID",
    "RESOURCE_URI",
    "RESULT_TYPE",
    "SERVER_NAME",
    "SESSION_ID",
    "STATUS_CODE",
    "TOOL_NAME",
    "error_type",
    "request_attributes",
    "result_error_type",
    "span_name",
]

METHOD: Final = "mcp.method.name"
PROTOCOL_VERSION: Final = "mcp.protocol.version"
SESSION_ID: Final = "mcp.session.id"
RESOURCE_URI: Final = "mcp.resource.uri"
REQUEST_ID: Final = "jsonrpc.request.id"
TOOL_NAME: Final = "gen_ai.tool.name"
PROMPT_NAME: Final = "gen_ai.prompt.name"
OPERATION: Final = "gen_ai.operation.name"
ERROR_TYPE: Final = "error.type"
STATUS_CODE: Final = "rpc.response.status_code"
ERA: Final = "mcpkit.era"
"""``legacy`` (a handshake-era session) or ``modern`` (a stateless 2026-07-28 request)."""
RESULT_TYPE: Final = "mcpkit.result_type"
"""Set to ``input_required`` when a 2026 round ends asking the client for input."""
SERVER_NAME: Final = "mcpkit.server.name"
"""Client spans: the name the client (or the host's configuration) gives the server."""

_URI_METHODS: Final = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})


def span_name(method: str, params: Any) -> str:
    """``tools/call add``, ``prompts/get greet``; the bare method otherwise."""
    if method in ("tools/call", "prompts/get") and isinstance(params, dict):
        name = params.get("name")
        if isinstance(name, str):
            return f"{method} {name}"
    return method


def request_attributes(method: str, params: Any) -> dict[str, Any]:
    """The attributes a request's method and params determine (what people filter on)."""
    attributes: dict[str, Any] = {METHOD: method}
    if not isinstance(params, dict):
        return attributes
    if method == "tools/call":
        name = params.get("name")
        if isinstance(name, str):
            attributes[TOOL_NAME] = name
        attributes[OPERATION] = "execute_tool"
    elif method == "prompts/get":
        name = params.get("name")
        if isinstance(name, str):
            attributes[PROMPT_NAME] = name
    elif method in _URI_METHODS:
        uri = params.get("uri")
        if isinstance(uri, str):
            attributes[RESOURCE_URI] = uri
    return attributes


def error_type(exc: BaseException) -> str:
    """``error.type`` for a failed request: the JSON-RPC code, ``timeout``, or the class name."""
    if isinstance(exc, JSONRPCError):
        return str(exc.code)
    if isinstance(exc, RequestTimeout | TimeoutError):
        return "timeout"
    return type(exc).__qualname__


def result_error_type(method: str, result: Any) -> str | None:
    """``tool_error`` for a ``tools/call`` result with ``isError: true`` (the call failed)."""
    if method == "tools/call" and isinstance(result, dict) and result.get("isError") is True:
        return "tool_error"
    return None

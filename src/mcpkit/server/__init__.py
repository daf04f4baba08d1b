"""The mcpkit server framework: typed functions become MCP tools, resources and prompts.

>>> server = Server("demo")
>>> @server.tool
... def add(a: int, b: int) -> int:
...     '''Add two numbers.'''
...     return a + b

``server.run()`` serves stdio; ``server.run("http")`` serves Streamable HTTP. Both protocol eras
are served at once. The whole public surface is listed in ``docs/api.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mcpkit.server._context import Context, ElicitAnswer, Question
from mcpkit.server._prompts import Message, RegisteredPrompt
from mcpkit.server._resources import RegisteredResource, ResourceData
from mcpkit.server._server import Server
from mcpkit.server._tools import (
    INTERNAL_ERROR_META,
    ArgumentValidator,
    Header,
    RegisteredTool,
    ToolError,
    ToolResult,
)

if TYPE_CHECKING:
    from mcpkit.server import content
    from mcpkit.server._auth_hooks import ScopeRequired
    from mcpkit.server._http_options import HttpAppOptions, HttpRunOptions
    from mcpkit.server._memo import MAX_MEMO_BYTES, MemoTooLarge
    from mcpkit.server._request_state import (
        DEFAULT_STATE_TTL,
        STATE_KEYS_ENV,
        KeyRing,
        RequestStateSealer,
    )
    from mcpkit.server._safe_files import read_under
    from mcpkit.server._sampling_options import SamplingOptions
    from mcpkit.server._server_options import ServerOptions
    from mcpkit.server._uri_template import UriTemplate
    from mcpkit.server.middleware import (
        CallNext,
        Handler,
        InputRequested,
        Middleware,
        Notifier,
        RequestView,
    )

if TYPE_CHECKING:
    from mcpkit.server._safe_files import read_under

__all__ = [
    "MAX_MEMO_BYTES",
    "CallNext",
    "Context",
    "ElicitAnswer",
    "Handler",
    "Header",
    "InputRequested",
    "HttpAppOptions",
    "HttpRunOptions",
    "MemoTooLarge",
    "Message",
    "Middleware",
    "Notifier",
    "Question",
    "RegisteredPrompt",
    "RegisteredResource",
    "RegisteredTool",
    "RequestView",
    "ResourceData",
    "SamplingOptions",
    "ScopeRequired",
    "Server",
    "ServerOptions",
    "ToolError",
    "ToolResult",
    "UriTemplate",
    "content",
    "read_under",
    # -- the extension surface of issue #26 (openapi-surface branch) --
    "DEFAULT_STATE_TTL",
    "INTERNAL_ERROR_META",
    "STATE_KEYS_ENV",
    "ArgumentValidator",
    "KeyRing",
    "RequestStateSealer",
]


_LAZY: Final = {
    # the request-state names: serving needs them only for a 2026 multi-round-trip request
    "DEFAULT_STATE_TTL": "_request_state",
    "STATE_KEYS_ENV": "_request_state",
    "KeyRing": "_request_state",
    "RequestStateSealer": "_request_state",
    # the URI template engine (three dataclasses and their generated methods)
    "read_under": "_safe_files",
    "UriTemplate": "_uri_template",
    # option TypedDicts, for type checkers: building one compiles a ForwardRef per annotated
    # key (~0.1 M instructions each, ~5.5 M for the four)
    "HttpAppOptions": "_http_options",
    "HttpRunOptions": "_http_options",
    "SamplingOptions": "_sampling_options",
    "ServerOptions": "_server_options",
    # what a server that uses them imports anyway; a plain stdio server answers without
    "MAX_MEMO_BYTES": "_memo",
    "MemoTooLarge": "_memo",
    "ScopeRequired": "_auth_hooks",
    "CallNext": "middleware",
    "Handler": "middleware",
    "InputRequested": "_request",
    "Middleware": "middleware",
    "Notifier": "middleware",
    "RequestView": "middleware",
    # the content-block helpers, a submodule (``mcpkit.server.content``)
    "content": "",
}
"""Names loaded on first use (PEP 562): a stdio server must not pay for them on its way up."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    if not module:  # a submodule of its own
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value

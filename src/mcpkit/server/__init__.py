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

from typing import TYPE_CHECKING, Any

from mcpkit.server import content
from mcpkit.server._auth_hooks import ScopeRequired
from mcpkit.server._context import Context, ElicitAnswer, Question
from mcpkit.server._memo import MAX_MEMO_BYTES, MemoTooLarge
from mcpkit.server._prompts import Message, RegisteredPrompt
from mcpkit.server._resources import RegisteredResource, ResourceData
from mcpkit.server._server import Server
from mcpkit.server._tools import Header, RegisteredTool, ToolError, ToolResult
from mcpkit.server.middleware import CallNext, Middleware, RequestView

if TYPE_CHECKING:
    from mcpkit.server._safe_files import read_under

__all__ = [
    "MAX_MEMO_BYTES",
    "CallNext",
    "Context",
    "ElicitAnswer",
    "Header",
    "MemoTooLarge",
    "Message",
    "Middleware",
    "Question",
    "RegisteredPrompt",
    "RegisteredResource",
    "RegisteredTool",
    "RequestView",
    "ResourceData",
    "ScopeRequired",
    "Server",
    "ToolError",
    "ToolResult",
    "content",
    "read_under",
]


def __getattr__(name: str) -> Any:
    # ``read_under`` brings the URI template engine (three dataclasses and their generated
    # methods): imported when first asked for, not by every server's start
    if name == "read_under":
        from mcpkit.server._safe_files import read_under

        globals()["read_under"] = read_under
        return read_under
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

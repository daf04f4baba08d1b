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

from mcpkit.server import content
from mcpkit.server._server import Server
from mcpkit.server.auth_hooks import ScopeRequired
from mcpkit.server.context import Context, ElicitAnswer, Question
from mcpkit.server.memo import MAX_MEMO_BYTES, MemoTooLarge
from mcpkit.server.middleware import CallNext, Middleware, RequestView
from mcpkit.server.prompts import Message, RegisteredPrompt
from mcpkit.server.resources import RegisteredResource, ResourceData
from mcpkit.server.safe_files import read_under
from mcpkit.server.tools import Header, RegisteredTool, ToolError, ToolResult

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

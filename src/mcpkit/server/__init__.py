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
from mcpkit.server._auth_hooks import ScopeRequired
from mcpkit.server._context import Context, ElicitAnswer, Question
from mcpkit.server._http_options import HttpAppOptions, HttpRunOptions
from mcpkit.server._memo import MAX_MEMO_BYTES, MemoTooLarge
from mcpkit.server._prompts import Message, RegisteredPrompt
from mcpkit.server._resources import RegisteredResource, ResourceData
from mcpkit.server._safe_files import read_under
from mcpkit.server._sampling_options import SamplingOptions
from mcpkit.server._server import Server
from mcpkit.server._server_options import ServerOptions
from mcpkit.server._tools import Header, RegisteredTool, ToolError, ToolResult
from mcpkit.server.middleware import CallNext, Middleware, RequestView

__all__ = [
    "MAX_MEMO_BYTES",
    "CallNext",
    "Context",
    "ElicitAnswer",
    "Header",
    "HttpAppOptions",
    "HttpRunOptions",
    "MemoTooLarge",
    "Message",
    "Middleware",
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
    "content",
    "read_under",
]

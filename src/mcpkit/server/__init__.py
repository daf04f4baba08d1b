"""The mcpkit server framework: typed functions become MCP tools, resources and prompts.

>>> server = Server("demo")
>>> @server.tool
... def add(a: int, b: int) -> int:
...     '''Add two numbers.'''
...     return a + b

``server.run()`` serves stdio; ``server.run("http")`` serves Streamable HTTP. Both protocol eras
are served at once.
"""

from __future__ import annotations

from mcpkit.server import content
from mcpkit.server._request import LegacyConnection, Outbound, RequestInfo
from mcpkit.server._server import Server
from mcpkit.server.auth_hooks import InsufficientScope
from mcpkit.server.context import Context, ElicitResult, Question
from mcpkit.server.prompts import Message
from mcpkit.server.resources import ResourceContents
from mcpkit.server.tools import Header, ToolError, ToolResult

__all__ = [
    "Context",
    "ElicitResult",
    "Header",
    "InsufficientScope",
    "LegacyConnection",
    "Message",
    "Outbound",
    "Question",
    "RequestInfo",
    "ResourceContents",
    "Server",
    "ToolError",
    "ToolResult",
    "content",
]

"""stdio, both sides: :mod:`.stdio_server` (this process is the server) and :mod:`.stdio_client`
(start a server as a child process). One import path for both."""

from __future__ import annotations

from mcpkit.transports._process import DEFAULT_ALLOWED_ENV
from mcpkit.transports.stdio_client import (
    ServerStartError,
    StdioClientStream,
    StdioServerParameters,
    stdio_client,
)
from mcpkit.transports.stdio_server import PARENT_POLL_INTERVAL, StdioServerStream, stdio_server

__all__ = [
    "DEFAULT_ALLOWED_ENV",
    "PARENT_POLL_INTERVAL",
    "ServerStartError",
    "StdioClientStream",
    "StdioServerParameters",
    "StdioServerStream",
    "stdio_client",
    "stdio_server",
]

"""stdio, both sides: :mod:`.stdio_server` (this process is the server) and :mod:`.stdio_client`
(start a server as a child process). One import path for both."""

from __future__ import annotations

from mcpkit.transports._process import DEFAULT_ALLOWED_ENV
from mcpkit.transports._stdio_client import (
    ServerStartError,
    StderrSink,
    StdioClientStream,
    StdioServerParameters,
    set_default_stderr,
    stdio_client,
)
from mcpkit.transports._stdio_server import PARENT_POLL_INTERVAL, StdioServerStream, stdio_server

__all__ = [
    "DEFAULT_ALLOWED_ENV",
    "PARENT_POLL_INTERVAL",
    "ServerStartError",
    "StderrSink",
    "StdioClientStream",
    "StdioServerParameters",
    "StdioServerStream",
    "set_default_stderr",
    "stdio_client",
    "stdio_server",
]

"""Transports: bytes on a wire to :class:`~mcpkit._runtime.stream.MessageStream` and back.

* :func:`memory_pair` — two connected in-process ends (the twin used by tests);
* :func:`stdio_server` — serve on this process's stdin/stdout;
* :func:`stdio_client` — start a server as a child process and talk over its pipes.

Streamable HTTP lives in :mod:`mcpkit.transports.http` (imported on its own: it needs extras).
"""

from __future__ import annotations

from mcpkit.transports.memory import MemoryStream, memory_pair
from mcpkit.transports.stdio import (
    DEFAULT_ALLOWED_ENV,
    ServerStartError,
    StdioClientStream,
    StdioServerParameters,
    StdioServerStream,
    stdio_client,
    stdio_server,
)

__all__ = [
    "DEFAULT_ALLOWED_ENV",
    "MemoryStream",
    "ServerStartError",
    "StdioClientStream",
    "StdioServerParameters",
    "StdioServerStream",
    "memory_pair",
    "stdio_client",
    "stdio_server",
]

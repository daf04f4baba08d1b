"""Transports: bytes on a wire to :class:`~mcpkit._runtime.stream.MessageStream` and back.

* :func:`memory_pair` — two connected in-process ends (the twin used by tests);
* :func:`stdio_server` — serve on this process's stdin/stdout;
* :func:`stdio_client` — start a server as a child process and talk over its pipes.

Streamable HTTP lives in :mod:`mcpkit.transports.http` (imported on its own: it needs extras).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpkit.transports._memory import MemoryStream, memory_pair
    from mcpkit.transports._stdio import (
        DEFAULT_ALLOWED_ENV,
        ServerStartError,
        StdioClientStream,
        StdioServerParameters,
        StdioServerStream,
        stdio_client,
        stdio_server,
    )

    # -- the stdio client's stderr hooks, for programs that show a server's stderr (issue #26) --
    from mcpkit.transports._stdio_client import STDERR_RECORD_ATTR, StderrSink, set_default_stderr

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
    # -- the stdio client's stderr hooks (issue #26) --
    "STDERR_RECORD_ATTR",
    "StderrSink",
    "set_default_stderr",
]

_SOURCES: dict[str, str] = {
    "MemoryStream": "memory",
    "memory_pair": "memory",
    **{name: "stdio" for name in __all__ if name not in ("MemoryStream", "memory_pair")},
    "STDERR_RECORD_ATTR": "stdio_client",
}


def __getattr__(name: str) -> object:
    """Import a re-export's module on first use (PEP 562).

    Any ``mcpkit.transports.x`` import runs this package first: a stdio *server* must not pay
    for the stdio client (``pathlib``, ``urllib.parse``, ``ipaddress``) on its way to start.
    """
    module_name = _SOURCES.get(name)
    if module_name is None:
        raise AttributeError(f"module 'mcpkit.transports' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"mcpkit.transports._{module_name}")
    # Bind every name of that module at once: importing it also imported submodules such as
    # ``stdio_client``, which Python binds here as modules, shadowing the functions of the same
    # name that ``from mcpkit.transports import stdio_client`` must return.
    for exported, source in _SOURCES.items():
        if source == module_name:
            globals()[exported] = getattr(module, exported)
    return globals()[name]

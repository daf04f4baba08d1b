"""Run an ASGI app (usually :class:`~mcpkit.transports.http.asgi.McpHttpApp`) on uvicorn.

httptools and uvloop are used when installed (``mcpkit[speed]``): they roughly halve the server's
per-request cost. The defaults are for a local server: loopback only, and a bounded graceful
shutdown, because long-lived SSE streams would otherwise hold a shutdown forever.

Several workers: uvicorn needs an import string for that (``uvicorn pkg.mod:app --workers 4``),
see ``docs/http.md`` — legacy sessions live in one process, so use ``stateless=True`` or sticky
sessions in front of several workers.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from typing import Any, Final

from mcpkit.transports.http._guard import (
    HEADER_TIMEOUT_SECONDS,
    MAX_CONNECTIONS_PER_PEER,
    guarded_protocol,
)

__all__ = [
    "DEFAULT_HOST",
    "HEADER_TIMEOUT_SECONDS",
    "MAX_CONNECTIONS_PER_PEER",
    "DEFAULT_PORT",
    "GRACEFUL_SHUTDOWN_SECONDS",
    "KEEP_ALIVE_SECONDS",
    "serve",
    "serve_async",
    "uvicorn_config",
]

logger = logging.getLogger("mcpkit.http")

DEFAULT_HOST: Final = "127.0.0.1"
"""Loopback only: a local MCP server must not be reachable from the network by accident."""
DEFAULT_PORT: Final = 8000
GRACEFUL_SHUTDOWN_SECONDS: Final = 5.0
"""On shutdown, open requests and streams get this long before they are cancelled."""
KEEP_ALIVE_SECONDS: Final = 30
"""Idle keep-alive connections are closed after this long."""
DEFAULT_LIMIT_CONCURRENCY: Final = 1000
"""Connections served at once; beyond this uvicorn answers 503 (a bound on memory and tasks)."""


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def uvicorn_config(
    app: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    log_level: str = "info",
    limit_concurrency: int | None = DEFAULT_LIMIT_CONCURRENCY,
    header_timeout: float | None = HEADER_TIMEOUT_SECONDS,
    max_connections_per_peer: int | None = MAX_CONNECTIONS_PER_PEER,
    **uvicorn_options: Any,
) -> Any:
    """A ``uvicorn.Config`` with mcpkit's defaults (any uvicorn option can be overridden).

    ``header_timeout`` and ``max_connections_per_peer`` are mcpkit's guard in front of uvicorn's
    HTTP protocol (see :mod:`mcpkit.transports.http._guard`): uvicorn itself never times out a
    connection that has not finished sending its first request's headers. ``None`` turns either
    off. The guard wraps whichever ``http`` implementation is chosen (a name or a class).
    """
    import uvicorn
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": log_level,
        "lifespan": "on",
        "http": "httptools" if _installed("httptools") else "h11",
        "loop": "uvloop" if _installed("uvloop") else "asyncio",
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS,
        "limit_concurrency": limit_concurrency,
    }
    options.update(uvicorn_options)
    http = options["http"]
    base = import_from_string(HTTP_PROTOCOLS.get(http, http)) if isinstance(http, str) else http
    if header_timeout is not None or max_connections_per_peer is not None:
        options["http"] = guarded_protocol(
            base, header_timeout=header_timeout, max_per_peer=max_connections_per_peer
        )
    return uvicorn.Config(app, **options)


async def _serve(config: Any, app: Any) -> None:
    import uvicorn

    try:
        await uvicorn.Server(config).serve()
    finally:
        close = getattr(app, "aclose", None)
        if close is not None:
            await close()  # resources the app owns (an event store it opened from a path)


async def serve_async(app: Any, **options: Any) -> None:
    """Serve ``app`` in the running event loop until uvicorn is told to stop (signals)."""
    await _serve(uvicorn_config(app, **options), app)


def serve(app: Any, **options: Any) -> None:
    """Serve ``app`` until interrupted (blocking), on uvloop when it is installed.

    Options: see :func:`uvicorn_config`. The app's ``aclose()`` (if any) runs at the end.
    """
    config = uvicorn_config(app, **options)
    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        runner.run(_serve(config, app))

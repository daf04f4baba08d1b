"""Run an ASGI app (usually :class:`~mcpkit.transports.http._server.asgi.McpHttpApp`) on uvicorn.

httptools and uvloop are used when installed (``mcpkit[speed]``): they roughly halve the server's
per-request cost. The defaults are for a local server: loopback only, and a bounded graceful
shutdown, because long-lived SSE streams would otherwise hold a shutdown forever.

Several workers: ``mcpkit run app.py --http --workers N`` binds the port once and starts N
processes that each serve on that inherited socket (:data:`LISTEN_FD_ENV`); see ``docs/deploy.md``
for what they must share (legacy sessions need the Redis stores, or stickiness).
"""

from __future__ import annotations

import asyncio
import errno
import importlib.util
import logging
import os
import socket
from collections.abc import Callable
from typing import Any, Final

from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http._server.client_limit import ClientLimit
from mcpkit.transports.http._server.guard import (
    HEADER_TIMEOUT_SECONDS,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_PEER,
    guarded_protocol,
)
from mcpkit.transports.http._server.proxies import TrustedProxies, proxy_spec

__all__ = [
    "DEFAULT_HOST",
    "HEADER_TIMEOUT_SECONDS",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_PEER",
    "DEFAULT_PORT",
    "GRACEFUL_SHUTDOWN_SECONDS",
    "KEEP_ALIVE_SECONDS",
    "LISTEN_FD_ENV",
    "listening_socket",
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
LISTEN_BACKLOG: Final = 2048
"""Pending connections the kernel queues for the server (uvicorn's own default)."""
DEFAULT_LIMIT_CONCURRENCY: Final = 1000
"""Requests served at once; beyond this the server answers 503 (a bound on memory and tasks).
Counted by mcpkit's guard over requests being served, not over open sockets (see ``_guard``)."""
DESCRIPTOR_RESERVE: Final = 64
"""Descriptors kept free for what the server opens itself (files, stdio children, Redis)."""
LISTEN_FD_ENV: Final = "MCPKIT_LISTEN_FD"
"""Set by a supervisor (``mcpkit run --workers N``) to a listening socket's file descriptor the
process inherited: :func:`serve` then accepts on it instead of binding ``host:port`` itself, so
several processes share one port and the kernel spreads connections over them."""


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
    max_connections: int | None = MAX_CONNECTIONS,
    forwarded_allow_ips: str | list[str] | None = None,
    **uvicorn_options: Any,
) -> Any:
    """A ``uvicorn.Config`` with mcpkit's defaults (any uvicorn option can be overridden).

    ``header_timeout``, ``max_connections_per_peer``, ``max_connections`` and
    ``limit_concurrency`` are enforced by mcpkit's guard in front of uvicorn's HTTP protocol (see
    :mod:`mcpkit.transports.http._server.guard`): uvicorn itself never times out a connection that
    has
    not finished sending its first request's headers, and its ``limit_concurrency`` counts
    sockets, so sockets that never finish their headers would take every slot. ``None`` turns
    each off. ``max_connections`` is lowered to the process's descriptor limit (less
    :data:`DESCRIPTOR_RESERVE`). The guard wraps whichever ``http`` implementation is chosen (a
    name or a class).

    ``forwarded_allow_ips`` (addresses or networks, comma-separated or a list; ``"*"`` trusts
    all; default: ``FORWARDED_ALLOW_IPS`` or loopback, as uvicorn) are the reverse proxies in
    front of the server. uvicorn takes the client's address from their ``X-Forwarded-For``;
    their connections are not capped per address (they carry every client), and each forwarded
    client may hold ``max_connections_per_peer`` open requests instead
    (:mod:`mcpkit.transports.http._server.client_limit`). The app's health path (``/healthz``) is
    never refused by a per-client cap.
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
        "limit_concurrency": None,  # the guard's, counting requests (see the docstring)
    }
    options.update(uvicorn_options)
    proxies = proxy_spec(forwarded_allow_ips)
    options["forwarded_allow_ips"] = proxies
    health_path = _health_path(app)
    http = options["http"]
    base = import_from_string(HTTP_PROTOCOLS.get(http, http)) if isinstance(http, str) else http
    options["http"] = guarded_protocol(
        base,
        header_timeout=header_timeout,
        max_per_peer=max_connections_per_peer,
        limit_concurrency=limit_concurrency,
        max_connections=_descriptor_bound(max_connections),
        trusted=TrustedProxies(proxies) if options.get("proxy_headers", True) else None,
        health_path=health_path,
    )
    if max_connections_per_peer is not None:
        app = ClientLimit(app, max_connections_per_peer, health_path=health_path)
    return uvicorn.Config(app, **options)


def _descriptor_bound(max_connections: int | None) -> int | None:
    """``max_connections``, lowered so the sockets fit in the descriptor limit (an ``accept``
    that fails with ``EMFILE`` is worse than a connection cut by the guard)."""
    if max_connections is None:
        return None
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no descriptor limit to read
        return max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return max_connections
    return max(1, min(max_connections, soft - DESCRIPTOR_RESERVE))


def _health_path(app: Any) -> str | None:
    """The app's health-check path (an :class:`McpHttpApp`'s ``health_path``), if it has one."""
    path = getattr(getattr(app, "options", None), "health_path", None)
    return path if isinstance(path, str) else None


def listening_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0: a free one), inheritable by children.

    What :func:`serve` accepts on, and what a supervisor binds once and hands to its worker
    processes (:data:`LISTEN_FD_ENV`; ``mcpkit run --workers``).

    Bound here, before uvicorn starts, so a port in use is one clear ``OSError`` (errno
    ``EADDRINUSE``) instead of uvicorn's log lines and ``sys.exit(1)``, and the real port is
    known (and connectable: it already listens) before the first request.

    ``reuse_port``: ``SO_REUSEPORT``, so several sockets (one per worker) can listen on one port
    and the kernel hands each new connection to one of them (``mcpkit run --workers N
    --reuse-port``).
    """
    address = host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    # IPPROTO_TCP, not 0: accepted sockets inherit the listener's ``proto``, and asyncio only
    # sets TCP_NODELAY on sockets whose ``proto`` says TCP. Without it, a response written in
    # two pieces (headers, then body: h11, SSE events) waits for the client's delayed ACK
    # (~40 ms on Linux) before its second piece leaves.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((address, port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise OSError(
                errno.EADDRINUSE,
                f"port {port} on {host} is already in use (another server, or this one "
                "still running)",
            ) from None
        raise
    sock.set_inheritable(True)
    return sock


def _inherited_listener() -> socket.socket | None:
    """The listening socket a supervisor handed down (:data:`LISTEN_FD_ENV`), if any.

    The variable is removed once read: a process this server starts (a stdio tool server, say)
    must not believe it was handed the socket too.
    """
    text = os.environ.pop(LISTEN_FD_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise UsageError(f"{LISTEN_FD_ENV}={text!r} is not a file descriptor number")
    try:
        sock = socket.socket(fileno=int(text))
    except OSError as exc:
        raise UsageError(
            f"{LISTEN_FD_ENV}={text}: not an open socket in this process ({exc.strerror or exc})"
        ) from None
    if (
        sock.type != socket.SOCK_STREAM
        or sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) != 1
    ):
        sock.detach()  # not ours to close
        raise UsageError(f"{LISTEN_FD_ENV}={text}: not a listening TCP socket")
    return sock


async def _serve(
    config: Any,
    app: Any,
    sockets: list[socket.socket] | None = None,
    on_started: Callable[[], None] | None = None,
) -> None:
    import uvicorn

    class _Server(uvicorn.Server):
        """uvicorn, telling the app when shutdown starts: uvicorn waits for open responses
        before the lifespan shutdown, and an open ``subscriptions/listen`` only ends when the
        app ends it (with its final result). ``on_started`` runs once startup is done, inside
        uvicorn's signal handling: an interrupt from then on stops the server."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if on_started is not None and not self.should_exit:
                on_started()

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for listener in self.servers:
                listener.close()  # no new connections (so no new listens) from here on
            begin = getattr(app, "begin_shutdown", None)
            if begin is not None:
                begin()
            await super().shutdown(sockets)

    try:
        await _Server(config).serve(sockets=sockets)
    finally:
        close = getattr(app, "aclose", None)
        if close is not None:
            await close()  # resources the app owns (an event store it opened from a path)


async def serve_async(app: Any, **options: Any) -> None:
    """Serve ``app`` in the running event loop until uvicorn is told to stop (signals)."""
    await _serve(uvicorn_config(app, **options), app)


def serve(
    app: Any, *, on_listening: Callable[[str, int], None] | None = None, **options: Any
) -> None:
    """Serve ``app`` until interrupted (blocking), on uvloop when it is installed.

    Options: see :func:`uvicorn_config`. The socket is bound before uvicorn starts: a port in
    use raises ``OSError`` (``errno.EADDRINUSE``) with a one-line message, and
    ``on_listening(host, port)`` is called with the real port (``port=0`` picks a free one)
    once the server has started, connections are accepted and an interrupt (Ctrl-C, SIGTERM)
    stops it: announced any earlier, a Ctrl-C sent on seeing the announcement could land
    during start-up and be lost, leaving the server running. A socket handed down by a
    supervisor (:data:`LISTEN_FD_ENV`) is used instead of binding one. The app's ``aclose()``
    (if any) runs at the end.
    """
    config = uvicorn_config(app, **options)
    sockets = None
    on_started = None
    if config.uds is None and config.fd is None:
        inherited = _inherited_listener()
        sockets = [
            inherited if inherited is not None else listening_socket(config.host, config.port)
        ]
        if on_listening is not None:
            bound_host, bound_port = sockets[0].getsockname()[:2]
            announced_host = config.host if inherited is None else bound_host
            listening = on_listening

            def on_started() -> None:
                listening(announced_host, bound_port)

    try:
        with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
            runner.run(_serve(config, app, sockets, on_started))
    except KeyboardInterrupt:
        # Ctrl-C: uvicorn has shut down gracefully and raised the signal again for whoever
        # handled it before; asyncio's runner turns that into KeyboardInterrupt. The server
        # was told to stop and has stopped: a return, not a traceback.
        pass
    finally:
        for sock in sockets or ():
            sock.close()

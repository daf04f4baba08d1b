"""Serving the inspector: a loopback socket, a fresh token, uvicorn, and the first connection.

The port is bound before the app is built so that the printed URL, the ``Host`` check and the
server agree, including with ``--port 0`` (any free port, the default). The target given on the
command line is connected before the URL is printed, so the page opens on a live server; a
target that fails to start is reported and the page still opens, to fix it there.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import sys
import webbrowser
from typing import Final, TextIO

from mcpkit.cli.inspector._app import InspectorApp
from mcpkit.cli.inspector._events import EventHub
from mcpkit.cli.inspector._session import ConnectSpec, InspectorError, InspectorSession

__all__ = ["LOOPBACK", "bind_loopback", "inspector_url", "serve_inspector"]

LOOPBACK: Final = "127.0.0.1"
TOKEN_BYTES: Final = 24
SHUTDOWN_GRACE_SECONDS: Final = 2
"""On Ctrl-C, how long open pages (their event streams never end) may hold the exit."""


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def inspector_url(port: int, token: str) -> str:
    return f"http://{LOOPBACK}:{port}/?token={token}"


async def serve_inspector(
    spec: ConnectSpec | None,
    *,
    port: int = 0,
    open_browser: bool = False,
    token: str | None = None,
    out: TextIO = sys.stdout,
) -> None:
    """Serve the inspector until interrupted (Ctrl-C / SIGTERM)."""
    import uvicorn

    sock = bind_loopback(port)
    port = sock.getsockname()[1]
    sandbox = bind_loopback(0)  # MCP Apps views: another origin than the page's
    token = token or secrets.token_urlsafe(TOKEN_BYTES)
    session = InspectorSession(EventHub())
    app = InspectorApp(session, token=token, port=port, sandbox_port=sandbox.getsockname()[1])
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
    )
    server = uvicorn.Server(config)
    try:
        if spec is not None:
            try:
                summary = await session.connect(spec)
                info = summary.get("serverInfo") or {}
                out.write(
                    f"connected to {info.get('name', spec.target)} "
                    f"({summary['era']}, {summary['protocolVersion']})\n"
                )
            except InspectorError as exc:
                out.write(f"could not connect to {spec.target}: {exc}\n")
        url = inspector_url(port, token)
        out.write(f"mcpkit inspector: {url}\n")
        out.flush()
        if open_browser:
            with contextlib.suppress(Exception):
                webbrowser.open(url)
        await server.serve(sockets=[sock, sandbox])
    finally:
        await session.aclose()
        sock.close()
        sandbox.close()


def run_inspector(spec: ConnectSpec | None, *, port: int, open_browser: bool) -> int:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_inspector(spec, port=port, open_browser=open_browser))
    return 0

"""Reach :mod:`kit.feature_server` over every transport, in either era.

``memory`` runs the server in-process (through the JSON codec); ``stdio`` starts it as a real
subprocess; ``http-json`` and ``http-sse`` talk to a real uvicorn process on loopback that
answers every POST as JSON, or as an SSE stream. HTTP server processes are shared by a test
module (:func:`serve_http`, started by the module-scoped fixture in
``tests/interaction/conftest.py``); each test opens its own client connection, so tests do not
share protocol state (log level, subscriptions, sessions).
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

from kit.feature_server import build_server
from mcpkit.client import Client
from mcpkit.testing import ERAS

__all__ = [
    "ERAS",
    "HTTP_TRANSPORTS",
    "QUESTION_ROUTES",
    "SERVER_SCRIPT",
    "STREAMING_TRANSPORTS",
    "TRANSPORTS",
    "open_client",
    "serve_http",
]

TRANSPORTS: Final = ("memory", "stdio", "http-json", "http-sse")
HTTP_TRANSPORTS: Final = ("http-json", "http-sse")
STREAMING_TRANSPORTS: Final = ("memory", "stdio", "http-sse")
"""Transports that carry server messages while a request runs (``http-json`` answers a POST
with one JSON body: no progress, log messages or questions on the way)."""
QUESTION_ROUTES: Final = tuple(
    (transport, era)
    for transport in TRANSPORTS
    for era in ERAS
    if transport in STREAMING_TRANSPORTS or era == "2026-07-28"
)
"""(transport, era) pairs where a tool can ask the client (elicitation, sampling, roots): a
legacy server asks inside the open request, which needs a stream; a 2026 server answers
``input_required`` and the client calls again, which plain JSON answers carry too."""
SERVER_SCRIPT: Final = Path(__file__).with_name("feature_server.py")
START_TIMEOUT_S: Final = 60.0
"""A cold interpreter importing mcpkit and uvicorn on a busy 2-core machine."""
CLIENT_TIMEOUT_S: Final = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


@contextlib.contextmanager
def serve_http(transport: str) -> Iterator[str]:
    """Run the feature server over HTTP (``http-json`` or ``http-sse``); yield its URL.

    Ready once it prints where it serves (bounded wait); killed on exit.
    """
    flag = {"http-json": "--json", "http-sse": "--sse"}[transport]
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT), "--http", "--port", str(port), flag],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, env=_environment(),
    )  # fmt: skip
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        seen: list[str] = []
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            assert line is not None, f"the HTTP server exited before serving: {''.join(seen)}"
            seen.append(line)
            if "mcpkit: serving" in line:
                break
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(timeout=START_TIMEOUT_S)


@contextlib.asynccontextmanager
async def open_client(
    transport: str, era: str, *, url: str | None = None, **options: Any
) -> AsyncIterator[Client]:
    """A connected client to the feature server over ``transport`` in ``era``.

    ``url`` is the running HTTP server's (for the HTTP transports); ``options`` go to
    :class:`~mcpkit.client.Client` (question handlers, roots, a logging handler ...).
    """
    target: Any
    mode: Any = era  # "legacy", "2026-07-28" or "auto"
    if transport == "memory":
        server = build_server()
        async with (
            server.running(),
            Client(server, mode=mode, timeout=CLIENT_TIMEOUT_S, **options) as client,
        ):
            yield client
        return
    if transport == "stdio":
        target = [sys.executable, str(SERVER_SCRIPT)]
    elif transport in HTTP_TRANSPORTS:
        assert url is not None, "start the HTTP server first (serve_http)"
        target = url
    else:
        raise ValueError(f"unknown transport {transport!r}")
    async with Client(target, mode=mode, timeout=CLIENT_TIMEOUT_S, **options) as client:
        yield client

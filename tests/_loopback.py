"""An ASGI app served by uvicorn on 127.0.0.1 inside the test's event loop.

The socket is bound and listening before uvicorn starts, so a request made as soon as the
context is entered waits in the kernel's backlog instead of racing the start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any, Final

import uvicorn

STOP_TIMEOUT: Final = 10.0


@contextlib.asynccontextmanager
async def serving(app: Any, *, lifespan: str = "on") -> AsyncIterator[str]:
    """Serve ``app`` on a free loopback port; yields ``http://127.0.0.1:N``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan=lifespan))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        server.force_exit = True  # open SSE streams would otherwise hold the shutdown
        try:
            await asyncio.wait_for(task, STOP_TIMEOUT)
        finally:
            sock.close()

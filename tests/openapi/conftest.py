"""Fixtures for the OpenAPI tests: the product-search example importable, and real uvicorn
servers on loopback ports (bound before uvicorn starts, so nothing polls for readiness)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import pytest

EXAMPLES: Final = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

STOP_TIMEOUT: Final = 10.0


@contextlib.asynccontextmanager
async def serve(app: Any, *, lifespan: str = "off") -> AsyncIterator[str]:
    """Serve an ASGI app with uvicorn on a fresh loopback port for the block; yields its URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan=lifespan)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        try:
            async with asyncio.timeout(STOP_TIMEOUT):
                await task
        finally:
            sock.close()


@pytest.fixture
def catalog(tmp_path: Path) -> Any:
    from product_search.catalog import Catalog

    catalog = Catalog(tmp_path / "products.db")
    yield catalog
    catalog.close()

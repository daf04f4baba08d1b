"""Start the four example servers the way a deployment would mix them.

=========  =========  ==============================
server     transport  era
=========  =========  ==============================
profile    stdio      handshake only (2025-11-25)
catalog    stdio      both (a 2026-07-28 client gets 2026)
inventory  HTTP       both (2026-07-28)
ranking    HTTP       handshake only (2025-11-25)
=========  =========  ==============================

``async with running_servers(data) as config:`` starts the HTTP ones as child processes on free
loopback ports and yields an ``mcpServers`` mapping for ``Host`` (the stdio ones are started by
the host itself). ``legacy_inventory=True`` runs the inventory over stdio, handshake era only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

HERE: Final = Path(__file__).resolve().parent
START_TIMEOUT: Final = 30.0
"""Seconds an HTTP server may take to print its port."""

__all__ = ["HERE", "http_server", "running_servers", "stdio_entry"]


def stdio_entry(script: str, data: Path, *flags: str) -> dict[str, Any]:
    """An ``mcpServers`` stdio entry for one of the servers here."""
    return {
        "command": sys.executable,
        "args": [str(HERE / script), *flags],
        "env": {"MCPKIT_EXAMPLES_DATA": str(data)},
    }


@contextlib.asynccontextmanager
async def http_server(script: str, data: Path, *flags: str) -> AsyncIterator[str]:
    """Run ``script --http`` as a child process; yield its URL; stop it at the end."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE / script),
        "--http",
        *flags,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "MCPKIT_EXAMPLES_DATA": str(data), "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
        if not line.startswith(b"PORT "):
            raise RuntimeError(f"{script} did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()


@contextlib.asynccontextmanager
async def running_servers(
    data: Path, *, legacy_inventory: bool = False
) -> AsyncIterator[dict[str, Any]]:
    """The four servers as an ``mcpServers`` mapping (HTTP ones running while inside)."""
    async with contextlib.AsyncExitStack() as stack:
        servers: dict[str, Any] = {
            "profile": stdio_entry("profile_server.py", data, "--legacy-only"),
            "catalog": stdio_entry("catalog_server.py", data),
        }
        if legacy_inventory:
            servers["inventory"] = stdio_entry("inventory_server.py", data, "--legacy-only")
        else:
            url = await stack.enter_async_context(http_server("inventory_server.py", data))
            servers["inventory"] = {"url": url}
        url = await stack.enter_async_context(
            http_server("ranking_server.py", data, "--legacy-only")
        )
        servers["ranking"] = {"url": url}
        yield {"mcpServers": servers}

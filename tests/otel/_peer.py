"""The traced server process (``peers/traced_server.py``) over HTTP, and reading its spans."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

PEER: Final = Path(__file__).resolve().parent / "peers" / "traced_server.py"
START_TIMEOUT: Final = 30.0
STOP_TIMEOUT: Final = 10.0


@contextlib.asynccontextmanager
async def http_peer(spans: Path, *flags: str) -> AsyncIterator[str]:
    """A traced server process on loopback; yields its MCP URL once its socket listens."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(PEER),
        str(spans),
        "--http",
        *flags,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
        assert line.startswith(b"PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                process.kill()
                await process.wait()


def served(spans: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The one ``SERVER`` span named ``name`` among a peer's spans."""
    found = [s for s in spans if s["name"] == name and s["kind"] == "SERVER"]
    assert len(found) == 1, [(s["name"], s["kind"]) for s in spans]
    return found[0]

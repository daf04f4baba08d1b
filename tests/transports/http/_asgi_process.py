"""``_asgi_servers.py`` as a real process on the default serve path (``server.run("http")``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

from _asgi_harness import bound

SERVER: Final = Path(__file__).with_name("_asgi_servers.py")
START_TIMEOUT_S: Final = 20.0
"""A cold Python start that imports mcpkit and uvicorn on a busy 2-core machine."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def server_process(*args: str) -> AsyncIterator[str]:
    """``server.run("http")`` in a process; yields its base URL once uvicorn is listening."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SERVER), "--port", str(port), *args,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    seen: list[bytes] = []
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while b"mcpkit: serving" not in (line := await process.stderr.readline()):
                seen.append(line)
                assert line, f"the server exited before listening: {b''.join(seen)!r}"
        drain = asyncio.create_task(process.stderr.read())  # keep the log pipe from filling up
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            drain.cancel()
    finally:
        if process.returncode is None:
            process.kill()
        await bound(process.wait())

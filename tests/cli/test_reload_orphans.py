"""``mcpkit run --reload`` leaves no child behind when the reloader itself is killed (SIGTERM or
SIGKILL): the served process ends with it.

The child is an HTTP server (``--http``), which has no stdin to notice the end of, so only the
parent-death machinery can stop it. It inherits the reloader's stdout pipe: reading that pipe to
its end finishes only once *every* process holding it has exited, which is the event the test
waits for (bounded) instead of polling process tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from pathlib import Path
from typing import Final

import pytest

from ._process import free_port
from ._run import MCPKIT

SERVER: Final = """
from mcpkit.server import Server

app = Server("reloading")


@app.tool
def first() -> str:
    return "one"
"""
START_BOUND_S: Final = 60.0
"""Two cold Python starts (reloader, then the server) on a busy 2-core machine."""
GONE_BOUND_S: Final = 20.0
"""The child's graceful stop after SIGTERM (uvicorn gives open requests 5 s)."""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
async def test_killing_the_reloader_takes_its_server_with_it(
    tmp_path: Path, signum: signal.Signals
) -> None:
    source = tmp_path / "reloading.py"
    source.write_text(SERVER)
    port = free_port()
    reloader = await asyncio.create_subprocess_exec(
        *MCPKIT, "run", "--reload", "--http", "--port", str(port), str(source),
        cwd=tmp_path,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert reloader.stdout is not None and reloader.stderr is not None
    child: int | None = None
    seen: list[bytes] = []
    try:
        async with asyncio.timeout(START_BOUND_S):
            while b"Application startup complete" not in (line := await reloader.stderr.readline()):
                assert line, f"the server did not start: {b''.join(seen)!r}"
                seen.append(line)
                found = re.search(rb"serving \(pid (\d+)\)", line)
                if found:
                    child = int(found.group(1))
        assert child is not None
        drain = asyncio.create_task(reloader.stderr.read())
        reloader.send_signal(signum)
        async with asyncio.timeout(GONE_BOUND_S):
            await reloader.wait()
            assert await reloader.stdout.read() == b""  # EOF: the child closed it too
        await drain
    finally:
        if reloader.returncode is None:
            reloader.kill()
            await reloader.wait()
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)  # only if the test failed: never leak it

"""Worker processes of one deployment sharing one Redis (``_redis_worker.py``), for the tests.

Each worker is a real ``server.run("http", state=RedisState(...))`` process on its own port; a
test talks to them directly (a different worker per request, as a round-robin proxy would).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

WORKER: Final = Path(__file__).with_name("_redis_worker.py")
_SERVING: Final = re.compile(rb"mcpkit: serving .* at http://127\.0\.0\.1:(\d+)/")
"""The worker binds port 0 and says which port it got (a port picked free beforehand could be
taken by another test's server before the worker binds it)."""
START_TIMEOUT_S: Final = 30.0
"""A cold Python start importing mcpkit, uvicorn and redis on a busy 2-core machine."""


class Worker:
    def __init__(self, process: asyncio.subprocess.Process, port: int) -> None:
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self._drain: asyncio.Task[bytes] | None = None

    def kill(self) -> None:
        """``kill -9``: no shutdown, no goodbye to Redis."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)


async def start_worker(
    redis_url: str, prefix: str, *, lease: float = 10.0, sse_after: float = 0.05
) -> Worker:
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), "--port", "0", "--redis-url", redis_url,
        "--prefix", prefix, "--lease", str(lease), "--sse-after", str(sse_after),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    seen: list[bytes] = []
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while (serving := _SERVING.search(line := await process.stderr.readline())) is None:
                seen.append(line)
                assert line, f"the worker exited before listening: {b''.join(seen)!r}"
    except BaseException:
        process.kill()
        await process.wait()
        raise
    worker = Worker(process, int(serving.group(1)))
    worker._drain = asyncio.ensure_future(process.stderr.read())  # keep its log pipe flowing
    return worker


async def stop_worker(worker: Worker) -> None:
    if worker.process.returncode is None:
        worker.process.terminate()
        try:
            async with asyncio.timeout(10):
                await worker.process.wait()
        except TimeoutError:
            worker.kill()
            await worker.process.wait()
    if worker._drain is not None:
        worker._drain.cancel()


@contextlib.asynccontextmanager
async def workers(
    redis_url: str, prefix: str, count: int, **kw: float
) -> AsyncIterator[list[Worker]]:
    started = await asyncio.gather(*(start_worker(redis_url, prefix, **kw) for _ in range(count)))
    try:
        yield list(started)
    finally:
        await asyncio.gather(*(stop_worker(w) for w in started))

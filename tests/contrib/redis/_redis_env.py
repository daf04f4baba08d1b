"""Finding Redis for the tests, throwaway key prefixes, and private redis-server processes.

The shared Redis at 127.0.0.1:6379 is used with a fresh key prefix per test and those keys only
are deleted afterwards (it is never flushed or restarted). Fault tests start their *own*
``redis-server`` on a free port without persistence, kill it and start it again.

No Redis answering: the tests are skipped with the reason shown, except under ``CI=true`` where
they fail (CI must run them).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Final

import pytest

REDIS_URL: Final = os.environ.get("MCPKIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
START_TIMEOUT_S: Final = 10.0


def redis_answers(host: str = "127.0.0.1", port: int = 6379, timeout: float = 0.5) -> bool:
    """Whether a Redis answers PING at ``host:port`` (a raw socket: no client library needed)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def require_redis() -> None:
    """Skip (or fail under CI) when no Redis answers at the test URL."""
    if redis_answers():
        return
    why = f"no Redis answers at {REDIS_URL} (start one: redis-server --save '' --appendonly no)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must run the Redis tests: {why}")
    pytest.skip(why)


def new_prefix() -> str:
    return f"mcpkit-test:{secrets.token_hex(6)}:"


async def delete_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix`` (and nothing else)."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=500)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PrivateRedis:
    """A ``redis-server`` of this test's own, on a free port, without persistence."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail("CI must run the Redis fault tests: redis-server is not installed")
            pytest.skip("redis-server is not installed (apt install redis-server)")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(int(START_TIMEOUT_S / 0.02)):
            if redis_answers(port=self.port):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(0.02)  # a bounded pause between connection attempts
        raise RuntimeError(f"redis-server did not answer on port {self.port}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        self.process = None


@contextlib.contextmanager
def private_redis(workdir: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(workdir)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@contextlib.asynccontextmanager
async def prefixed(url: str = REDIS_URL) -> AsyncIterator[str]:
    prefix = new_prefix()
    try:
        yield prefix
    finally:
        await delete_prefix(url, prefix)

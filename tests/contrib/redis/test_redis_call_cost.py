"""What a legacy call costs in Redis (issue #29, item 5), counted with ``MONITOR`` against a real
worker process (``_redis_worker.py``): one round trip per call answered as JSON, and the session
written (last use, index, expiry) at most once per ``RENEW_AFTER_SECONDS``, not on every call."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx
import pytest
from _asgi_harness import LegacyPeer, bound
from _redis_env import REDIS_URL
from _workers import Worker, workers

from mcpkit.contrib.redis._sessions import RENEW_AFTER_SECONDS

CALLS: Final = 20
WAIT_S: Final = 30.0


@pytest.fixture
async def worker(prefix: str) -> AsyncIterator[Worker]:
    async with workers(REDIS_URL, prefix, 1) as (started,):
        yield started


class Monitor:
    """Redis ``MONITOR`` in a thread, from :meth:`start` until the marker :meth:`stop` sends."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.lines: list[dict[str, Any]] = []
        self.live = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        try:
            with client.monitor() as monitor:
                self.live.set()
                for line in monitor.listen():
                    if self.marker in line["command"] and line.get("client_type") != "lua":
                        return
                    self.lines.append(line)
        finally:
            client.close()

    async def start(self) -> None:
        self._thread.start()
        assert await asyncio.to_thread(self.live.wait, WAIT_S)

    async def stop(self) -> list[dict[str, Any]]:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(REDIS_URL)
        try:
            await client.echo(self.marker)
        finally:
            await client.aclose()
        await asyncio.to_thread(self._thread.join, WAIT_S)
        assert not self._thread.is_alive()
        return self.lines


async def test_a_legacy_call_reads_its_session_in_one_round_trip_and_renews_it_lazily(
    worker: Worker, prefix: str
) -> None:
    async with httpx.AsyncClient(timeout=httpx.Timeout(WAIT_S)) as http:
        peer = LegacyPeer(http, path=f"{worker.url}/mcp")
        await peer.initialize()
        session = peer.session_id
        record = f"{prefix}s:{session}"
        monitor = Monitor(f"{prefix}end-of-calls")
        await monitor.start()
        began = time.monotonic()
        for index in range(CALLS):
            reply = await bound(peer.call(100 + index, "tools/call", {"name": "whoami"}))
            assert reply["result"]["structuredContent"]["result"] == worker.process.pid
        elapsed = time.monotonic() - began
        lines = await monitor.stop()
    round_trips = [
        line for line in lines if line.get("client_type") != "lua" and record in line["command"]
    ]
    writes = [
        line
        for line in lines
        if line.get("client_type") == "lua"
        and record in line["command"]
        and not line["command"].startswith("HMGET")
    ]
    assert len(round_trips) == CALLS, [line["command"][:80] for line in round_trips]
    assert all(line["command"].startswith("EVALSHA") for line in round_trips)
    # a renewal writes the record's last use and expiry (2 commands naming the record): at most
    # one per RENEW_AFTER_SECONDS (plus the first), where every call used to write them
    renewals = len(writes) / 2
    assert renewals <= 1 + elapsed / RENEW_AFTER_SECONDS < CALLS, (elapsed, len(writes))

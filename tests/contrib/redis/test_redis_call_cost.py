"""What a legacy call costs in Redis (issue #29, item 5), counted with ``MONITOR`` against a real
worker process (``_redis_worker.py``): a busy session is read from Redis only when its last use
must be written (at most once per ``RENEW_AFTER_SECONDS``; the rest are served from the
worker's tracked cache), so a call answered as JSON mostly makes no round trip; a call answered
as SSE adds one write the worker does not wait for (no reply), still resumable."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx
import pytest
from _asgi_harness import LegacyPeer, bound, call_body, collect_sse, sse_messages
from _redis_env import REDIS_URL
from _workers import Worker, workers

from mcpkit.contrib.redis._sessions import RENEW_AFTER_SECONDS

CALLS: Final = 20
WAIT_S: Final = 30.0


STREAM_WRITE: Final = ("HSETNX", "PEXPIRE", "HSET", "PEXPIRE", "XADD", "PEXPIRE")
"""The commands that store a one-message SSE answer's stream (its index entry, metadata and
entry, each with its expiry), inside one script."""


@pytest.fixture
async def worker(prefix: str) -> AsyncIterator[Worker]:
    async with workers(REDIS_URL, prefix, 1) as (started,):
        yield started


@pytest.fixture
async def sse_worker(prefix: str) -> AsyncIterator[Worker]:
    """A worker that answers every request as an SSE stream (``sse_after=0``)."""
    async with workers(REDIS_URL, prefix, 1, sse_after=0.0) as (started,):
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


async def test_a_busy_session_is_read_from_redis_only_to_renew_it(
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
    # a read that renews (or the first, after initialize's snapshot) goes to Redis; the others
    # are served from the cache Redis invalidates
    assert 1 <= len(round_trips) <= 1 + elapsed / RENEW_AFTER_SECONDS < CALLS, (
        elapsed,
        [line["command"][:80] for line in round_trips],
    )
    assert all(line["command"].startswith("EVALSHA") for line in round_trips)
    # a renewal writes the record's last use and expiry (2 commands naming the record): at most
    # one per RENEW_AFTER_SECONDS (plus the first), where every call used to write them
    renewals = len(writes) / 2
    assert renewals <= 1 + elapsed / RENEW_AFTER_SECONDS < CALLS, (elapsed, len(writes))


async def test_an_sse_call_stores_its_stream_unanswered_and_reads_its_session_from_the_cache(
    sse_worker: Worker, prefix: str
) -> None:
    """Per SSE call: the whole stream in one ``EVAL`` after ``CLIENT REPLY SKIP`` (Redis sends
    nothing back, the worker waits for nothing), six commands inside it; the session is read
    from Redis only to renew it. The stream is stored all the same: a client resuming from the
    priming id gets the answer replayed."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(WAIT_S)) as http:
        peer = LegacyPeer(http, path=f"{sse_worker.url}/mcp")
        await peer.initialize()
        record = f"{prefix}s:{peer.session_id}"
        monitor = Monitor(f"{prefix}end-of-calls")
        await monitor.start()
        primes: list[str] = []
        began = time.monotonic()
        for index in range(CALLS):
            body = call_body(100 + index, "whoami_now")
            async with http.stream("POST", peer.path, json=body, headers=peer.headers()) as sse:
                assert sse.headers["content-type"].startswith("text/event-stream")
                events = await bound(collect_sse(sse, until_id=100 + index))
            assert sse_messages(events)[-1]["result"]["structuredContent"]["result"] == (
                sse_worker.process.pid
            )
            assert events[0].id and not events[0].data  # the priming event
            primes.append(events[0].id)
        elapsed = time.monotonic() - began
        lines = await monitor.stop()
        resumed = peer.headers(**{"last-event-id": primes[CALLS // 2]})
        async with http.stream("GET", peer.path, headers=resumed) as replay:
            assert replay.status_code == 200
            events = await bound(collect_sse(replay, until_id=100 + CALLS // 2))
        assert sse_messages(events)[-1]["result"]["structuredContent"]["result"] == (
            sse_worker.process.pid
        )
    reads = [
        line for line in lines if line.get("client_type") != "lua" and record in line["command"]
    ]
    assert 1 <= len(reads) <= 1 + elapsed / RENEW_AFTER_SECONDS < CALLS, (elapsed, len(reads))
    assert all(line["command"].startswith("EVALSHA") for line in reads)
    # everything the worker's lean connection sent while the calls ran (one connection: its
    # stream writes name it; the session reads go on the tracked one)
    wire = {
        (line["client_address"], line["client_port"])
        for line in lines
        if line.get("client_type") != "lua" and line["command"].startswith("EVAL ")
    }
    assert len(wire) == 1
    sent = [
        line["command"].split(" ", 1)[0]
        for line in lines
        if line.get("client_type") != "lua"
        and (line["client_address"], line["client_port"]) in wire
    ]
    assert sent == ["CLIENT", "EVAL"] * CALLS, sent
    stream_prefix = f"{prefix}ev"
    in_scripts = [
        line["command"].split(" ", 1)[0]
        for line in lines
        if line.get("client_type") == "lua"
        and (f"{prefix}evs:" in line["command"] or stream_prefix in line["command"])
    ]
    assert in_scripts == list(STREAM_WRITE) * CALLS, in_scripts

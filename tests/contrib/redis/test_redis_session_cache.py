"""The session records a worker keeps until Redis says they changed (``_cache.SessionCache``,
``CLIENT TRACKING`` on the session store's own connection), against a real Redis. Two store
instances, each with its own connections, stand for two workers.

Covered: a record read once is served from memory (no round trip) while the read would write
nothing; a DELETE, a new snapshot or a renewal through the other worker drops it as soon as
Redis' push arrives (waited on, bounded); this worker's own renewal keeps it tracked; a dropped
tracking connection (``CLIENT KILL``), a flush and a restarted Redis empty the cache; the key's
expiry bounds an entry; the cache holds at most its size; a worker refuses a session deleted
through another worker at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
from _asgi_harness import LegacyPeer, bound, call_body
from _redis_env import REDIS_URL, PrivateRedis, new_prefix
from _workers import workers

from mcpkit.contrib.redis import RedisSessionStore
from mcpkit.contrib.redis._conn import RedisOptions, connect
from mcpkit.contrib.redis._sessions import RENEW_AFTER_SECONDS
from mcpkit.contrib.redis._wire import wire_for

pytest.importorskip("hiredis")

WAIT_S: Final = 10.0
VERSION: Final = "2025-11-25"
SNAPSHOT: Final = {"state": "operating", "subscriptions": [], "logLevel": "info"}


class Changes:
    """What a store's cache dropped for Redis' reasons, waited on (never slept on)."""

    def __init__(self, store: RedisSessionStore) -> None:
        assert store.cache is not None
        self.seen: list[list[str] | None] = []
        self._event = asyncio.Event()
        store.cache.on_change = self._note

    def _note(self, dropped: list[str] | None) -> None:
        self.seen.append(dropped)
        self._event.set()

    async def until(self, wanted: Callable[[list[str] | None], bool]) -> None:
        """Wait (bounded) until a change matching ``wanted`` was seen."""
        async with asyncio.timeout(WAIT_S):
            while not any(wanted(change) for change in self.seen):
                self._event.clear()
                await self._event.wait()

    async def dropped(self, session_id: str) -> None:
        await self.until(lambda change: change is not None and session_id in change)

    async def emptied(self) -> None:
        await self.until(lambda change: change is None)


@contextlib.asynccontextmanager
async def worker_store(url: str, prefix: str, **options: Any) -> AsyncIterator[RedisSessionStore]:
    """A session store as a worker has it: its own client, lean and tracked connections."""
    settings = RedisOptions(url)
    client = connect(settings)
    wire = wire_for(client, settings)
    assert wire is not None
    store = RedisSessionStore(client, prefix=prefix, idle_timeout=60, wire=wire, **options)
    try:
        yield store
    finally:
        await store.aclose()
        await wire.aclose()
        await client.aclose()


async def _session(store: RedisSessionStore, now: float) -> str:
    made = await store.create(protocol_version=VERSION, now=now)
    await store.save_snapshot(made.id, SNAPSHOT, None)
    return made.id


async def test_a_session_deleted_on_another_worker_is_refused_once_redis_says_so(
    prefix: str,
) -> None:
    async with worker_store(REDIS_URL, prefix) as a, worker_store(REDIS_URL, prefix) as b:
        session = await _session(a, 1000.0)
        first = await a.touch(session, 1000.0)
        assert first is not None and first.snapshot == SNAPSHOT
        assert a.tracked_wire is not None and a.tracked_wire.tracking
        # under a renewal period since its last use: the same record, no round trip
        assert await a.touch(session, 1000.0 + RENEW_AFTER_SECONDS / 2) is first
        changes = Changes(a)
        assert await b.delete(session) is not None
        await changes.dropped(session)
        assert await a.touch(session, 1000.0 + RENEW_AFTER_SECONDS / 2) is None


async def test_a_snapshot_or_a_renewal_on_another_worker_replaces_the_cached_record(
    prefix: str,
) -> None:
    async with worker_store(REDIS_URL, prefix) as a, worker_store(REDIS_URL, prefix) as b:
        session = await _session(a, 1000.0)
        first = await a.touch(session, 1000.0)
        assert first is not None
        changes = Changes(a)
        changed = {**SNAPSHOT, "logLevel": "debug"}
        await b.save_snapshot(session, changed, SNAPSHOT)
        await changes.dropped(session)
        second = await a.touch(session, 1000.1)
        assert second is not None and second is not first and second.snapshot == changed
        # b renews the session (a second later): a sees the new last use, not its own copy
        changes.seen.clear()
        renewed = await b.touch(session, 1000.0 + RENEW_AFTER_SECONDS)
        assert renewed is not None and renewed.last_seen == 1000.0 + RENEW_AFTER_SECONDS
        await changes.dropped(session)
        third = await a.touch(session, 1000.2)
        assert third is not None and third.last_seen == 1000.0 + RENEW_AFTER_SECONDS


async def test_a_renewal_goes_to_redis_and_the_renewed_record_stays_tracked(
    prefix: str, client: Any
) -> None:
    async with worker_store(REDIS_URL, prefix) as a, worker_store(REDIS_URL, prefix) as b:
        session = await _session(a, 1000.0)
        first = await a.touch(session, 1000.0)
        later = 1000.0 + RENEW_AFTER_SECONDS
        renewed = await a.touch(session, later)  # a renewal period on: written in Redis
        assert renewed is not None and renewed is not first and renewed.last_seen == later
        assert float(await client.hget(f"{prefix}s:{session}", "l")) == later
        assert await a.touch(session, later + 0.1) is renewed  # cached again
        # its own write (NOLOOP) pushed it nothing; the script read the key again after it, so
        # a DELETE elsewhere still reaches it
        changes = Changes(a)
        await b.delete(session)
        await changes.dropped(session)
        assert await a.touch(session, later + 0.1) is None


async def test_a_killed_tracking_connection_empties_the_cache_and_tracking_resumes(
    prefix: str, client: Any
) -> None:
    async with worker_store(REDIS_URL, prefix) as a, worker_store(REDIS_URL, prefix) as b:
        session = await _session(a, 1000.0)
        other = await _session(a, 1000.0)
        assert await a.touch(session, 1000.0) is not None
        assert await a.touch(other, 1000.0) is not None
        wire = a.tracked_wire
        assert wire is not None and wire.client_id is not None and a.cache is not None
        changes = Changes(a)
        await client.execute_command("CLIENT", "KILL", "ID", wire.client_id)
        await changes.emptied()
        assert len(a.cache) == 0
        # deleted while no push could reach a: a must not answer from what it had read
        await b.delete(session)
        assert await a.touch(session, 1000.1) is None
        # the new connection is tracked again
        cached = await a.touch(other, 1000.1)
        assert cached is not None and await a.touch(other, 1000.2) is cached
        changes.seen.clear()
        await b.delete(other)
        await changes.dropped(other)
        assert await a.touch(other, 1000.2) is None


async def test_a_flush_and_a_restarted_redis_empty_the_cache(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path)
    redis.start()
    prefix = new_prefix()
    try:
        async with worker_store(redis.url, prefix) as a, worker_store(redis.url, prefix) as b:
            session = await _session(b, 1000.0)
            assert await a.touch(session, 1000.0) is not None
            changes = Changes(a)
            flusher = connect(RedisOptions(redis.url))
            try:
                await flusher.flushall()
            finally:
                await flusher.aclose()
            await changes.emptied()
            assert await a.touch(session, 1000.1) is None

            session = await _session(b, 1000.0)
            assert await a.touch(session, 1000.0) is not None
            changes.seen.clear()
            redis.kill()  # no persistence: the session is gone with it
            await changes.emptied()
            redis.start()
            assert await a.touch(session, 1000.1) is None
    finally:
        redis.kill()


async def test_a_cached_record_does_not_outlive_the_keys_expiry(prefix: str, client: Any) -> None:
    async with worker_store(REDIS_URL, prefix) as a:
        session = await _session(a, 1000.0)
        await client.pexpire(f"{prefix}s:{session}", 800)  # before a reads it: no push due
        first = await a.touch(session, 1000.0)
        assert first is not None and a.cache is not None
        assert await a.touch(session, 1000.0) is first
        base = a.cache.clock
        a.cache.clock = lambda: base() + 0.85  # past the key's expiry, within a renewal period
        assert await a.touch(session, 1000.0) is not first  # asked Redis again


async def test_an_entry_is_trusted_one_renewal_period_after_its_read(prefix: str) -> None:
    """However the wall clocks of the workers disagree: a silent connection (no push can come)
    is not trusted longer."""
    async with worker_store(REDIS_URL, prefix) as a:
        session = await _session(a, 5000.0)  # its last use "in the future" of this worker
        first = await a.touch(session, 1000.0)
        assert first is not None and a.cache is not None
        assert await a.touch(session, 1000.0) is first
        base = a.cache.clock
        a.cache.clock = lambda: base() + RENEW_AFTER_SECONDS
        assert await a.touch(session, 1000.0) is not first


async def test_the_cache_holds_at_most_its_size(prefix: str) -> None:
    async with worker_store(REDIS_URL, prefix, cache_size=2) as a:
        sessions = [await _session(a, 1000.0) for _ in range(3)]
        records = [await a.touch(session, 1000.0) for session in sessions]
        assert a.cache is not None and len(a.cache) == 2
        assert await a.touch(sessions[2], 1000.1) is records[2]
        assert await a.touch(sessions[0], 1000.1) is not records[0]  # evicted: read again
        assert len(a.cache) == 2


async def test_a_worker_refuses_a_session_deleted_through_another_at_once(prefix: str) -> None:
    async with (
        workers(REDIS_URL, prefix, 2) as (a, b),
        httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http,
    ):
        peer = LegacyPeer(http, path=f"{a.url}/mcp")
        await peer.initialize()
        for index in range(3):  # served on A, its record cached there
            reply = await bound(peer.call(10 + index, "tools/call", {"name": "whoami"}))
            assert reply["result"]["structuredContent"]["result"] == a.process.pid
        gone = await http.delete(f"{b.url}/mcp", headers=peer.headers())
        assert gone.status_code == 200
        # Redis pushed the invalidation to A before B answered the DELETE: on loopback it is in
        # A's socket before this request is
        after = await http.post(
            f"{a.url}/mcp", json=call_body(20, "whoami"), headers=peer.headers()
        )
        assert after.status_code == 404


async def test_without_a_cache_every_read_goes_to_redis(prefix: str) -> None:
    async with worker_store(REDIS_URL, prefix, cache_size=0) as a:
        assert a.cache is None and a.tracked_wire is None
        session = await _session(a, 1000.0)
        first = await a.touch(session, 1000.0)
        again = await a.touch(session, 1000.0)
        assert first is not None and again is not None and again is not first
        assert again.snapshot == SNAPSHOT

"""RedisSessionStore against a real Redis: records with TTL, snapshots, caps counted across
workers (two store instances stand for two processes), subscriptions, reaping."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.contrib.redis import PeerLimitReached, RedisSessionStore
from mcpkit.contrib.redis._sessions import RENEW_AFTER_SECONDS
from mcpkit.transports.http._server.session_store import SessionLimitReached, SessionStore


async def test_a_session_made_by_one_worker_is_served_by_another(client: Any, prefix: str) -> None:
    a = RedisSessionStore(client, prefix=prefix, idle_timeout=60)
    b = RedisSessionStore(client, prefix=prefix, idle_timeout=60)
    assert isinstance(a, SessionStore)
    made = await a.create(protocol_version="2025-06-18", now=1000.0)
    assert made.state is None or made.state is not None  # state is process-local
    snapshot = {"state": "operating", "subscriptions": ["file:///a"], "logLevel": "info"}
    await a.save_snapshot(made.id, snapshot, None)
    seen = await b.touch(made.id, 1010.0)
    assert seen is not None and seen.protocol_version == "2025-06-18"
    assert seen.snapshot == snapshot and seen.last_seen == 1010.0
    assert await b.subscribers("file:///a") == [made.id]
    # idle too long (the recorded last use may be RENEW_AFTER_SECONDS stale: never ended early)
    assert await b.touch(made.id, 1010.0 + 60 + RENEW_AFTER_SECONDS + 0.01) is None
    gone = await b.delete(made.id)
    assert gone is not None and gone.id == made.id
    assert await a.get(made.id) is None
    assert await b.subscribers("file:///a") == []
    assert await a.delete(made.id) is None


async def test_the_session_cap_is_counted_across_workers(client: Any, prefix: str) -> None:
    a = RedisSessionStore(client, prefix=prefix, max_sessions=2, idle_timeout=60)
    b = RedisSessionStore(client, prefix=prefix, max_sessions=2, idle_timeout=60)
    await a.create(protocol_version="2025-06-18", now=1000.0)
    second = await b.create(protocol_version="2025-06-18", now=1000.0)
    with pytest.raises(SessionLimitReached, match="across workers"):
        await a.create(protocol_version="2025-06-18", now=1001.0)
    await b.delete(second.id)
    await a.create(protocol_version="2025-06-18", now=1002.0)
    # idle sessions do not count: a minute later there is room again
    await b.create(protocol_version="2025-06-18", now=1003.0 + 61)


async def test_the_per_peer_cap_is_counted_across_workers(client: Any, prefix: str) -> None:
    a = RedisSessionStore(client, prefix=prefix, max_sessions_per_peer=2, idle_timeout=60)
    b = RedisSessionStore(client, prefix=prefix, max_sessions_per_peer=2, idle_timeout=60)
    await a.create(protocol_version="2025-06-18", now=1000.0, peer="10.0.0.1")
    await b.create(protocol_version="2025-06-18", now=1000.0, peer="10.0.0.1")
    with pytest.raises(PeerLimitReached, match=r"10\.0\.0\.1"):
        await a.create(protocol_version="2025-06-18", now=1000.0, peer="10.0.0.1")
    await b.create(protocol_version="2025-06-18", now=1000.0, peer="10.0.0.2")


async def test_reap_hands_each_idle_session_to_exactly_one_worker(client: Any, prefix: str) -> None:
    a = RedisSessionStore(client, prefix=prefix, idle_timeout=60)
    b = RedisSessionStore(client, prefix=prefix, idle_timeout=60)
    old = [await a.create(protocol_version="2025-06-18", now=1000.0) for _ in range(3)]
    fresh = await a.create(protocol_version="2025-06-18", now=1100.0)
    reaped = {r.id for r in await a.reap(1100.0)} | {r.id for r in await b.reap(1100.0)}
    assert reaped == {s.id for s in old}
    assert await b.get(fresh.id) is not None
    assert await a.count() == 1

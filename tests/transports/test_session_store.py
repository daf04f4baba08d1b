"""Legacy HTTP sessions: create/get/touch/delete, idle reaping, the cap, memory per session."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.protocol._http_routing import is_valid_session_id
from mcpkit.transports.http import (
    MemorySessionStore,
    SessionLimitReached,
    SessionRecord,
    SessionStore,
)

IDLE_BUDGET_BYTES = 4 * 1024
"""DESIGN.md: an idle legacy HTTP session may cost the server at most 4 KiB."""


async def test_implements_the_protocol() -> None:
    assert isinstance(MemorySessionStore(), SessionStore)


async def test_create_get_touch_delete() -> None:
    store = MemorySessionStore(idle_timeout=60)
    engine = object()
    session = await store.create(protocol_version="2025-11-25", now=10.0, state=engine)
    assert is_valid_session_id(session.id) and len(session.id) >= 32
    assert (session.protocol_version, session.created_at, session.last_seen) == (
        "2025-11-25",
        10.0,
        10.0,
    )
    assert await store.get(session.id) is session
    assert session.state is engine

    assert await store.touch(session.id, 50.0) is session
    assert session.last_seen == 50.0 and session.created_at == 10.0
    assert await store.touch("unknown", 50.0) is None

    assert await store.delete(session.id) is session
    assert await store.get(session.id) is None
    assert await store.delete(session.id) is None
    assert len(store) == 0


async def test_ids_are_unique() -> None:
    store = MemorySessionStore()
    ids = {(await store.create(protocol_version="2025-11-25", now=0.0)).id for _ in range(200)}
    assert len(ids) == 200


async def test_reap_removes_only_idle_sessions_and_returns_them() -> None:
    store = MemorySessionStore(idle_timeout=100)
    old = await store.create(protocol_version="2025-11-25", now=0.0)
    busy = await store.create(protocol_version="2025-11-25", now=0.0)
    await store.touch(busy.id, 90.0)
    young = await store.create(protocol_version="2025-06-18", now=95.0)  # times only move forward

    assert await store.reap(100.0) == []  # idle exactly the timeout: not yet
    assert await store.reap(100.5) == [old]
    assert await store.get(old.id) is None
    assert await store.get(busy.id) is busy
    assert await store.get(young.id) is young
    assert await store.reap(189.0) == []
    assert await store.reap(191.0) == [busy]  # touched at 90: idle 101 s
    assert await store.reap(196.0) == [young]
    assert len(store) == 0


async def test_touch_refuses_an_idle_session_but_leaves_it_for_reap() -> None:
    store = MemorySessionStore(idle_timeout=10)
    session = await store.create(protocol_version="2025-11-25", now=0.0)
    assert await store.touch(session.id, 11.0) is None
    assert await store.get(session.id) is session  # reap reports it, so the server cleans up
    assert await store.reap(11.0) == [session]


async def test_the_maximum_is_enforced_with_a_clear_error() -> None:
    store = MemorySessionStore(max_sessions=2, idle_timeout=10)
    first = await store.create(protocol_version="2025-11-25", now=0.0)
    await store.create(protocol_version="2025-11-25", now=5.0)
    with pytest.raises(SessionLimitReached, match="max_sessions"):
        await store.create(protocol_version="2025-11-25", now=6.0)
    # Reaping idle sessions makes room again.
    assert await store.reap(10.5) == [first]
    await store.create(protocol_version="2025-11-25", now=10.5)
    assert len(store) == 2


def test_bounds_must_be_positive() -> None:
    with pytest.raises(UsageError):
        MemorySessionStore(max_sessions=0)
    with pytest.raises(UsageError):
        MemorySessionStore(idle_timeout=0)


def test_session_records_are_slotted_and_do_not_leak_ids() -> None:
    session = SessionRecord("a-long-secret-session-identifier", "2025-11-25", 0.0, None)
    assert not hasattr(session, "__dict__")
    assert session.id not in repr(session)  # reprs end up in logs


async def test_idle_session_memory_is_within_budget() -> None:
    store = MemorySessionStore()
    count = 2_000
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(count):
            await store.create(protocol_version="2025-11-25", now=float(i))
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    per_session = (after - before) / count
    assert per_session < IDLE_BUDGET_BYTES / 4, per_session  # well inside the 4 KiB budget

"""Event stores for legacy SSE resumability: the shared contract, run on memory and SQLite."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http import (
    EventStore,
    MemoryEventStore,
    ReplayGap,
    SQLiteEventStore,
    UnknownEventId,
)
from mcpkit.transports.http._server.event_store import post_stream_id, request_of_stream


class Clock:
    """A clock the test moves by hand (no sleeps)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


StoreFactory = Callable[..., EventStore]


@pytest.fixture(params=["memory", "sqlite"])
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreFactory]:
    opened: list[SQLiteEventStore] = []

    def factory(**kwargs: object) -> EventStore:
        if request.param == "memory":
            return MemoryEventStore(**kwargs)  # type: ignore[arg-type]
        store = SQLiteEventStore(tmp_path / "events.db", **kwargs)  # type: ignore[arg-type]
        opened.append(store)
        return store

    yield factory
    for store in opened:
        await store.aclose()


async def test_implements_the_protocol(make_store: StoreFactory) -> None:
    assert isinstance(make_store(), EventStore)


async def test_replay_returns_later_events_of_that_stream_in_order(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    primed = await store.prime("s1", "req-1")
    ids = [await store.append("s1", "req-1", f"m{i}".encode()) for i in range(5)]
    assert len(set(ids)) == 5 and primed not in ids

    replay = await store.replay_after("s1", ids[1])
    assert replay.stream_id == "req-1"
    assert replay.events == [(ids[i], f"m{i}".encode()) for i in (2, 3, 4)]
    assert not replay.closed
    assert (await store.replay_after("s1", primed)).events == list(
        zip(ids, [f"m{i}".encode() for i in range(5)], strict=True)
    )
    assert (await store.replay_after("s1", ids[-1])).events == []


async def test_no_cross_stream_replay(make_store: StoreFactory) -> None:
    store = make_store()
    a1 = await store.append("s1", "a", b"a1")
    await store.append("s1", "b", b"b1")
    a2 = await store.append("s1", "a", b"a2")
    await store.append("s1", "b", b"b2")
    replay = await store.replay_after("s1", a1)
    assert replay.stream_id == "a"
    assert replay.events == [(a2, b"a2")]


async def test_event_ids_encode_the_stream_and_differ_across_streams(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    a = await store.append("s1", "a", b"x")
    b = await store.append("s1", "b", b"x")
    c = await store.append("s2", "a", b"x")
    keys = {i.rpartition(".")[0] for i in (a, b, c)}
    assert len(keys) == 3 and all(len(k) >= 16 for k in keys)


async def test_forged_and_foreign_ids_are_unknown(make_store: StoreFactory) -> None:
    store = make_store()
    own = await store.append("s1", "a", b"secret")
    key, _, seq = own.rpartition(".")
    for forged in (
        "",
        "nonsense",
        f"{key}.",
        f"{key}.x",
        f"{key}.-1",
        f"{key}.{int(seq) + 1}",  # a future event
        f"{key[:-1]}{'A' if key[-1] != 'A' else 'B'}.{seq}",
        "a" * 1000 + ".1",
        f"{key}.{seq}.{seq}",
    ):
        with pytest.raises(UnknownEventId, match="unknown event id"):
            await store.replay_after("s1", forged)
    # Another session cannot read this stream, even with a real id.
    with pytest.raises(UnknownEventId):
        await store.replay_after("s2", own)


async def test_close_stream_keeps_events_and_reports_closed(make_store: StoreFactory) -> None:
    store = make_store()
    first = await store.append("s1", "a", b"progress")
    await store.append("s1", "a", b"response")
    await store.close_stream("s1", "a")
    replay = await store.replay_after("s1", first)
    assert replay.closed and replay.events[0][1] == b"response"
    with pytest.raises(UsageError, match="closed"):
        await store.append("s1", "a", b"more")
    await store.close_stream("s1", "never-opened")  # a no-op


async def test_delete_session_forgets_its_streams_only(make_store: StoreFactory) -> None:
    store = make_store()
    mine = await store.append("s1", "a", b"x")
    other = await store.append("s2", "a", b"y")
    await store.delete_session("s1")
    with pytest.raises(UnknownEventId):
        await store.replay_after("s1", mine)
    assert (await store.replay_after("s2", other)).stream_id == "a"
    # The stream id can be used again afterwards; old ids stay dead.
    fresh = await store.append("s1", "a", b"z")
    assert fresh.rpartition(".")[0] != mine.rpartition(".")[0]


async def test_events_per_stream_are_bounded_and_a_gap_is_reported(
    make_store: StoreFactory,
) -> None:
    store = make_store(max_events_per_stream=3)
    primed = await store.prime("s1", "a")
    ids = [await store.append("s1", "a", bytes([i])) for i in range(5)]
    replay = await store.replay_after("s1", ids[1])
    assert replay.events == [(ids[2], b"\x02"), (ids[3], b"\x03"), (ids[4], b"\x04")]
    for lost in (primed, ids[0]):
        with pytest.raises(ReplayGap, match="dropped"):
            await store.replay_after("s1", lost)


async def test_bytes_per_stream_are_bounded_but_the_newest_event_stays(
    make_store: StoreFactory,
) -> None:
    store = make_store(max_bytes_per_stream=10)
    first = await store.append("s1", "a", b"12345")
    second = await store.append("s1", "a", b"67890")
    third = await store.append("s1", "a", b"x" * 50)  # larger than the bound on its own
    with pytest.raises(ReplayGap):
        await store.replay_after("s1", first)
    assert (await store.replay_after("s1", second)).events == [(third, b"x" * 50)]


async def test_stream_count_is_bounded_least_recently_used_first(make_store: StoreFactory) -> None:
    clock = Clock()
    store = make_store(max_streams=2, clock=clock)
    a = await store.append("s1", "a", b"a")
    clock.now += 1
    b = await store.append("s1", "b", b"b")
    clock.now += 1
    await store.replay_after("s1", a)  # using "a" makes "b" the least recently used
    clock.now += 1
    c = await store.append("s1", "c", b"c")
    with pytest.raises(UnknownEventId):
        await store.replay_after("s1", b)
    assert (await store.replay_after("s1", a)).stream_id == "a"
    assert (await store.replay_after("s1", c)).stream_id == "c"


async def test_streams_expire_after_their_ttl(make_store: StoreFactory) -> None:
    clock = Clock()
    store = make_store(ttl=60, clock=clock)
    old = await store.append("s1", "a", b"a")
    clock.now += 30
    kept = await store.append("s1", "b", b"b")
    clock.now += 31  # "a" idle 61 s, "b" 31 s
    with pytest.raises(UnknownEventId):
        await store.replay_after("s1", old)
    assert (await store.replay_after("s1", kept)).stream_id == "b"
    # Appending to an expired stream starts a new one.
    again = await store.append("s1", "a", b"a2")
    assert again.rpartition(".")[0] != old.rpartition(".")[0]


async def test_memory_store_total_bytes_bound() -> None:
    store = MemoryEventStore(max_total_bytes=100)
    old = await store.append("s1", "a", b"x" * 60)
    new = await store.append("s1", "b", b"y" * 60)
    assert len(store) == 1
    with pytest.raises(UnknownEventId):
        await store.replay_after("s1", old)
    assert (await store.replay_after("s1", await store.prime("s1", "b"))).events == []
    assert new.endswith(".1")


def test_bounds_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        MemoryEventStore(max_streams=0)
    with pytest.raises(UsageError):
        SQLiteEventStore(tmp_path / "x.db", max_events_per_stream=0)


@pytest.mark.parametrize("request_id", [0, 7, -3, 2**62, "abc", 'é"~.', True, 1.5])
def test_a_post_stream_id_carries_its_request_id_back(request_id: Any) -> None:
    """Integer ids take a shortcut past ``json.dumps``; every id reads back as it went in (a
    bool or a float is no request id: ``None``)."""
    stream_id = post_stream_id("post-1", request_id)
    expected = request_id if type(request_id) in (int, str) else None
    assert request_of_stream(stream_id) == expected
    assert stream_id.startswith("post-1~")

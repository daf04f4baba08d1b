"""RedisEventStore against a real Redis: offsets, ownership, retention, and a live tail that sees
what another worker (another store instance on the same Redis) appends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit.contrib.redis import RedisEventStore
from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http._server.event_store import (
    EventStore,
    ReplayGap,
    UnknownEventId,
    WriterGone,
    parse_event_id,
)


async def test_ids_are_ordered_offsets_and_replay_returns_the_rest(
    client: Any, prefix: str
) -> None:
    store = RedisEventStore(client, prefix=prefix)
    assert isinstance(store, EventStore)
    prime = await store.prime("s1", "post-1")
    ids = [await store.append("s1", "post-1", f"m{i}".encode()) for i in range(5)]
    offsets = [parse_event_id(i)[1] for i in [prime, *ids]]
    assert offsets == sorted(offsets) and len(set(offsets)) == 6
    assert {parse_event_id(i)[0] for i in ids} == {parse_event_id(prime)[0]}
    replay = await store.replay_after("s1", ids[1])
    assert replay.stream_id == "post-1" and not replay.closed
    assert replay.events == [(ids[i], f"m{i}".encode()) for i in (2, 3, 4)]
    assert (await store.replay_after("s1", prime)).events[0] == (ids[0], b"m0")


async def test_a_complete_stream_is_written_in_one_call_as_step_by_step(
    client: Any, prefix: str
) -> None:
    """``write_complete`` (prime, appends, close in one round trip) leaves the stream exactly as
    the three steps do: ordered ids after the priming id, every message replayable, closed;
    a closed stream refuses it; count retention still reports a gap."""
    store = RedisEventStore(client, prefix=prefix, max_events_per_stream=3)
    prime, ids = await store.write_complete("s1", "post-1", [b"a", b"b"])
    offsets = [parse_event_id(i)[1] for i in [prime, *ids]]
    assert offsets == sorted(offsets) and len(set(offsets)) == 3
    replay = await store.replay_after("s1", prime)
    assert replay.closed and replay.stream_id == "post-1"
    assert replay.events == [(ids[0], b"a"), (ids[1], b"b")]
    with pytest.raises(UsageError):
        await store.write_complete("s1", "post-1", [b"c"])
    with pytest.raises(UsageError):
        await store.append("s1", "post-1", b"c")
    prime, ids = await store.write_complete("s1", "post-2", [b"1", b"2", b"3", b"4"])
    with pytest.raises(ReplayGap):
        await store.replay_after("s1", prime)
    assert [data for _, data in (await store.replay_after("s1", ids[0])).events] == [
        b"2",
        b"3",
        b"4",
    ]


async def test_foreign_forged_and_future_ids_are_unknown(client: Any, prefix: str) -> None:
    store = RedisEventStore(client, prefix=prefix)
    first = await store.append("s1", "post-1", b"x")
    key, offset = parse_event_id(first)
    for session, event_id in (
        ("s2", first),  # another session's stream
        ("s1", "nokey.5"),  # never issued
        ("s1", f"{key}.{offset + 1}"),  # beyond the end
        ("s1", "garbage"),
    ):
        with pytest.raises(UnknownEventId) as caught:
            await store.replay_after(session, event_id)
        assert not isinstance(caught.value, ReplayGap)


async def test_count_retention_reports_a_gap_never_a_silent_skip(client: Any, prefix: str) -> None:
    store = RedisEventStore(client, prefix=prefix, max_events_per_stream=3)
    prime = await store.prime("s1", "get")
    ids = [await store.append("s1", "get", f"m{i}".encode()) for i in range(5)]
    with pytest.raises(ReplayGap):
        await store.replay_after("s1", prime)
    with pytest.raises(ReplayGap):
        await store.replay_after("s1", ids[0])
    # the last dropped event is a valid cursor: everything after it is still there
    replay = await store.replay_after("s1", ids[1])
    assert [data for _, data in replay.events] == [b"m2", b"m3", b"m4"]


async def test_age_retention_trims_old_events(client: Any, prefix: str) -> None:
    store = RedisEventStore(client, prefix=prefix, max_age=0.05)
    prime = await store.prime("s1", "get")
    await store.append("s1", "get", b"old")
    await asyncio.sleep(0.1)  # the bound under test is an age: time has to pass
    last = await store.append("s1", "get", b"new")
    with pytest.raises(ReplayGap):
        await store.replay_after("s1", prime)
    assert (await store.replay_after("s1", last)).events == []


async def test_closed_streams_refuse_appends_and_replay_as_closed(client: Any, prefix: str) -> None:
    store = RedisEventStore(client, prefix=prefix)
    first = await store.append("s1", "post-1", b"a")
    await store.close_stream("s1", "post-1")
    with pytest.raises(UsageError):
        await store.append("s1", "post-1", b"late")
    assert (await store.replay_after("s1", first)).closed


async def test_delete_session_forgets_every_stream(client: Any, prefix: str) -> None:
    store = RedisEventStore(client, prefix=prefix)
    a = await store.append("s1", "post-1", b"a")
    b = await store.append("s1", "get", b"b")
    other = await store.append("s2", "get", b"c")
    await store.delete_session("s1")
    for event_id in (a, b):
        with pytest.raises(UnknownEventId):
            await store.replay_after("s1", event_id)
    assert (await store.replay_after("s2", other)).events == []
    assert not [k async for k in client.scan_iter(match=f"{prefix}ev*:*") if b"s1" in k]


async def test_two_workers_share_one_stream_and_a_tail_sees_both(client: Any, prefix: str) -> None:
    alive = {"A": True, "B": True}

    async def is_alive(worker: str) -> bool:
        return alive[worker]

    a = RedisEventStore(client, prefix=prefix, worker_id="A", worker_alive=is_alive)
    b = RedisEventStore(client, prefix=prefix, worker_id="B", worker_alive=is_alive)
    prime = await a.prime("s1", "get")
    seen: list[bytes] = []
    got_three = asyncio.Event()

    async def follow() -> None:
        async for batch in b.tail("s1", prime, block=0.05):
            seen.extend(data for _, data in batch)
            if len(seen) >= 3:
                got_three.set()
                return

    follower = asyncio.create_task(follow())
    await a.append("s1", "get", b"1")
    await b.append("s1", "get", b"2")
    await a.append("s1", "get", b"3")
    async with asyncio.timeout(10):
        await got_three.wait()
        await follower
    assert seen == [b"1", b"2", b"3"]


async def test_a_tail_ends_when_the_stream_closes_or_its_writer_dies(
    client: Any, prefix: str
) -> None:
    alive = {"A": True, "B": True}

    async def is_alive(worker: str) -> bool:
        return alive[worker]

    a = RedisEventStore(client, prefix=prefix, worker_id="A", worker_alive=is_alive)
    b = RedisEventStore(client, prefix=prefix, worker_id="B", worker_alive=is_alive)
    first = await a.append("s1", "post-1", b"one")
    await a.append("s1", "post-1", b"two")
    await a.close_stream("s1", "post-1")
    async with asyncio.timeout(10):
        got = [
            data
            for batch in [x async for x in b.tail("s1", first, block=0.05)]
            for _, data in batch
        ]
    assert got == [b"two"]

    start = await a.append("s1", "post-2", b"one")
    alive["A"] = False  # A was killed: its stream never closes
    batches: list[list[tuple[str, bytes]]] = []
    with pytest.raises(WriterGone, match="stopped"):  # the caller fails the request
        async with asyncio.timeout(10):
            async for batch in b.tail("s1", start, block=0.05):
                batches.append(batch)
    assert all(batch == [] for batch in batches)


async def test_append_many_reaches_each_open_stream_once(client: Any, prefix: str) -> None:
    store = RedisEventStore(client, prefix=prefix)
    sessions = [f"s{i}" for i in range(7)]
    primes = {s: await store.prime(s, "get") for s in sessions}
    await store.close_stream("s3", "get")  # a closed stream is skipped, the others still get it
    assert await store.append_many(sessions, "get", b"note") == 6
    for session in sessions:
        events = (await store.replay_after(session, primes[session])).events
        assert [data for _, data in events] == ([] if session == "s3" else [b"note"])

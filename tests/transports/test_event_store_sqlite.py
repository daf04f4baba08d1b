"""SQLiteEventStore: durability across instances and killed processes, WAL, off-loop execution."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http import SQLiteEventStore, UnknownEventId

WAIT_SECONDS = 30.0
"""Bound on every wait for the child process (generous: the machine is shared)."""

WRITER = textwrap.dedent(
    """
    import asyncio, json, sys
    from mcpkit.transports.http import SQLiteEventStore

    async def main() -> None:
        store = SQLiteEventStore(sys.argv[1])
        primed = await store.prime("session-1", "req-7")
        ids = [await store.append("session-1", "req-7", f"progress {i}".encode()) for i in range(3)]
        await store.append("session-1", "other", b"not this stream")
        print(json.dumps({"primed": primed, "ids": ids}), flush=True)
        # Mid-stream: wait forever for more work; the test kills us here.
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(main())
    """
)


async def test_events_survive_a_new_instance(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    async with SQLiteEventStore(path) as first:
        a = await first.append("s1", "a", b"one")
        b = await first.append("s1", "a", b"two")
        await first.close_stream("s1", "a")
    async with SQLiteEventStore(path) as second:
        replay = await second.replay_after("s1", a)
        assert (replay.stream_id, replay.events, replay.closed) == ("a", [(b, b"two")], True)
        # Sequence numbers continue where the other instance stopped.
        c = await second.append("s1", "b", b"x")
        assert c.endswith(".1")


async def test_two_live_instances_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    async with SQLiteEventStore(path) as one, SQLiteEventStore(path) as two:
        first = await one.append("s1", "a", b"1")
        second = await two.append("s1", "a", b"2")
        third = await one.append("s1", "a", b"3")
        assert len({first, second, third}) == 3
        assert [data for _, data in (await two.replay_after("s1", first)).events] == [b"2", b"3"]


async def test_resume_after_the_writer_process_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WRITER,
        str(path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), WAIT_SECONDS)
        written = json.loads(line)
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await asyncio.wait_for(child.wait(), WAIT_SECONDS)
    assert child.returncode == -signal.SIGKILL

    async with SQLiteEventStore(path) as store:
        replay = await store.replay_after("session-1", written["ids"][0])
        assert replay.stream_id == "req-7" and not replay.closed
        assert replay.events == [
            (written["ids"][1], b"progress 1"),
            (written["ids"][2], b"progress 2"),
        ]
        everything = await store.replay_after("session-1", written["primed"])
        assert [data for _, data in everything.events] == [
            b"progress 0",
            b"progress 1",
            b"progress 2",
        ]
        with pytest.raises(UnknownEventId):
            await store.replay_after("session-2", written["ids"][0])


async def test_database_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    async with SQLiteEventStore(path) as store:
        await store.append("s1", "a", b"x")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_sqlite_runs_off_the_event_loop_thread(tmp_path: Path) -> None:
    threads: set[int] = set()

    def clock() -> float:
        threads.add(threading.get_ident())
        return 1_000.0

    async with SQLiteEventStore(tmp_path / "events.db", clock=clock) as store:
        await store.append("s1", "a", b"x")
    assert threads and threading.get_ident() not in threads


async def test_a_slow_database_does_not_stall_the_loop(tmp_path: Path) -> None:
    """While another connection holds the write lock, the loop keeps running other tasks."""
    path = tmp_path / "events.db"
    async with SQLiteEventStore(path) as store:
        await store.prime("s1", "a")  # create the schema
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            append = asyncio.create_task(store.append("s1", "a", b"x"))
            ticked = asyncio.Event()
            asyncio.get_running_loop().call_soon(ticked.set)
            await asyncio.wait_for(ticked.wait(), WAIT_SECONDS)
            assert not append.done()  # still waiting for the lock, yet the loop ran
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert (await asyncio.wait_for(append, WAIT_SECONDS)).endswith(".1")


async def test_closed_store_refuses_work(tmp_path: Path) -> None:
    store = SQLiteEventStore(tmp_path / "events.db")
    await store.append("s1", "a", b"x")
    await store.aclose()
    await store.aclose()  # idempotent
    with pytest.raises(UsageError, match="closed"):
        await store.append("s1", "a", b"y")


def test_synchronous_mode_is_checked(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        SQLiteEventStore(tmp_path / "x.db", synchronous="OFF")  # type: ignore[arg-type]

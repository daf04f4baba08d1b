"""Per-call cost of the Redis stores against the embedded ones, and Redis memory per idle session.

    .venv/bin/python benchmarks/redis_stores.py [--calls 2000] [--sessions 2000] [--url URL]

Operations (wall time per call, median of 5 rounds, one client awaiting each call in turn —
a Redis store's cost is mostly its round trip to Redis, so this is latency, not throughput):

* event log ``append`` and ``replay_after`` (10 events) — memory, SQLite (a WAL file), Redis;
* session ``touch`` (what every legacy request pays) — memory, Redis;
* task ``get`` + ``save`` (one compare-and-set update) — memory, Redis.

Memory: ``sessions`` legacy sessions with a typical connection snapshot are created, then Redis's
``used_memory`` growth per session, and ``MEMORY USAGE`` of one session record. Every key is under
a fresh prefix and deleted afterwards; the Redis is never flushed.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcpkit.contrib.redis import RedisEventStore, RedisSessionStore, RedisTaskStore
from mcpkit.contrib.redis._conn import RedisOptions, connect
from mcpkit.server.tasks import InMemoryTaskStore, TaskRecord, TaskStore
from mcpkit.transports.http import MemoryEventStore, MemorySessionStore, SQLiteEventStore

ROUNDS = 5
MESSAGE = (
    b'{"jsonrpc":"2.0","method":"notifications/progress",'
    b'"params":{"progressToken":"t","progress":1}}'
)
SNAPSHOT: dict[str, Any] = {
    "state": "operating",
    "protocolVersion": "2025-11-25",
    "requestedVersion": "2025-11-25",
    "capabilities": {"elicitation": {}, "roots": {"listChanged": True}},
    "clientInfo": {"name": "some-client", "version": "1.2.3"},
    "logLevel": None,
    "subscriptions": [],
}


async def per_call(op: Callable[[int], Awaitable[Any]], calls: int) -> float:
    """Median microseconds per call over ``ROUNDS`` rounds of ``calls`` calls."""
    rounds = []
    for r in range(ROUNDS):
        started = time.perf_counter()
        for i in range(calls):
            await op(r * calls + i)
        rounds.append((time.perf_counter() - started) / calls * 1e6)
    return statistics.median(rounds)


async def event_log(name: str, store: Any, calls: int) -> dict[str, float]:
    session = secrets.token_hex(8)
    append = await per_call(lambda i: store.append(session, f"s{i // 1000}", MESSAGE), calls)
    ids = [await store.append(session, "replay", MESSAGE) for _ in range(20)]
    replay = await per_call(lambda _i: store.replay_after(session, ids[9]), calls)
    await store.delete_session(session)
    return {f"event append ({name})": append, f"event replay 10 ({name})": replay}


async def session_touch(name: str, store: Any, calls: int) -> dict[str, float]:
    made = await store.create(protocol_version="2025-11-25", now=time.time())
    touch = await per_call(lambda _i: store.touch(made.id, time.time()), calls)
    await store.delete(made.id)
    return {f"session touch ({name})": touch}


async def task_update(name: str, store: TaskStore, calls: int) -> dict[str, float]:
    now = time.time()
    await store.create(TaskRecord("bench", "working", now, now, 600_000))

    async def update(i: int) -> None:
        record = await store.get("bench")
        assert record is not None
        record.status_message = f"step {i}"
        assert await store.save(record)

    cost = await per_call(update, calls)
    await store.delete("bench")
    return {f"task get+save ({name})": cost}


async def idle_session_memory(client: Any, prefix: str, count: int) -> dict[str, float]:
    store = RedisSessionStore(client, prefix=prefix)
    before = int((await client.info("memory"))["used_memory"])
    made = []
    for _ in range(count):
        record = await store.create(protocol_version="2025-11-25", now=time.time())
        await store.save_snapshot(record.id, SNAPSHOT, None)
        made.append(record.id)
    after = int((await client.info("memory"))["used_memory"])
    one = int(await client.memory_usage(f"{prefix}s:{made[0]}") or 0)
    return {"bytes per idle session (used_memory)": (after - before) / count,
            "bytes of one session record (MEMORY USAGE)": float(one)}  # fmt: skip


async def main(url: str, calls: int, sessions: int) -> None:
    client = connect(RedisOptions(url))
    prefix = f"mcpkit-bench:{secrets.token_hex(4)}:"
    results: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with SQLiteEventStore(Path(tmp) / "events.db") as sqlite:
                for name, events in (
                    ("memory", MemoryEventStore()),
                    ("SQLite", sqlite),
                    ("Redis", RedisEventStore(client, prefix=prefix)),
                ):
                    results.update(await event_log(name, events, calls))
        for name, sessions_store in (
            ("memory", MemorySessionStore()),
            ("Redis", RedisSessionStore(client, prefix=prefix)),
        ):
            results.update(await session_touch(name, sessions_store, calls))
        for name, tasks in (
            ("memory", InMemoryTaskStore()),
            ("Redis", RedisTaskStore(client, prefix=prefix)),
        ):
            results.update(await task_update(name, tasks, calls))
        memory = await idle_session_memory(client, prefix, sessions)
        ping = await per_call(lambda _i: client.ping(), calls)
    finally:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        for start in range(0, len(keys), 1000):
            await client.delete(*keys[start : start + 1000])
        await client.aclose()
    print(
        f"Redis stores, {calls} calls x {ROUNDS} rounds, median us/call (Redis PING: {ping:.0f} us)"
    )
    print("| operation | us/call |")
    print("|---|---|")
    for name, value in results.items():
        print(f"| {name} | {value:.1f} |")
    print()
    for name, value in memory.items():
        print(f"- {name}: {value:.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(main(args.url, args.calls, args.sessions))

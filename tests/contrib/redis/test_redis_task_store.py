"""RedisTaskStore against a real Redis: compare-and-set across workers, listing, expiry, and a
task whose worker died is marked failed (never "working" forever)."""

from __future__ import annotations

import time
from typing import Any

from mcpkit.contrib.redis import WORKER_GONE_MESSAGE, RedisTaskStore
from mcpkit.server.tasks import TaskRecord


def _record(task_id: str, owner: str | None = "alice", ttl_ms: int | None = 60_000) -> TaskRecord:
    now = time.time()
    return TaskRecord(task_id, "working", now, now, ttl_ms, owner=owner)


async def test_compare_and_set_has_one_winner_across_workers(client: Any, prefix: str) -> None:
    a = RedisTaskStore(client, prefix=prefix, worker_id="A")
    b = RedisTaskStore(client, prefix=prefix, worker_id="B")
    await a.create(_record("t1"))
    on_a = await a.get("t1")
    on_b = await b.get("t1")
    assert on_a is not None and on_b is not None and on_a.version == 0
    on_a.status = "completed"
    on_a.result = {"content": []}
    on_b.status = "cancelled"
    assert await a.save(on_a) is True
    assert await b.save(on_b) is False  # stale version: B re-reads and sees A's outcome
    final = await b.get("t1")
    assert final is not None and final.status == "completed" and final.version == 1
    assert final.result == {"content": []}
    assert await a.runner_of("t1") == "A"


async def test_listing_and_deleting(client: Any, prefix: str) -> None:
    store = RedisTaskStore(client, prefix=prefix)
    await store.create(_record("t1"))
    await store.create(_record("t2"))
    await store.create(_record("t3", owner="bob"))
    assert [r.task_id for r in await store.owned_by("alice")] == ["t1", "t2"]
    await store.delete("t1")
    assert await store.get("t1") is None
    assert [r.task_id for r in await store.owned_by("alice")] == ["t2"]


async def test_expired_tasks_are_gone(client: Any, prefix: str) -> None:
    store = RedisTaskStore(client, prefix=prefix)
    record = _record("t1", ttl_ms=60_000)
    record.created_at -= 120  # created two minutes ago with a one-minute TTL
    await store.create(record)
    assert await store.get("t1") is None


async def test_a_task_whose_worker_died_is_marked_failed(client: Any, prefix: str) -> None:
    alive = {"A": True}

    async def is_alive(worker: str) -> bool:
        return alive.get(worker, False)

    a = RedisTaskStore(client, prefix=prefix, worker_id="A", worker_alive=is_alive)
    b = RedisTaskStore(client, prefix=prefix, worker_id="B", worker_alive=is_alive)
    await a.create(_record("t1"))
    seen = await b.get("t1")
    assert seen is not None and seen.status == "working"
    alive["A"] = False
    failed = await b.get("t1")
    assert failed is not None and failed.status == "failed"
    assert failed.status_message == WORKER_GONE_MESSAGE
    assert failed.error is not None and WORKER_GONE_MESSAGE in failed.error["message"]
    again = await b.get("t1")
    assert again is not None and again.status == "failed" and again.version == failed.version

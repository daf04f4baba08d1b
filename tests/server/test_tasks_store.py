"""Task records and the in-memory store: copies, compare-and-set, TTL, bounds, wire shapes."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from _schema_check import check_message
from mcpkit.protocol._errors import INTERNAL_ERROR, InternalError, UsageError
from mcpkit.server._tasks_runner import MAX_CAS_RETRIES, mutate
from mcpkit.server.tasks import InMemoryTaskStore, TaskLimitReached, TaskRecord
from mcpkit.types._jsonrpc import Response

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def record(task_id: str = "t1", *, ttl_ms: int | None = 60_000, age: float = 0.0) -> TaskRecord:
    now = time.time() - age
    return TaskRecord(task_id, "working", now, now, ttl_ms, poll_interval_ms=500)


async def test_get_returns_copies_and_save_is_compare_and_set() -> None:
    store = InMemoryTaskStore()
    await store.create(record())
    first = await store.get("t1")
    second = await store.get("t1")
    assert first is not None and second is not None
    first.answers["k"] = {"action": "accept"}
    assert (await store.get("t1")).answers == {}  # type: ignore[union-attr]  # not saved yet
    assert await store.save(first) is True
    assert first.version == 1
    second.status_message = "stale writer"
    assert await store.save(second) is False  # saved from version 0, which is gone
    stored = await store.get("t1")
    assert stored is not None
    assert stored.answers == {"k": {"action": "accept"}} and stored.status_message is None
    assert await store.save(record("never-created")) is False


async def test_duplicate_ids_are_refused() -> None:
    store = InMemoryTaskStore()
    await store.create(record())
    with pytest.raises(UsageError, match="already exists"):
        await store.create(record())


async def test_expired_records_are_gone_and_make_room() -> None:
    store = InMemoryTaskStore(max_tasks=2)
    await store.create(record("old", ttl_ms=1_000, age=5.0))  # expired four seconds ago
    await store.create(record("forever", ttl_ms=None, age=1e6))  # no TTL: never expires
    assert await store.get("forever") is not None
    await store.create(record("new"))  # full, but the expired one is purged to make room
    assert await store.get("old") is None
    assert len(store) == 2


async def test_a_store_full_of_live_tasks_refuses_instead_of_evicting() -> None:
    store = InMemoryTaskStore(max_tasks=1)
    await store.create(record("a"))
    with pytest.raises(TaskLimitReached, match="1 unexpired tasks") as info:
        await store.create(record("b"))
    assert info.value.code == INTERNAL_ERROR
    assert await store.get("a") is not None  # still readable for its whole TTL
    with pytest.raises(UsageError):
        InMemoryTaskStore(max_tasks=0)


async def test_delete() -> None:
    store = InMemoryTaskStore()
    await store.create(record())
    await store.delete("t1")
    await store.delete("t1")  # already gone: fine
    assert await store.get("t1") is None


def test_dict_round_trip_for_serialising_stores() -> None:
    original = record()
    original.status = "input_required"
    original.input_requests = {"q": {"method": "roots/list"}}
    original.owner = "alice\x00app"
    assert TaskRecord.from_dict(original.to_dict()) == original
    with pytest.raises(ValueError, match="not a task status"):
        TaskRecord.from_dict({**original.to_dict(), "status": "sleeping"})


def as_get_result(detailed: dict[str, Any]) -> Response:
    return Response(1, {**detailed, "resultType": "complete"})


@pytest.mark.parametrize(
    ("status", "payload", "present", "absent"),
    [
        ("working", {}, (), ("result", "error", "inputRequests")),
        (
            "input_required",
            {"input_requests": {"q": {"method": "roots/list"}}},
            ("inputRequests",),
            ("result", "error"),
        ),
        ("completed", {"result": {"content": []}}, ("result",), ("error", "inputRequests")),
        (
            "failed",
            {"error": {"code": -32603, "message": "boom"}},
            ("error",),
            ("result", "inputRequests"),
        ),
        ("cancelled", {}, (), ("result", "error", "inputRequests")),
    ],
)
def test_detailed_task_carries_the_payload_of_its_status(
    status: str, payload: dict[str, Any], present: tuple[str, ...], absent: tuple[str, ...]
) -> None:
    rec = record()
    rec.status = status  # type: ignore[assignment]
    for name, value in payload.items():
        setattr(rec, name, value)
    detailed = rec.detailed()
    assert all(key in detailed for key in present)
    assert not any(key in detailed for key in absent)
    assert ISO.match(detailed["createdAt"]) and ISO.match(detailed["lastUpdatedAt"])
    assert detailed["ttlMs"] == 60_000 and detailed["pollIntervalMs"] == 500
    assert "requestState" not in detailed and "ttl" not in detailed
    assert check_message(as_get_result(detailed), "2026-07-28", "tasks/get") == []


async def test_mutate_retries_a_lost_race_and_gives_up_when_it_never_ends() -> None:
    class Contended(InMemoryTaskStore):
        def __init__(self, losses: int) -> None:
            super().__init__()
            self.losses = losses

        async def save(self, rec: TaskRecord) -> bool:
            if self.losses > 0:
                self.losses -= 1
                return False  # someone else saved first
            return await super().save(rec)

    store = Contended(losses=2)
    await store.create(record())

    def describe(rec: TaskRecord) -> bool:
        rec.status_message = "busy"
        return True

    saved, changed = await mutate(store, "t1", describe)
    assert changed and saved is not None and saved.status_message == "busy"
    assert await mutate(store, "missing", describe) == (None, False)
    store.losses = MAX_CAS_RETRIES
    with pytest.raises(InternalError, match="concurrently"):
        await mutate(store, "t1", describe)

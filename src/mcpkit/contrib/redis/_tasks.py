"""A :class:`~mcpkit.server.tasks.TaskStore` on Redis: tasks that move between workers.

A task is created (and its body run) on one worker; ``tasks/get``, answers and ``tasks/cancel``
may land on any other, which read and write the same record. Each record is one Redis string
``{prefix}t:{task id}`` (JSON) that expires with the task's ``ttlMs``; :meth:`RedisTaskStore.save`
is a compare-and-set on the record's version (``WATCH``/``MULTI``), so a cancel racing a
completion ends with exactly one winner. ``{prefix}to:{owner}`` (sorted by creation time) lists an
owner's tasks for 2025-11-25 ``tasks/list``.

**A worker that dies.** The record names the worker running the body. Workers refresh a
heartbeat key (``{prefix}w:{worker id}``, see :class:`~mcpkit.contrib.redis._state.Workers`) every
few seconds; it expires :data:`~mcpkit.contrib.redis._state.WORKER_LEASE_SECONDS` after the last
refresh. Reading a task that is still ``working`` or ``input_required`` whose worker's lease has
expired marks it ``failed`` with the message *"the worker running this task stopped (worker
lease expired)"*: a task is never left "working" forever. Its body is not re-run elsewhere (a
body may have side effects; re-running is the caller's choice).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final

import msgspec

from mcpkit.contrib.redis._conn import guarded, text
from mcpkit.protocol import UsageError
from mcpkit.server.tasks import TaskRecord, TaskStore

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["WORKER_GONE_MESSAGE", "RedisTaskStore"]

WORKER_GONE_MESSAGE: Final = "the worker running this task stopped (worker lease expired)"
KEEP_UNBOUNDED_SECONDS: Final = 7 * 24 * 3600
"""A task without ``ttlMs`` is kept this long in Redis (it must expire some day)."""
_ABANDONED_CODE: Final = -32603


class RedisTaskStore(TaskStore):
    """See the module docstring. Built by :class:`~mcpkit.contrib.redis.RedisState`."""

    shared: ClassVar[bool] = True
    listable: ClassVar[bool] = True

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "mcpkit:",
        worker_id: str = "",
        worker_alive: Callable[[str], Awaitable[bool]] | None = None,
    ) -> None:
        self._redis: Any = client  # redis-py's reply types are unions of every RESP shape
        self._prefix = prefix
        self.worker_id = worker_id
        self._worker_alive = worker_alive

    def _key(self, task_id: str) -> str:
        return f"{self._prefix}t:{task_id}"

    def _owner_key(self, owner: str) -> str:
        return f"{self._prefix}to:{owner}"

    @staticmethod
    def _ttl_ms(record: TaskRecord) -> int:
        if record.ttl_ms is None:
            return KEEP_UNBOUNDED_SECONDS * 1000
        left = record.created_at * 1000 + record.ttl_ms - _now_ms()
        return max(1, int(left))

    def _encode(self, record: TaskRecord, worker: str) -> bytes:
        return msgspec.json.encode({"r": record.to_dict(), "w": worker})

    async def create(self, record: TaskRecord) -> None:
        key = self._key(record.task_id)
        async with guarded():
            created = await self._redis.set(
                key, self._encode(record, self.worker_id), px=self._ttl_ms(record), nx=True
            )
            if not created:
                raise UsageError(f"task {record.task_id!r} already exists")
            if record.owner is not None:
                pipe = self._redis.pipeline(transaction=False)
                pipe.zadd(self._owner_key(record.owner), {record.task_id: record.created_at})
                pipe.expire(self._owner_key(record.owner), KEEP_UNBOUNDED_SECONDS)
                await pipe.execute()

    async def get(self, task_id: str) -> TaskRecord | None:
        loaded = await self._load(task_id)
        if loaded is None:
            return None
        record, worker = loaded
        if record.expired():
            return None
        if await self._runner_died(record, worker):
            return await self._abandon(record)
        return record

    async def save(self, record: TaskRecord) -> bool:
        key = self._key(record.task_id)
        async with guarded(), self._redis.pipeline(transaction=True) as pipe:
            from redis.exceptions import WatchError

            try:
                await pipe.watch(key)
                raw = await pipe.get(key)
                if raw is None:
                    return False
                stored = msgspec.json.decode(raw)
                if int(stored["r"].get("version", 0)) != record.version:
                    return False
                pipe.multi()
                saved = TaskRecord.from_dict({**record.to_dict(), "version": record.version + 1})
                runner = text(stored.get("w", ""))
                pipe.set(key, self._encode(saved, runner), px=self._ttl_ms(saved))
                await pipe.execute()
            except WatchError:
                return False
        record.version += 1
        return True

    async def delete(self, task_id: str) -> None:
        loaded = await self._load(task_id)
        async with guarded():
            await self._redis.delete(self._key(task_id))
            if loaded is not None and loaded[0].owner is not None:
                await self._redis.zrem(self._owner_key(loaded[0].owner), task_id)

    async def owned_by(self, owner: str) -> list[TaskRecord]:
        async with guarded():
            ids = [text(i) for i in await self._redis.zrange(self._owner_key(owner), 0, -1)]
        records: list[TaskRecord] = []
        gone: list[str] = []
        for task_id in ids:
            record = await self.get(task_id)
            if record is None:
                gone.append(task_id)
            else:
                records.append(record)
        if gone:
            async with guarded():
                await self._redis.zrem(self._owner_key(owner), *gone)
        records.sort(key=lambda rec: (rec.created_at, rec.task_id))
        return records

    async def runner_of(self, task_id: str) -> str | None:
        """The id of the worker that runs (or ran) the task's body."""
        loaded = await self._load(task_id)
        return loaded[1] if loaded is not None else None

    # -- internals -----------------------------------------------------------------------------

    async def _load(self, task_id: str) -> tuple[TaskRecord, str] | None:
        async with guarded():
            raw = await self._redis.get(self._key(task_id))
        if raw is None:
            return None
        data: dict[str, Any] = msgspec.json.decode(raw)
        return TaskRecord.from_dict(data["r"]), text(data.get("w", ""))

    async def _runner_died(self, record: TaskRecord, worker: str) -> bool:
        alive = self._worker_alive
        if record.terminal or not worker or worker == self.worker_id or alive is None:
            return False
        return not await alive(worker)

    async def _abandon(self, record: TaskRecord) -> TaskRecord | None:
        """Mark a task whose worker died as failed (compare-and-set; a racing save wins)."""
        record.status = "failed"
        record.status_message = WORKER_GONE_MESSAGE
        record.error = {"code": _ABANDONED_CODE, "message": f"Task failed: {WORKER_GONE_MESSAGE}"}
        record.input_requests = {}
        record.touch()
        if await self.save(record):
            return record
        fresh = await self._load(record.task_id)
        return fresh[0] if fresh is not None else None


def _now_ms() -> float:
    import time

    return time.time() * 1000

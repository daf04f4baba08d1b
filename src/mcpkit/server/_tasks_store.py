"""Task records and where they are kept (the Tasks extension, ``io.modelcontextprotocol/tasks``).

A :class:`TaskRecord` is everything a server knows about one task: its status and timestamps, the
questions it is waiting on, the answers it already has, and its final result or error. Records
live in a :class:`TaskStore`. The store is the source of truth: ``tasks/get`` reads it, and a
``tools/call`` answers ``CreateTaskResult`` only after :meth:`TaskStore.create` returned, so the
task is *durably created before the reply* (a ``tasks/get`` right after always resolves).

Writers never overwrite each other: :meth:`TaskStore.save` is a compare-and-set on
:attr:`TaskRecord.version`, so a backend shared by several workers (Redis ``WATCH``, SQL
``UPDATE … WHERE version = ?``) can implement it directly, and a cancel racing a completion ends
with exactly one winner. :class:`InMemoryTaskStore` is the default: one process, bounded, expired
records dropped lazily.
"""

from __future__ import annotations

import abc
import dataclasses
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Final, Literal, cast

from mcpkit.protocol._errors import InternalError, UsageError
from mcpkit.types._base import INPUT_REQUESTS_KEY
from mcpkit.types._jsonrpc import JSONObject

__all__ = [
    "MAX_STORED_TASKS",
    "TERMINAL_STATUSES",
    "InMemoryTaskStore",
    "TaskLimitReached",
    "TaskRecord",
    "TaskStatus",
    "TaskStore",
    "iso_timestamp",
]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL_STATUSES: Final = frozenset({"completed", "failed", "cancelled"})
"""A task in one of these never changes again."""

MAX_STORED_TASKS: Final = 10_000
"""Records an :class:`InMemoryTaskStore` holds at once (unexpired ones are never evicted)."""


class TaskLimitReached(InternalError):
    """No room for another task (-32603): the store is full of unexpired tasks, or the server
    already runs as many as it allows. The message says which, and that a retry later helps."""


def iso_timestamp(epoch: float) -> str:
    """``2026-07-28T10:30:00.123Z`` — ISO 8601 in UTC, as the spec's examples write it."""
    text = datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


@dataclass(slots=True)
class TaskRecord:
    """One task. Times are epoch seconds (wall clock: records may be shared across machines)."""

    task_id: str
    status: TaskStatus
    created_at: float
    last_updated_at: float
    ttl_ms: int | None
    """Retention from creation; ``None`` keeps the task until it is deleted."""
    poll_interval_ms: int | None = None
    status_message: str | None = None
    input_requests: dict[str, JSONObject] = field(default_factory=dict)
    """Questions still waiting for an answer (only while ``input_required``)."""
    answers: dict[str, Any] = field(default_factory=dict)
    """Every answer received so far, by ``inputRequests`` key; a body re-run reads them."""
    result: JSONObject | None = None
    error: JSONObject | None = None
    owner: str | None = None
    """The authenticated principal that created the task; others cannot see it. A 2025-11-25
    task without authentication is owned by its session."""
    legacy: bool = False
    """Created by a 2025-11-25 ``tools/call`` with ``params.task`` (core tasks), not by the 2026
    extension: it is served in the 2025 shapes, and only to 2025-11-25 sessions."""
    version: int = 0
    """Bumped by every successful :meth:`TaskStore.save` (compare-and-set)."""

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def expired(self, now: float | None = None) -> bool:
        if self.ttl_ms is None:
            return False
        return (time.time() if now is None else now) >= self.created_at + self.ttl_ms / 1000

    def touch(self, status: TaskStatus | None = None, *, now: float | None = None) -> None:
        """Record a change (and optionally a new status) now."""
        if status is not None:
            self.status = status
        self.last_updated_at = time.time() if now is None else now

    def task_fields(self) -> JSONObject:
        """The ``Task`` members shared by ``CreateTaskResult``, ``tasks/get`` and notifications."""
        out: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": iso_timestamp(self.created_at),
            "lastUpdatedAt": iso_timestamp(self.last_updated_at),
            "ttlMs": self.ttl_ms,
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.poll_interval_ms is not None:
            out["pollIntervalMs"] = self.poll_interval_ms
        return out

    def core_task(self) -> JSONObject:
        """The 2025-11-25 ``Task`` (``ttl`` and ``pollInterval`` instead of ``ttlMs`` and
        ``pollIntervalMs``), for ``CreateTaskResult.task``, ``tasks/get``, ``tasks/list``,
        ``tasks/cancel`` and ``notifications/tasks/status``."""
        out: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": iso_timestamp(self.created_at),
            "lastUpdatedAt": iso_timestamp(self.last_updated_at),
            "ttl": self.ttl_ms,
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.poll_interval_ms is not None:
            out["pollInterval"] = self.poll_interval_ms
        return out

    def detailed(self) -> JSONObject:
        """The ``DetailedTask``: the task plus the payload its status carries."""
        out = self.task_fields()
        if self.status == "input_required":
            out[INPUT_REQUESTS_KEY] = dict(self.input_requests)
        elif self.status == "completed":
            out["result"] = self.result if self.result is not None else {}
        elif self.status == "failed":
            out["error"] = self.error or {"code": -32603, "message": "failed"}
        return out

    def copy(self) -> TaskRecord:
        """A copy whose own fields and maps can be changed without touching the original.

        Stores hand out copies so nobody changes a stored record without saving it. The JSON
        values inside (``result``, ``error``, each question and answer) are shared, not copied:
        they are replaced, never edited in place, so polling a task with a 10 MB result does not
        copy 10 MB each time.
        """
        return dataclasses.replace(
            self, input_requests=dict(self.input_requests), answers=dict(self.answers)
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible data, for stores that serialise records."""
        return {
            "task_id": self.task_id,
            "status": self.status,
            "created_at": self.created_at,
            "last_updated_at": self.last_updated_at,
            "ttl_ms": self.ttl_ms,
            "poll_interval_ms": self.poll_interval_ms,
            "status_message": self.status_message,
            "input_requests": self.input_requests,
            "answers": self.answers,
            "result": self.result,
            "error": self.error,
            "owner": self.owner,
            "legacy": self.legacy,
            "version": self.version,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskRecord:
        status = data["status"]
        if status not in ("working", "input_required", *TERMINAL_STATUSES):
            raise ValueError(f"not a task status: {status!r}")
        return cls(
            task_id=str(data["task_id"]),
            status=cast(TaskStatus, status),
            created_at=float(data["created_at"]),
            last_updated_at=float(data["last_updated_at"]),
            ttl_ms=data.get("ttl_ms"),
            poll_interval_ms=data.get("poll_interval_ms"),
            status_message=data.get("status_message"),
            input_requests=dict(data.get("input_requests") or {}),
            answers=dict(data.get("answers") or {}),
            result=data.get("result"),
            error=data.get("error"),
            owner=data.get("owner"),
            legacy=bool(data.get("legacy", False)),
            version=int(data.get("version", 0)),
        )


class TaskStore(abc.ABC):
    """Where task records live. Implement this to keep tasks in Redis, SQL, ...

    Every method is a coroutine so network backends fit. Contract:

    * :meth:`create` returns only once a :meth:`get` anywhere would find the record; it raises
      :class:`TaskLimitReached` when there is no room.
    * :meth:`get` returns a *copy* (changing it changes nothing until :meth:`save`), or ``None``
      for an unknown or expired task.
    * :meth:`save` stores the record only if the stored version still equals
      ``record.version`` and then increments both; it returns ``False`` (storing nothing) when
      someone else saved first or the task is gone. Callers re-read and retry.
    """

    shared: ClassVar[bool] = False
    """True when other processes may change records (the runner then re-reads the store
    periodically to notice answers and cancellations delivered to another worker)."""

    @abc.abstractmethod
    async def create(self, record: TaskRecord) -> None: ...

    @abc.abstractmethod
    async def get(self, task_id: str) -> TaskRecord | None: ...

    @abc.abstractmethod
    async def save(self, record: TaskRecord) -> bool: ...

    @abc.abstractmethod
    async def delete(self, task_id: str) -> None: ...

    listable: ClassVar[bool] = False
    """True when :meth:`owned_by` is implemented: the server then offers 2025-11-25
    ``tasks/list`` (``capabilities.tasks.list``)."""

    async def owned_by(self, owner: str) -> list[TaskRecord]:
        """Every unexpired record of ``owner``, oldest first (copies). Optional: stores that
        cannot enumerate leave :attr:`listable` false and ``tasks/list`` is not offered."""
        raise NotImplementedError(f"{type(self).__name__} cannot list tasks")

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release connections; called when the server stops."""


class InMemoryTaskStore(TaskStore):
    """Records in a dict, for one process. Bounded by ``max_tasks``; expired records are dropped
    when they are looked up or when room is needed. Unexpired tasks are never evicted early (a
    task must stay readable for its whole ``ttlMs``): a full store refuses new tasks instead."""

    listable: ClassVar[bool] = True

    def __init__(self, max_tasks: int = MAX_STORED_TASKS) -> None:
        if max_tasks < 1:
            raise UsageError(f"max_tasks must be at least 1, got {max_tasks}")
        self.max_tasks = max_tasks
        self._records: dict[str, TaskRecord] = {}

    def __len__(self) -> int:
        return len(self._records)

    async def create(self, record: TaskRecord) -> None:
        if record.task_id in self._records:
            raise UsageError(f"task {record.task_id!r} already exists")
        if len(self._records) >= self.max_tasks:
            self.purge_expired()
            if len(self._records) >= self.max_tasks:
                raise TaskLimitReached(
                    f"This server already holds {self.max_tasks} unexpired tasks; "
                    "try again once some have expired"
                )
        self._records[record.task_id] = record.copy()

    async def get(self, task_id: str) -> TaskRecord | None:
        record = self._records.get(task_id)
        if record is None:
            return None
        if record.expired():
            del self._records[task_id]
            return None
        return record.copy()

    async def save(self, record: TaskRecord) -> bool:
        stored = self._records.get(record.task_id)
        if stored is None or stored.version != record.version:
            return False
        record.version += 1
        self._records[record.task_id] = record.copy()
        return True

    async def delete(self, task_id: str) -> None:
        self._records.pop(task_id, None)

    async def owned_by(self, owner: str) -> list[TaskRecord]:
        self.purge_expired()
        mine = [rec for rec in self._records.values() if rec.owner == owner]
        mine.sort(key=lambda rec: (rec.created_at, rec.task_id))
        return [rec.copy() for rec in mine]

    def purge_expired(self) -> int:
        """Drop every expired record; returns how many went."""
        now = time.time()
        gone = [tid for tid, rec in self._records.items() if rec.expired(now)]
        for tid in gone:
            del self._records[tid]
        return len(gone)

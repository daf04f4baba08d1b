"""Running task bodies in the background, and moving their records through the states.

One :class:`TaskRunner` per :class:`~mcpkit.server.tasks.TaskManager`. Each task gets one asyncio
task (a *job*) that runs the tool body and writes the outcome to the store:

* the body returns → ``completed`` with the ``CallToolResult`` (a tool error, ``isError: true``,
  included; a 2025-11-25 core task records that one as ``failed``, as that revision says); it
  raises a JSON-RPC error → ``failed`` with that error;
* the body asks the client something (``ctx.elicit``, ``ctx.sample``, ``ctx.ask`` …) → the
  question ends the run, exactly like a 2026 MRTR round: the task goes ``input_required`` with
  the questions as ``inputRequests``; once ``tasks/update`` has answered every one of them the task
  is ``working`` again and the body re-runs from the top, this time getting the answers (a
  2025-11-25 core task instead sends the question to its session as a request and is
  ``input_required`` until the answer is back: no re-run);
* ``tasks/cancel`` → the job is cancelled (cooperatively: an ``await`` in the body raises
  ``CancelledError``; a sync body in a worker thread finishes but its result is dropped), and the
  record is already ``cancelled``.

Every state change is a compare-and-set on the record (:func:`mutate`), so whichever of a
completion and a cancel is saved first wins and the other changes nothing. The job never holds
the request open: the reply to ``tools/call`` has been sent before the body's first line runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

import msgspec

from mcpkit._runtime.concurrency import TaskScope
from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._errors import InternalError, JSONRPCError
from mcpkit.server._context import Context, ContextServices, InputRequired
from mcpkit.server._request import RequestInfo
from mcpkit.server._tasks_store import TaskRecord, TaskStatus, TaskStore
from mcpkit.types import meta as keys
from mcpkit.types._base import RESULT_TYPE_COMPLETE, RESULT_TYPE_KEY
from mcpkit.types._jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.server._tools import RegisteredTool

logger = logging.getLogger("mcpkit.server.tasks")

__all__ = [
    "MAX_CAS_RETRIES",
    "RELATED_TASK_KEY",
    "STORE_RECHECK_SECONDS",
    "TaskOutbound",
    "TaskRunner",
    "mutate",
    "patiently",
    "state_unavailable",
]

MAX_CAS_RETRIES: Final = 16
"""Attempts at a compare-and-set before giving up (only contention on one task can cause more
than one)."""
STORE_OUTAGE_PAUSE_CAP_SECONDS: Final = 1.0
"""While a shared task store is unavailable, the longest pause between two attempts."""
STORE_RECHECK_SECONDS: Final = 1.0
"""With a shared store, how often a job re-reads its record to notice answers and cancellations
delivered to another worker. A local store wakes jobs directly and never polls."""
TASK_SHUTDOWN_GRACE_SECONDS: Final = 5.0
"""How long :meth:`TaskRunner.close` waits for cancelled jobs to record their end."""

OnChange = Callable[[TaskRecord], Awaitable[None]]


async def mutate(
    store: TaskStore, task_id: str, change: Callable[[TaskRecord], bool]
) -> tuple[TaskRecord | None, bool]:
    """Apply ``change`` to the stored record with compare-and-set, retrying on conflicts.

    ``change`` edits the record in place and returns whether it changed anything (``False``
    saves nothing); it may raise to abort. Returns the record as stored (``None`` if the task is
    gone) and whether this call changed it.
    """
    for _ in range(MAX_CAS_RETRIES):
        record = await store.get(task_id)
        if record is None:
            return None, False
        if not change(record):
            return record, False
        if await store.save(record):
            return record, True
    raise InternalError(f"Task {task_id} is being changed concurrently; try again")


RELATED_TASK_KEY: Final = keys.RELATED_TASK
"""``_meta`` key tying a 2025-11-25 message to its task."""

Asking = Callable[[bool], Awaitable[None]]
"""``asking(True)`` before a 2025 task body's question goes out, ``asking(False)`` after."""


class TaskOutbound:
    """Where a task body's notifications and questions go.

    2026 extension (``forward`` is ``None``): nowhere. The extension has no channel for
    progress or log notifications, and questions become ``inputRequests`` instead of requests.

    2025-11-25 core tasks (``forward`` is the session's outbound): progress (the original
    ``progressToken`` stays valid for the task's life) and log notifications, and the body's
    questions (``ctx.elicit`` …) go to the session that created the task, each tagged with
    ``_meta["io.modelcontextprotocol/related-task"]``; while a question waits for its answer
    the task is ``input_required``. ``cancel_reason`` makes ``ctx.is_cancelled`` true after
    ``tasks/cancel``.
    """

    __slots__ = ("_asking", "_forward", "cancel_reason", "protocol_version", "task_id")

    def __init__(
        self,
        task_id: str,
        protocol_version: str | None,
        *,
        forward: Any = None,
        asking: Asking | None = None,
    ) -> None:
        self.task_id = task_id
        self.protocol_version = protocol_version
        self.cancel_reason: str | None = None
        self._forward = forward
        self._asking = asking

    def _tagged(self, params: JSONObject | None) -> JSONObject:
        out = dict(params or {})
        meta = out.get("_meta")
        meta = dict(meta) if isinstance(meta, dict) else {}
        meta[RELATED_TASK_KEY] = {"taskId": self.task_id}
        out["_meta"] = meta
        return out

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        if self._forward is None:
            logger.debug("task %s: dropped %s (tasks carry no notifications)", self.task_id, method)
            return
        with contextlib.suppress(Exception):  # the session may be gone; the task goes on
            await self._forward.send_notification(method, self._tagged(params))

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        if self._forward is None:
            raise InternalError("a task cannot send requests; questions become inputRequests")
        if self._asking is not None:
            await self._asking(True)
        try:
            result: JSONObject = await self._forward.send_request(
                method, self._tagged(params), timeout=timeout
            )
        finally:
            if self._asking is not None:
                await asyncio.shield(self._asking(False))
        return result


class _Job:
    __slots__ = ("arguments", "info", "outbound", "services", "task", "task_id", "tool", "wake")

    def __init__(
        self,
        services: ContextServices,
        tool: RegisteredTool,
        arguments: JSONObject | None,
        info: RequestInfo,
        outbound: TaskOutbound,
    ) -> None:
        self.services = services
        self.tool = tool
        self.arguments = arguments
        self.info = info
        self.outbound = outbound
        self.task_id = outbound.task_id
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @property
    def cancel_requested(self) -> bool:
        return self.outbound.cancel_reason is not None


class TaskRunner:
    """The jobs of this process. ``on_change`` is called after every state change it saves."""

    def __init__(self, store: TaskStore, on_change: OnChange) -> None:
        self._store = store
        self._on_change = on_change
        self._jobs: dict[str, _Job] = {}
        self._tasks: TaskSet | None = None
        """Owns the jobs (made on the loop of the first one); :meth:`close` cancels and awaits
        them."""

    @property
    def running(self) -> int:
        """Jobs alive in this process (running, or waiting for input)."""
        return len(self._jobs)

    def spawn(
        self,
        services: ContextServices,
        record: TaskRecord,
        tool: RegisteredTool,
        arguments: JSONObject | None,
        info: RequestInfo,
        *,
        forward: Any = None,
    ) -> None:
        """Start the job of a task that is already in the store. ``forward``: the session of a
        2025-11-25 task (see :class:`TaskOutbound`)."""
        asking = self._asking_hook(record.task_id) if forward is not None else None
        outbound = TaskOutbound(
            record.task_id, info.protocol_version, forward=forward, asking=asking
        )
        job_info = msgspec.structs.replace(
            info,
            outbound=outbound,
            log_level=None,
            input_responses={},
            answers={},
            memo=dict(info.memo),  # ctx.memo values survive the body's re-runs in the job
        )
        job = _Job(services, tool, arguments, job_info, outbound)
        self._jobs[record.task_id] = job
        loop = asyncio.get_running_loop()
        jobs = self._tasks
        if jobs is None or jobs.loop is not loop:
            jobs = self._tasks = TaskSet(loop, "task jobs", logger)
        job.task = jobs.spawn(self._run(job, record), name=f"mcpkit-task-{record.task_id}")

    def _asking_hook(self, task_id: str) -> Asking:
        """Moves a 2025 task to ``input_required`` while one of its questions is out."""
        outstanding = 0

        async def asking(start: bool) -> None:
            nonlocal outstanding
            outstanding += 1 if start else -1
            wanted: TaskStatus = "input_required" if outstanding > 0 else "working"

            def flip(record: TaskRecord) -> bool:
                if record.terminal or record.status == wanted:
                    return False
                record.touch(wanted)
                return True

            record, changed = await mutate(self._store, task_id, flip)
            if changed and record is not None:
                await self._on_change(record)

        return asking

    def wake(self, task_id: str) -> None:
        """The task's record changed (answers arrived): let its job look again."""
        job = self._jobs.get(task_id)
        if job is not None:
            job.wake.set()

    def cancel(self, task_id: str, reason: str) -> None:
        """Stop the task's job, if it runs here (its record already says ``cancelled``)."""
        job = self._jobs.get(task_id)
        if job is not None and job.task is not None:
            job.outbound.cancel_reason = reason
            job.task.cancel()

    async def close(self) -> None:
        """Cancel every job (server shutdown) and wait, bounded, for them to record it."""
        jobs, self._tasks = self._tasks, None
        if jobs is not None:
            await jobs.aclose(timeout=TASK_SHUTDOWN_GRACE_SECONDS)

    # -- one job -------------------------------------------------------------------------------

    async def _run(self, job: _Job, created: TaskRecord) -> None:
        try:
            # the watcher lives as long as the job: cancelled and awaited when it ends
            async with TaskScope(f"task {job.task_id}", logger) as scope:
                if self._store.shared:
                    scope.spawn(self._watch(job), name=f"mcpkit-task-watch-{job.task_id}")
                await self._run_job(job, created)
        finally:
            self._jobs.pop(job.task_id, None)

    async def _run_job(self, job: _Job, created: TaskRecord) -> None:
        ttl_left = None
        if created.ttl_ms is not None:
            ttl_left = created.created_at + created.ttl_ms / 1000 - time.time()
        deadline = asyncio.timeout(ttl_left)
        try:
            try:
                async with deadline:
                    await self._drive(job)
            except TimeoutError:
                if not deadline.expired():
                    raise  # not the TTL: a failure like any other (below)
                # the TTL ran out: the record is (about to be) gone; say so if it is still there
                expired = InternalError("Task expired")
                await self._settle(job.task_id, "failed", error=_error(expired))
        except asyncio.CancelledError:
            if not job.cancel_requested:  # not tasks/cancel: the server is stopping
                stopped = InternalError("The server stopped before the task finished")
                with contextlib.suppress(Exception):
                    await self._settle(job.task_id, "failed", error=_error(stopped))
            raise
        except Exception as exc:  # a bug (ours or the store's): the task must still end
            logger.exception("task %s: internal error", job.task_id)
            internal = InternalError(f"Internal error while running the task: {exc}")
            with contextlib.suppress(Exception):
                await self._settle(job.task_id, "failed", error=_error(internal))

    async def _drive(self, job: _Job) -> None:
        while True:
            record = await patiently(lambda: self._store.get(job.task_id), job.task_id)
            if record is None or record.terminal:
                return
            if record.status == "input_required":
                await self._wait_for_input(job)
                continue
            info = msgspec.structs.replace(job.info, answers=dict(record.answers))
            try:
                result = await job.tool.call(job.arguments, Context(info, job.services))
            except InputRequired as needed:
                await self._park(job, needed)
                continue
            except JSONRPCError as exc:
                await self._settle(job.task_id, "failed", error=_error(exc))
                return
            result = dict(result)
            if record.legacy:  # 2025-11-25: a tool error fails the task; no resultType there
                result.pop(RESULT_TYPE_KEY, None)
                status: TaskStatus = "failed" if result.get("isError") else "completed"
                await self._settle(job.task_id, status, result=result)
                return
            result.setdefault(RESULT_TYPE_KEY, RESULT_TYPE_COMPLETE)
            await self._settle(job.task_id, "completed", result=result)
            return

    async def _park(self, job: _Job, needed: InputRequired) -> None:
        """The body asked questions: publish them as ``inputRequests``."""

        def ask(record: TaskRecord) -> bool:
            if record.terminal:
                return False
            record.answers.update(needed.answers)
            pending = {k: v for k, v in needed.requests.items() if k not in record.answers}
            if not pending:
                raise InternalError("the task asked again for input it already has")
            record.input_requests = pending
            record.touch("input_required")
            return True

        record, changed = await patiently(
            lambda: mutate(self._store, job.task_id, ask), job.task_id
        )
        if changed and record is not None:
            await self._on_change(record)

    async def _wait_for_input(self, job: _Job) -> None:
        """Return once the task left ``input_required`` (answered, cancelled or gone)."""
        while True:
            job.wake.clear()  # before reading: an answer saved after the read still wakes us
            record = await patiently(lambda: self._store.get(job.task_id), job.task_id)
            if record is None or record.status != "input_required":
                return
            if self._store.shared:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(job.wake.wait(), STORE_RECHECK_SECONDS)
            else:
                await job.wake.wait()

    async def _watch(self, job: _Job) -> None:
        """Shared stores only: notice a cancel (or expiry) saved by another worker."""
        while True:
            await asyncio.sleep(STORE_RECHECK_SECONDS)
            record = await patiently(lambda: self._store.get(job.task_id), job.task_id)
            if record is None or record.status == "cancelled":  # the job settles all others
                self.cancel(job.task_id, "the task was cancelled or expired elsewhere")
                return

    async def _settle(
        self,
        task_id: str,
        status: TaskStatus,
        *,
        result: JSONObject | None = None,
        error: JSONObject | None = None,
    ) -> None:
        def finish(record: TaskRecord) -> bool:
            if record.terminal:
                return False  # cancelled first: the late outcome is dropped
            record.input_requests = {}
            record.result = result
            record.error = error
            if status == "failed" and record.status_message is None:
                # a failed task says why (a 2025-11-25 tool error is a failed task too)
                record.status_message = _failure_message(error, result)
            record.touch(status)
            return True

        record, changed = await patiently(lambda: mutate(self._store, task_id, finish), task_id)
        if changed and record is not None:
            await self._on_change(record)


MAX_STATUS_MESSAGE: Final = 500
"""Characters of a tool error's text kept as a failed task's ``statusMessage``."""


def _failure_message(error: JSONObject | None, result: JSONObject | None) -> str:
    """Why the task failed: the error's message, or the text of the tool's error result."""
    if error is not None:
        return str(error.get("message", "failed"))
    blocks = result.get("content") if result is not None else None
    texts = [
        block["text"]
        for block in (blocks if isinstance(blocks, list) else ())
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    ]
    text = " ".join(texts).strip()
    if not text:
        return "the tool reported an error"
    return text if len(text) <= MAX_STATUS_MESSAGE else text[: MAX_STATUS_MESSAGE - 1] + "…"


_T = TypeVar("_T")


def state_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the shared state (a task store on Redis) is down for now.

    Imported here, on a failure only: a server that never serves HTTP never loads it."""
    from mcpkit.transports.http._server.session_store import StateUnavailable

    return isinstance(exc, StateUnavailable)


async def patiently(operation: Callable[[], Awaitable[_T]], task_id: str) -> _T:
    """``operation()``, tried again (with backoff) while the shared task store is unavailable.

    A task body outlives a store outage: its reads wait and its outcome is recorded once the
    store answers again, instead of the body dying at its first store access and the record
    staying ``working`` (nobody could write that it failed). The task's TTL and cancellation
    still bound the wait."""
    pause = 0.05
    warned = False
    while True:
        try:
            return await operation()
        except Exception as exc:
            if not state_unavailable(exc):
                raise
            if not warned:
                warned = True
                logger.warning("task %s waits for the task store: %s", task_id, exc)
            await asyncio.sleep(pause)
            pause = min(pause * 2, STORE_OUTAGE_PAUSE_CAP_SECONDS)


def _error(exc: JSONRPCError) -> JSONObject:
    out: dict[str, Any] = {"code": exc.code, "message": exc.message}
    if exc.data is not None:
        out["data"] = exc.data
    return out

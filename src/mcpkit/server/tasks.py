"""Tasks: long tool calls answered with a handle the client polls (2026-07-28 extension
``io.modelcontextprotocol/tasks``, SEP-2663).

Enable them with ``Server(tasks=True)`` (an in-memory store), ``Server(tasks=SomeStore())`` or
``Server(tasks=TaskManager(store, ttl_ms=..., ...))``, and mark tools::

    @server.tool(task_support="optional")          # or "required"
    async def render(scene: str) -> str: ...

A 2026 ``tools/call`` for such a tool from a client that declared the extension (in the request's
``clientCapabilities.extensions``) is answered at once with a ``CreateTaskResult``
(``resultType: "task"``); the body then runs in the background. The client polls ``tasks/get``
(a ``DetailedTask``: the result, the JSON-RPC error, or the questions the task waits on), answers
questions with ``tasks/update`` and may ``tasks/cancel``; or it listens for ``notifications/tasks``
with a ``subscriptions/listen`` filter ``{"taskIds": [...]}``.

* Without the extension an ``optional`` tool runs as a plain call; a ``required`` one is refused
  with -32021 naming ``requiredCapabilities.extensions``. In a legacy session an ``optional`` tool
  runs as a plain call and a ``required`` one is -32601.
* Questions inside a task (``ctx.elicit`` & co.) make the task ``input_required``; when every
  question is answered the body runs again from the top and gets the answers (the MRTR model:
  keep code before a question idempotent).
* ``task_start="explicit"`` runs the body inside the request until it calls
  ``await start_task(ctx)``: questions before that are ordinary MRTR round trips, so input is
  gathered *before* the task exists; the task then runs the body again from the top, with those
  answers. A body that returns without calling it gives a plain result.
* Inside a task, progress and log notifications are dropped (the extension has none).

**2025-11-25 core tasks** share the same manager, store and limits. In a 2025-11-25 session the
server declares ``capabilities.tasks`` (``list`` when the store can enumerate, ``cancel``,
``requests.tools.call``) and lists ``execution.taskSupport`` on such tools; a ``tools/call`` with
``params.task`` is answered with ``CreateTaskResult{task}`` and the client uses ``tasks/get``,
``tasks/result`` (blocks until the task ends, then returns exactly the tool's result or error),
``tasks/list`` and ``tasks/cancel``; ``notifications/tasks/status`` tells the session about every
change. There a body's questions are ordinary server→client requests tagged with the
``related-task`` ``_meta`` (the task is ``input_required`` while one waits), progress keeps the
original token, and a result with ``isError: true`` makes the task ``failed``. Without
authentication a 2025 task belongs to its session: no other session can see, list or cancel it.
Each era sees only its own tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from mcpkit.protocol._capabilities import has_capability
from mcpkit.protocol._errors import (
    InternalError,
    InvalidParams,
    JSONRPCError,
    MethodNotFound,
    MissingRequiredClientCapability,
    UsageError,
)
from mcpkit.server._context import Context, ContextServices, InputRequired
from mcpkit.server._params import decode_params
from mcpkit.server._request import LegacyConnection, Outbound, RequestInfo
from mcpkit.server._tasks_runner import (
    RELATED_TASK_KEY,
    STORE_RECHECK_SECONDS,
    TaskOutbound,
    TaskRunner,
    mutate,
    state_unavailable,
)
from mcpkit.server._tasks_store import (
    MAX_STORED_TASKS,
    TERMINAL_STATUSES,
    InMemoryTaskStore,
    TaskLimitReached,
    TaskRecord,
    TaskStatus,
    TaskStore,
)
from mcpkit.server._tools import TaskStart, TaskSupport
from mcpkit.server.middleware import RequestView
from mcpkit.types._base import RESULT_TYPE_KEY, RESULT_TYPE_TASK
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._tasks_ext import TASKS_EXTENSION_ID as _TASKS_EXTENSION_ID
from mcpkit.types._versions import CORE_TASKS_VERSION

if TYPE_CHECKING:
    from mcpkit.server._tools import RegisteredTool
    from mcpkit.types._common import PaginatedRequestParams
    from mcpkit.types._tasks import TaskIdParams
    from mcpkit.types._tasks_ext import UpdateTaskRequestParams

logger = logging.getLogger("mcpkit.server.tasks")

__all__ = [
    "DEFAULT_POLL_INTERVAL_MS",
    "DEFAULT_TASK_TTL_MS",
    "MAX_RUNNING_TASKS",
    "MAX_STORED_TASKS",
    "MAX_TASK_SUBSCRIPTIONS",
    "CORE_TASKS_VERSION",
    "CORE_TASK_METHODS",
    "MAX_TASKS_PAGE",
    "RELATED_TASK_KEY",
    "TASKS_EXTENSION_ID",
    "TASK_METHODS",
    "TERMINAL_STATUSES",
    "InMemoryTaskStore",
    "TaskHost",
    "TaskLimitReached",
    "TaskManager",
    "TaskRecord",
    "TaskStart",
    "TaskStatus",
    "TaskStore",
    "TaskSupport",
    "client_declared_tasks",
    "core_task_param",
    "current_task_id",
    "default_principal",
    "set_status_message",
    "start_task",
]

TASKS_EXTENSION_ID: Final = _TASKS_EXTENSION_ID
TASK_METHODS: Final = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
"""What the extension adds; ``tasks/result`` and ``tasks/list`` (2025-11-25) are -32601 in 2026."""
CORE_TASK_METHODS: Final = frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})
"""The 2025-11-25 core task methods (served to 2025-11-25 sessions only)."""
MAX_TASKS_PAGE: Final = 100
"""Tasks per ``tasks/list`` page."""
DEFAULT_TASK_TTL_MS: Final = 3_600_000
"""How long a task stays readable after it was created (an hour), unless configured."""
DEFAULT_POLL_INTERVAL_MS: Final = 1_000
"""The ``pollIntervalMs`` suggested to clients."""
MAX_RUNNING_TASKS: Final = 100
"""Task bodies one process runs at once; more are refused with -32603 until some end."""
MAX_TASK_SUBSCRIPTIONS: Final = 1_000
"""Task ids one ``subscriptions/listen`` request may name."""
TASK_ID_BYTES: Final = 16
"""Entropy of a task id (128 bits): ids are unguessable even where no auth binds them."""
CANCEL_MESSAGE: Final = "Cancelled at the client's request"


def _new_task_id() -> str:
    """A fresh task id: :data:`TASK_ID_BYTES` random bytes, URL-safe, never starting with ``-``.

    Task ids are typed and pasted into command lines (``mcpkit watch URL --task ID``), where an
    argument starting with ``-`` reads as an option: one id in 64 did.
    """
    while True:
        task_id = secrets.token_urlsafe(TASK_ID_BYTES)
        if not task_id.startswith("-"):
            return task_id


def client_declared_tasks(capabilities: JSONObject | None) -> bool:
    """Whether a request's client capabilities declare the Tasks extension."""
    return has_capability(capabilities, ("extensions", TASKS_EXTENSION_ID))


def core_task_param(info: RequestView) -> JSONObject | None:
    """``params.task`` of a 2025-11-25 request (``None`` when absent or another revision,
    where a ``task`` member means nothing and is ignored)."""
    if info.era == "modern" or info.protocol_version != CORE_TASKS_VERSION:
        return None
    task = info.params.get("task")
    if task is None:
        return None
    if not isinstance(task, dict) or not isinstance(task.get("ttl", 0), int):
        decode_params("tools/call", info.params)  # raises, naming what is wrong
    return task


def _missing_extension(why: str) -> MissingRequiredClientCapability:
    return MissingRequiredClientCapability(
        f"{why} needs the client capability extensions[{TASKS_EXTENSION_ID!r}], "
        "which this request did not declare",
        {"requiredCapabilities": {"extensions": {TASKS_EXTENSION_ID: {}}}},
    )


def default_principal(auth: Any) -> str | None:
    """Who owns a task: the verified token's subject and client id (``None`` without auth)."""
    if auth is None:
        return None

    def read(key: str) -> Any:
        return auth.get(key) if isinstance(auth, dict) else getattr(auth, key, None)

    subject = read("subject") or read("sub")
    client = read("client_id")
    if subject is None and client is None:
        return None
    return f"{subject}\x00{client}"


class TaskHost:
    """What a :class:`TaskManager` reaches of the server it serves: the services each task
    body's :class:`Context` gets, and where a 2026 task's change is published (the listen
    streams). Made once by the ``Server``; nothing else of it is needed."""

    __slots__ = ("publish_task", "services")

    def __init__(
        self,
        services: ContextServices,
        publish_task: Callable[[str, JSONObject], Awaitable[None]],
    ) -> None:
        self.services = services
        self.publish_task = publish_task


class _StartTask(InputRequired):
    """Ends the in-request part of a ``task_start="explicit"`` body (see :func:`start_task`)."""

    def __init__(self, answers: JSONObject, status_message: str | None) -> None:
        super().__init__({}, answers)
        self.status_message = status_message


_task_eligible: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "mcpkit_task_eligible", default=False
)


class TaskManager:
    """Creates, runs and answers for tasks; ``server.tasks`` when tasks are enabled.

    ``store`` keeps the records (:class:`InMemoryTaskStore` by default). ``ttl_ms`` is how long
    a task stays readable after creation (``None``: until deleted; a running body is stopped when
    its TTL ends). ``principal(auth)`` names who owns a task; other principals get -32602 as if
    it did not exist.
    """

    def __init__(
        self,
        store: TaskStore | None = None,
        *,
        ttl_ms: int | None = DEFAULT_TASK_TTL_MS,
        poll_interval_ms: int | None = DEFAULT_POLL_INTERVAL_MS,
        max_running: int = MAX_RUNNING_TASKS,
        principal: Callable[[Any], str | None] = default_principal,
    ) -> None:
        if ttl_ms is not None and ttl_ms <= 0:
            raise UsageError(f"ttl_ms must be a positive number of milliseconds, got {ttl_ms}")
        if poll_interval_ms is not None and poll_interval_ms <= 0:
            raise UsageError(f"poll_interval_ms must be positive, got {poll_interval_ms}")
        if max_running < 1:
            raise UsageError(f"max_running must be at least 1, got {max_running}")
        self.store = store if store is not None else InMemoryTaskStore()
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self.max_running = max_running
        self.principal = principal
        self._host: TaskHost | None = None
        self._runner = TaskRunner(self.store, self._changed)
        self._sessions: weakref.WeakKeyDictionary[LegacyConnection, str] = (
            weakref.WeakKeyDictionary()
        )
        """A random owner token per 2025 session (tasks without auth belong to their session)."""
        self._status_targets: dict[str, Outbound] = {}
        """Where ``notifications/tasks/status`` go for this process's live 2025 tasks."""
        self._change: asyncio.Event | None = None
        """Set (then dropped) on every state change made by this process; see wait_for. Made
        on demand, so the manager is not tied to the event loop it was created under."""

    def bind(self, host: TaskHost) -> None:
        """Serve the server ``host`` speaks for (the ``Server`` calls this once)."""
        if self._host is not None and self._host.services is not host.services:
            raise UsageError("a TaskManager serves one Server")
        self._host = host

    @property
    def running(self) -> int:
        """Task bodies alive in this process."""
        return self._runner.running

    async def get(self, task_id: str) -> TaskRecord | None:
        """The stored record (a copy), or ``None`` when unknown or expired."""
        return await self.store.get(task_id)

    async def wait_for(
        self, task_id: str, *statuses: TaskStatus, timeout: float | None = None
    ) -> TaskRecord:
        """Wait until the task has one of ``statuses`` (default: any terminal one).

        Woken by every change this process makes (no polling); with a shared store it also
        re-reads every ``STORE_RECHECK_SECONDS``. Raises :class:`LookupError` if the task is
        unknown or expired, :class:`TimeoutError` after ``timeout`` seconds.
        """
        wanted = frozenset(statuses) or TERMINAL_STATUSES
        async with asyncio.timeout(timeout):
            while True:
                if self._change is None:
                    self._change = asyncio.Event()
                changed = self._change  # taken before reading: a later change still wakes us
                record = await self.store.get(task_id)
                if record is None:
                    raise LookupError(f"unknown or expired task {task_id!r}")
                if record.status in wanted:
                    return record
                if self.store.shared:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(changed.wait(), STORE_RECHECK_SECONDS)
                else:
                    await changed.wait()

    async def shutdown(self) -> None:
        """Stop every body running in this process (each task records ``failed``). The server
        calls this when it stops; the store stays open."""
        await self._runner.close()

    async def aclose(self) -> None:
        """:meth:`shutdown`, then close the store."""
        await self.shutdown()
        await self.store.aclose()

    # -- tools/call ----------------------------------------------------------------------------

    async def call_tool(
        self, tool: RegisteredTool, arguments: JSONObject | None, info: RequestInfo, ctx: Context
    ) -> JSONObject:
        """Serve ``tools/call`` for a tool with task support: a task, or a plain call."""
        if info.era != "modern":
            task = core_task_param(info)
            if task is not None:
                return await self._create_core(tool, arguments, info, task)
            if tool.task_support == "required":
                raise MethodNotFound(
                    f"Tool {tool.name} runs only as a task: call it with params.task "
                    f"(protocol {CORE_TASKS_VERSION}) or with protocol 2026-07-28 and the "
                    f"{TASKS_EXTENSION_ID} extension"
                )
            return await tool.call(arguments, ctx)
        if not client_declared_tasks(info.client_capabilities):
            if tool.task_support == "required":
                raise _missing_extension(f"Tool {tool.name} runs only as a task; it")
            return await tool.call(arguments, ctx)
        if tool.task_start == "immediate":
            return await self._create(tool, arguments, info, {}, None)
        token = _task_eligible.set(True)
        try:
            return await tool.call(arguments, ctx)
        except _StartTask as start:
            return await self._create(tool, arguments, info, start.answers, start.status_message)
        finally:
            _task_eligible.reset(token)

    async def _create(
        self,
        tool: RegisteredTool,
        arguments: JSONObject | None,
        info: RequestInfo,
        answers: JSONObject,
        status_message: str | None,
    ) -> JSONObject:
        record = self._new_record(info, self.ttl_ms, answers, status_message)
        await self.store.create(record)  # durable before the reply: tasks/get will find it
        assert self._host is not None
        self._runner.spawn(self._host.services, record, tool, arguments, info)
        result = record.task_fields()
        result[RESULT_TYPE_KEY] = RESULT_TYPE_TASK
        return result

    async def _create_core(
        self,
        tool: RegisteredTool,
        arguments: JSONObject | None,
        info: RequestInfo,
        task: JSONObject,
    ) -> JSONObject:
        """2025-11-25 ``tools/call`` with ``params.task``: ``CreateTaskResult{task}``."""
        ttl = task.get("ttl")
        if ttl is not None and (isinstance(ttl, bool) or ttl <= 0):
            raise InvalidParams("params.task.ttl must be a positive whole number of milliseconds")
        if ttl is None:
            ttl_ms = self.ttl_ms
        else:  # the receiver may shorten what was asked, never lengthen past its own limit
            ttl_ms = ttl if self.ttl_ms is None else min(ttl, self.ttl_ms)
        record = self._new_record(info, ttl_ms, {}, None)
        record.legacy = True
        record.owner = self._core_owner(info)
        forward = info.connection.notify if info.connection is not None else None
        await self.store.create(record)
        if forward is not None:
            self._status_targets[record.task_id] = forward
        assert self._host is not None
        self._runner.spawn(self._host.services, record, tool, arguments, info, forward=forward)
        return {"task": record.core_task()}

    def _new_record(
        self,
        info: RequestInfo,
        ttl_ms: int | None,
        answers: JSONObject,
        status_message: str | None,
    ) -> TaskRecord:
        assert self._host is not None, "TaskManager.bind(host) was not called"
        if self._runner.running >= self.max_running:
            raise TaskLimitReached(
                f"This server already runs {self.max_running} tasks; try again when some end"
            )
        now = time.time()
        return TaskRecord(
            task_id=_new_task_id(),
            status="working",
            created_at=now,
            last_updated_at=now,
            ttl_ms=ttl_ms,
            poll_interval_ms=self.poll_interval_ms,
            status_message=status_message,
            answers=dict(answers),
            owner=self.principal(info.auth),
        )

    def use_store(self, store: TaskStore) -> None:
        """Keep records in ``store`` from now on (a shared backend installed at startup, e.g.
        ``mcpkit.contrib.redis``); call it before any task exists."""
        self.store = store
        self._runner = TaskRunner(store, self._changed)

    def _core_owner(self, info: RequestInfo) -> str | None:
        """Who owns a 2025 task: the authenticated principal, else the session itself."""
        principal = self.principal(info.auth)
        if principal is not None or info.connection is None:
            return principal
        if self.store.shared and info.connection.session_id is not None:
            # Another worker serves this session too: the owner must be the same there. The
            # session id is as unguessable as a fresh token and only its holder presents it.
            return f"session\x00{info.connection.session_id}"
        token = self._sessions.get(info.connection)
        if token is None:
            token = self._sessions[info.connection] = secrets.token_urlsafe(TASK_ID_BYTES)
        return f"session\x00{token}"

    # -- tasks/get, tasks/update, tasks/cancel -------------------------------------------------

    async def handle_get(self, info: RequestInfo, ctx: Context) -> JSONObject:
        record = await self._visible_record(info)
        return record.core_task() if record.legacy else record.detailed()

    async def handle_result(self, info: RequestInfo, ctx: Context) -> JSONObject:
        """2025-11-25 ``tasks/result``: wait for the end, then exactly the tool's answer."""
        record = await self._visible_record(info)
        try:
            record = await self.wait_for(record.task_id)
        except LookupError:
            raise InvalidParams(
                f"Failed to retrieve task: task {record.task_id!r} expired while waiting"
            ) from None
        related = {RELATED_TASK_KEY: {"taskId": record.task_id}}
        if record.result is not None:
            result = dict(record.result)
            meta = result.get("_meta")
            result["_meta"] = {**(meta if isinstance(meta, dict) else {}), **related}
            return result
        if record.status == "cancelled":
            raise InternalError(f"Task {record.task_id} was cancelled before it finished")
        error = record.error or {}
        code = error.get("code")
        raise JSONRPCError(
            str(error.get("message", "The task failed")),
            error.get("data"),
            code=code if isinstance(code, int) else InternalError.code,
        )

    async def handle_list(self, info: RequestInfo, ctx: Context) -> JSONObject:
        """2025-11-25 ``tasks/list``: this session's (or principal's) tasks, paginated."""
        self._require_core(info)
        owner = self._core_owner(info)
        params: PaginatedRequestParams = decode_params("tasks/list", info.request.params)
        cursor = params.cursor
        records = await self.store.owned_by(owner) if owner is not None else []
        records = [r for r in records if r.legacy]
        start = 0
        if cursor is not None:
            ids = [r.task_id for r in records]
            if cursor not in ids:
                raise InvalidParams(f"Invalid cursor {cursor!r}: unknown or expired")
            start = ids.index(cursor) + 1
        page = records[start : start + MAX_TASKS_PAGE]
        result: JSONObject = {"tasks": [r.core_task() for r in page]}
        if start + MAX_TASKS_PAGE < len(records):
            result["nextCursor"] = page[-1].task_id
        return result

    async def handle_update(self, info: RequestInfo, ctx: Context) -> JSONObject:
        self._check_era(info)
        params: UpdateTaskRequestParams = decode_params("tasks/update", info.request.params)
        record = await self._owned_record(params.task_id, info)
        responses = params.input_responses  # each an object: the model checked them all

        def answer(current: TaskRecord) -> bool:
            if current.status != "input_required":
                return False  # nothing is outstanding: every response is ignored
            taken = [key for key in responses if key in current.input_requests]
            for key in taken:
                current.answers[key] = responses[key]
                del current.input_requests[key]
            if not taken:
                return False
            if not current.input_requests:
                current.status_message = None
                current.touch("working")
            else:
                current.touch()
            return True

        updated, changed = await mutate(self.store, record.task_id, answer)
        if changed and updated is not None:
            self._runner.wake(updated.task_id)
            await self._changed(updated)
        return {}

    async def handle_cancel(self, info: RequestInfo, ctx: Context) -> JSONObject:
        record = await self._visible_record(info)
        legacy = record.legacy

        def cancel(current: TaskRecord) -> bool:
            if current.terminal:
                if legacy:  # 2025-11-25: cancelling a finished task is -32602
                    raise InvalidParams(
                        f"Cannot cancel task {current.task_id!r}: it is already {current.status}"
                    )
                return False  # 2026: idempotent, the ack is the same
            current.input_requests = {}
            current.status_message = CANCEL_MESSAGE
            current.touch("cancelled")
            return True

        updated, changed = await mutate(self.store, record.task_id, cancel)
        if changed and updated is not None:
            self._runner.cancel(updated.task_id, CANCEL_MESSAGE)
            await self._changed(updated)
        if legacy:
            return (updated or record).core_task()
        return {}

    def _require_core(self, info: RequestInfo) -> None:
        if info.era == "modern" or info.protocol_version != CORE_TASKS_VERSION:
            raise MethodNotFound(
                f"Method not found: {info.request.method} (core tasks exist only in protocol "
                f"{CORE_TASKS_VERSION}; this session speaks {info.protocol_version})"
            )

    def _check_era(self, info: RequestInfo) -> None:
        """2026: the client declared the extension; 2025: the session speaks 2025-11-25."""
        if info.era == "modern":
            if not client_declared_tasks(info.client_capabilities):
                raise _missing_extension(info.request.method)
        else:
            self._require_core(info)

    async def _visible_record(self, info: RequestInfo) -> TaskRecord:
        """The task a ``TaskIdParams`` request (``tasks/get``, ``tasks/result``,
        ``tasks/cancel``) names, decoded in one pass like every other handler's params."""
        self._check_era(info)
        params: TaskIdParams = decode_params(info.request.method, info.request.params)
        return await self._owned_record(params.task_id, info)

    async def _owned_record(self, task_id: str, info: RequestInfo) -> TaskRecord:
        record = await self.store.get(task_id)
        if record is None or not self._owns(record, info):
            raise InvalidParams(f"Failed to retrieve task: unknown or expired taskId {task_id!r}")
        return record

    def _owns(self, record: TaskRecord, info: RequestInfo) -> bool:
        """Each era sees only its own tasks; a task with an owner only that owner sees."""
        if record.legacy != (info.era != "modern"):
            return False
        if record.legacy:
            return record.owner is None or record.owner == self._core_owner(info)
        return record.owner is None or record.owner == self.principal(info.auth)

    # -- notifications ---------------------------------------------------------------------------

    async def agree_listen(self, task_ids: list[str], info: RequestInfo) -> list[str]:
        """The ``taskIds`` of a ``subscriptions/listen`` filter this client may follow."""
        if not client_declared_tasks(info.client_capabilities):
            raise _missing_extension("Task notifications (notifications.taskIds)")
        if len(task_ids) > MAX_TASK_SUBSCRIPTIONS:
            raise InvalidParams(f"at most {MAX_TASK_SUBSCRIPTIONS} taskIds per listen")
        agreed = []
        for task_id in dict.fromkeys(task_ids):
            record = await self.store.get(task_id)
            if record is not None and self._owns(record, info):
                agreed.append(task_id)
        return agreed

    async def _changed(self, record: TaskRecord) -> None:
        if self._change is not None:
            self._change.set()
            self._change = None
        if record.legacy:
            target = self._status_targets.get(record.task_id)
            if record.terminal:
                self._status_targets.pop(record.task_id, None)
            if target is not None:
                with contextlib.suppress(Exception):  # optional; a gone session is no error
                    await target.send_notification("notifications/tasks/status", record.core_task())
            return
        if self._host is not None:
            await self._host.publish_task(record.task_id, record.detailed())


def _task_outbound(ctx: Context) -> TaskOutbound | None:
    outbound = ctx._info.outbound
    return outbound if isinstance(outbound, TaskOutbound) else None


def current_task_id(ctx: Context) -> str | None:
    """The id of the task this body runs as, or ``None`` outside a task."""
    outbound = _task_outbound(ctx)
    return outbound.task_id if outbound is not None else None


async def start_task(ctx: Context, status_message: str | None = None) -> None:
    """Become a task here (tools registered with ``task_start="explicit"``).

    Inside the request, when the call may become a task (the tool supports tasks and the client
    declared the extension), this ends the request with a ``CreateTaskResult``; the task then
    runs the body again from the top with the answers gathered so far, and there this call
    returns at once (setting ``status_message`` if given). Anywhere else it does nothing and the
    body simply continues.
    """
    if _task_outbound(ctx) is not None:
        if status_message is not None:
            await set_status_message(ctx, status_message)
        return
    if _task_eligible.get():
        raise _StartTask(dict(ctx._info.answers), status_message)


async def set_status_message(ctx: Context, message: str | None) -> None:
    """Set the task's ``statusMessage`` (shown by ``tasks/get``); nothing outside a task."""
    outbound = _task_outbound(ctx)
    manager = ctx._services.tasks
    if outbound is None or manager is None:
        return

    def describe(record: TaskRecord) -> bool:
        if record.terminal or record.status_message == message:
            return False
        record.status_message = message
        record.touch()
        return True

    try:
        updated, changed = await mutate(manager.store, outbound.task_id, describe)
    except Exception as exc:
        if not state_unavailable(exc):
            raise
        # A status message is a courtesy: the shared store being down must not end the body
        # (its outcome is recorded once the store is back; see ``patiently``).
        logger.warning("task %s: status message not saved: %s", outbound.task_id, exc)
        return
    if changed and updated is not None:
        await manager._changed(updated)

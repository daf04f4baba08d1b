"""Tool calls that run as tasks: start one, follow it, get its result, cancel it, list them.

Both flavours of MCP tasks are served by one API:

* **2026-07-28, the Tasks extension** (``io.modelcontextprotocol/tasks``). The client declares
  the extension on the task requests only (a plain :meth:`~mcpkit.client.Client.call_tool` never
  gets a task back). The server alone decides whether a call becomes a task; when it answers
  directly, the :class:`ToolTask` is already finished. Polling is ``tasks/get``, which carries
  the result, the error, or the questions the task waits on: those are answered with the
  client's own handlers (elicitation, sampling, roots) and sent back with ``tasks/update``.
* **2025-11-25 core tasks** (``params.task``). Used only when the server declares
  ``tasks.requests.tools.call`` and lists the tool with ``execution.taskSupport`` optional or
  required (the spec's MUST); otherwise :class:`TasksUnsupported`. Polling is ``tasks/get``;
  the result comes from ``tasks/result``, which is also called as soon as the task is
  ``input_required`` (the server's questions then arrive as ordinary requests, answered by the
  same handlers). ``notifications/tasks/status`` wakes the poll early.

Polling honours the server's interval (``pollIntervalMs`` / ``pollInterval``), clamped to
[:data:`MIN_POLL_INTERVAL`, :data:`MAX_POLL_INTERVAL`] seconds, :data:`DEFAULT_POLL_INTERVAL`
when the server gives none.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._errors import ClientError, ServerMisbehaved, UnknownTool, UnsupportedInEra
from mcpkit.client._tools import ToolMethods
from mcpkit.client._typed import decode_tool_result
from mcpkit.protocol._errors import JSONRPCError, MissingServerCapability
from mcpkit.types import meta as keys
from mcpkit.types._base import (
    INPUT_REQUESTS_KEY,
    INPUT_RESPONSES_KEY,
    RESULT_TYPE_COMPLETE,
    RESULT_TYPE_KEY,
    RESULT_TYPE_TASK,
)
from mcpkit.types._jsonrpc import ErrorObject, JSONObject, Notification
from mcpkit.types._tasks_ext import TASKS_EXTENSION_ID
from mcpkit.types._tools import CallToolResult
from mcpkit.types._versions import CORE_TASKS_VERSION

__all__ = [
    "CORE_TASKS_VERSION",
    "DEFAULT_POLL_INTERVAL",
    "MAX_POLL_INTERVAL",
    "MIN_POLL_INTERVAL",
    "TASKS_EXTENSION",
    "TaskCancelled",
    "TaskInfo",
    "TaskMethods",
    "TaskStatus",
    "TasksUnsupported",
    "ToolTask",
]

TASKS_EXTENSION: Final = TASKS_EXTENSION_ID
DEFAULT_POLL_INTERVAL: Final = 1.0
"""Seconds between polls when the server suggests no interval."""
MIN_POLL_INTERVAL: Final = 0.01
"""A server cannot make the client poll faster than this."""
MAX_POLL_INTERVAL: Final = 30.0
"""Nor slower than this (a status change is noticed within it)."""

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
_STATUSES: Final = frozenset({"working", "input_required", "completed", "failed", "cancelled"})
_TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
_CAPS_KEY: Final = keys.CLIENT_CAPABILITIES

StatusCallback = Callable[["TaskInfo"], Awaitable[None] | None]
"""Called with each status the client observes (every poll whose answer changed something)."""


class TaskCancelled(ClientError):
    """The task ended ``cancelled``: it has no result."""

    def __init__(self, task_id: str, message: str | None = None) -> None:
        super().__init__(f"task {task_id} was cancelled" + (f": {message}" if message else ""))
        self.task_id = task_id


class TasksUnsupported(ClientError):
    """The server (or this tool) does not run calls as tasks in the negotiated protocol."""


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """A task's state as the server last reported it (both flavours, one shape)."""

    task_id: str
    status: TaskStatus
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    """Retention from creation in ms; ``None``: unlimited."""
    poll_interval_ms: int | None = None
    status_message: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in _TERMINAL

    @property
    def poll_interval(self) -> float:
        """Seconds to wait before the next poll (the server's suggestion, clamped)."""
        if self.poll_interval_ms is None:
            return DEFAULT_POLL_INTERVAL
        return min(MAX_POLL_INTERVAL, max(MIN_POLL_INTERVAL, self.poll_interval_ms / 1000))

    @classmethod
    def from_wire(cls, raw: Any, method: str) -> TaskInfo:
        """From a 2026 task (``ttlMs``, ``pollIntervalMs``) or a 2025 one (``ttl``,
        ``pollInterval``); :class:`ServerMisbehaved` when it is not a task."""
        if not isinstance(raw, Mapping):
            raise ServerMisbehaved(f"{method}: expected a task object, got {raw!r}")
        task_id, status = raw.get("taskId"), raw.get("status")
        if not isinstance(task_id, str) or status not in _STATUSES:
            raise ServerMisbehaved(f"{method}: the task needs a taskId and a known status")
        ttl = raw.get("ttlMs", raw.get("ttl"))
        poll = raw.get("pollIntervalMs", raw.get("pollInterval"))
        message = raw.get("statusMessage")
        return cls(
            task_id=task_id,
            status=cast(TaskStatus, status),
            created_at=str(raw.get("createdAt", "")),
            last_updated_at=str(raw.get("lastUpdatedAt", "")),
            ttl_ms=int(ttl) if isinstance(ttl, int | float) else None,
            poll_interval_ms=int(poll) if isinstance(poll, int | float) else None,
            status_message=message if isinstance(message, str) else None,
        )


class ToolTask:
    """One tool call running as a task. Get it from :meth:`TaskMethods.call_tool_as_task`.

    ``info`` is the last state seen (``None`` when the server answered the call directly, in
    which case :meth:`result` returns that answer at once).
    """

    def __init__(
        self,
        client: TaskMethods,
        tool: str,
        info: TaskInfo | None,
        *,
        result: CallToolResult | None = None,
    ) -> None:
        self._client = client
        self.tool = tool
        self.info = info
        self._result = result
        self._answered: set[str] = set()
        """2026: ``inputRequests`` keys already answered (keys are unique per task)."""

    @property
    def task_id(self) -> str | None:
        return self.info.task_id if self.info is not None else None

    @property
    def status(self) -> TaskStatus:
        return self.info.status if self.info is not None else "completed"

    def __repr__(self) -> str:
        return f"<ToolTask {self.tool} {self.task_id or '(direct)'} {self.status}>"

    async def refresh(self) -> TaskInfo | None:
        """Poll once (``tasks/get``) and return the new state."""
        if self.info is None:
            return None
        self.info, _ = await self._client._poll_task(self.info.task_id)
        return self.info

    async def cancel(self) -> TaskInfo | None:
        """Ask the server to cancel (``tasks/cancel``); returns the state afterwards."""
        if self.info is None:
            return None
        self.info = await self._client.cancel_task(self.info.task_id)
        return self.info

    async def result(
        self, *, on_status: StatusCallback | None = None, timeout: float | None = None
    ) -> CallToolResult:
        """Follow the task to its end and return the tool's result.

        Polls at the server's interval, answers the questions the task asks with the
        client's handlers, calls ``on_status`` on each change. A tool error is a result with
        ``is_error``; a protocol failure raises its :class:`JSONRPCError`; a cancelled task
        raises :class:`TaskCancelled`; ``timeout`` (seconds) raises :class:`TimeoutError`.
        """
        if self._result is not None or self.info is None:
            assert self._result is not None
            return self._result
        async with asyncio.timeout(timeout):
            self._result = await self._client._follow(self, on_status)
        return self._result


class TaskMethods(ToolMethods):
    """``call_tool_as_task``, ``get_task``, ``task_result``, ``cancel_task``, ``list_tasks``."""

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl_ms: int | None = None,
        timeout: TimeoutArg = DEFAULT,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolTask:
        """Start ``name`` as a task and return at once with its handle.

        ``ttl_ms`` asks the server to keep the task that long (2025-11-25; the server may
        shorten it). See the module docstring for how each protocol revision is used.
        """
        tool = await self._tool_definition(name)
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        extra = dict(meta or {})
        if self.era == "modern":
            extra.update(self._task_meta())
            params["_meta"] = extra
            result, _ = await self._request_with_input(
                "tools/call", params, timeout=timeout, tool=tool
            )
            kind = result.get(RESULT_TYPE_KEY)
            if kind == RESULT_TYPE_TASK:
                return ToolTask(self, name, TaskInfo.from_wire(result, "tools/call"))
            if kind not in (None, RESULT_TYPE_COMPLETE):
                raise ServerMisbehaved(f"tools/call {name!r} answered resultType {kind!r}")
            return ToolTask(self, name, None, result=self._tool_result(name, tool, result))
        if tool is None:
            raise UnknownTool(name, list(self._tools))
        self._require_core_tasks(name, tool)
        if extra:
            params["_meta"] = extra
        params["task"] = {} if ttl_ms is None else {"ttl": ttl_ms}
        result = await self._request("tools/call", params, timeout=timeout, tool=tool)
        return ToolTask(self, name, TaskInfo.from_wire(result.get("task"), "tools/call"))

    def task(self, task_id: str, tool: str = "") -> ToolTask:
        """A handle for a task started earlier (by this or another connection)."""
        now = TaskInfo(task_id, "working", "", "", None)
        return ToolTask(self, tool, now)

    async def get_task(self, task_id: str) -> TaskInfo:
        """The task's current state (``tasks/get``)."""
        info, _ = await self._poll_task(task_id)
        return info

    async def task_result(self, task_id: str, *, timeout: float | None = None) -> CallToolResult:
        """Wait for the task's end and return its result (see :meth:`ToolTask.result`)."""
        return await self.task(task_id).result(timeout=timeout)

    async def cancel_task(self, task_id: str) -> TaskInfo:
        """Cancel the task (``tasks/cancel``) and return its state afterwards.

        2025-11-25 answers the cancelled task (a task that already ended is -32602, raised as
        :class:`~mcpkit.protocol._errors.InvalidParams`); 2026 only acknowledges, so the state
        is read again with ``tasks/get`` (cancellation there is cooperative)."""
        if self.era == "modern":
            await self._request("tasks/cancel", {"taskId": task_id, "_meta": self._task_meta()})
            return await self.get_task(task_id)
        self._require_core_tasks()
        with self._core_tasks_gated():
            result = await self._request("tasks/cancel", {"taskId": task_id})
        return TaskInfo.from_wire(result, "tasks/cancel")

    async def list_tasks(self) -> list[TaskInfo]:
        """Every task of this session (2025-11-25 ``tasks/list``, all pages).

        The 2026 extension has no listing: :class:`UnsupportedInEra` there.
        """
        if self.era == "modern":
            raise UnsupportedInEra(
                "tasks/list does not exist in the 2026 Tasks extension; keep the task ids"
            )
        self._require_core_tasks()
        with self._core_tasks_gated():
            raw = await self._collect("tasks/list", "tasks")
        return [TaskInfo.from_wire(entry, "tasks/list") for entry in raw]

    # -- internals -----------------------------------------------------------------------------

    async def _follow_created_task(
        self, name: str, tool: JSONObject | None, result: JSONObject
    ) -> CallToolResult:
        """A client that declared the Tasks extension on every request (``extensions=``) MUST
        take a ``CreateTaskResult`` for a plain ``call_tool``: the task is followed to its end
        (questions answered, as :meth:`ToolTask.result`) and its result returned."""
        if self.era != "modern" or TASKS_EXTENSION not in self._questions.extensions:
            return await super()._follow_created_task(name, tool, result)
        handle = ToolTask(self, name, TaskInfo.from_wire(result, "tools/call"))
        return await handle.result()

    def _task_meta(self) -> JSONObject:
        """Request ``_meta`` declaring the extension, on top of the client's capabilities."""
        caps = self._questions.capabilities("modern")
        caps["extensions"] = {**caps.get("extensions", {}), TASKS_EXTENSION: {}}
        return {_CAPS_KEY: caps}

    def _require_core_tasks(self, name: str | None = None, tool: JSONObject | None = None) -> None:
        """What the connection cannot know: the revision has core tasks, and (for a call, by
        ``name``) the server runs tool calls as tasks and lists this tool as able to. The plain
        ``tasks`` capability of ``tasks/*`` requests is the connection's check
        (:meth:`_core_tasks_gated` words its refusal)."""
        negotiated = self.negotiated
        version = negotiated.protocol_version
        if version != CORE_TASKS_VERSION:
            raise TasksUnsupported(
                f"{self.name} speaks {version}, which has no tasks "
                f"(core tasks are {CORE_TASKS_VERSION}; 2026-07-28 has the Tasks extension)"
            )
        if name is None:
            return
        tasks = negotiated.capabilities.get("tasks")
        requests = tasks.get("requests") if isinstance(tasks, dict) else None
        tools = requests.get("tools") if isinstance(requests, dict) else None
        if not isinstance(tools, dict) or "call" not in tools:
            raise TasksUnsupported(
                f"{self.name} does not run tool calls as tasks "
                "(no capabilities.tasks.requests.tools.call)"
            )
        execution = tool.get("execution") if tool else None
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        if support not in ("optional", "required"):
            raise TasksUnsupported(
                f"tool {name!r} does not run as a task (execution.taskSupport is "
                f"{support or 'absent'}): call it with call_tool"
            )

    @contextlib.contextmanager
    def _core_tasks_gated(self) -> Iterator[None]:
        """The connection refuses a 2025-11-25 ``tasks/*`` request the server's ``tasks``
        capability does not allow (before sending it): to the user that is
        :class:`TasksUnsupported`, as documented."""
        try:
            yield
        except MissingServerCapability as exc:
            raise TasksUnsupported(
                f"{self.name} does not declare the tasks capability it needs: {exc}"
            ) from exc

    async def _poll_task(self, task_id: str) -> tuple[TaskInfo, JSONObject]:
        if self.era == "modern":
            raw = await self._request("tasks/get", {"taskId": task_id, "_meta": self._task_meta()})
        else:
            self._require_core_tasks()
            with self._core_tasks_gated():
                raw = await self._request("tasks/get", {"taskId": task_id})
        return TaskInfo.from_wire(raw, "tasks/get"), raw

    def _tool_result(self, name: str, tool: JSONObject | None, raw: JSONObject) -> CallToolResult:
        typed = decode_tool_result(raw)
        if self.output_validation != "off" and tool is not None:
            self._check_output(name, tool, raw, self.output_validation)
        return typed

    async def _follow(self, handle: ToolTask, on_status: StatusCallback | None) -> CallToolResult:
        assert handle.info is not None
        task_id = handle.info.task_id
        wake = asyncio.Event()

        def status_note(note: Notification) -> None:
            params = note.params or {}
            if note.method == "notifications/tasks/status" and params.get("taskId") == task_id:
                wake.set()

        self._listeners.add(status_note)
        seen: tuple[str, str | None] | None = None

        async def report(info: TaskInfo) -> None:
            nonlocal seen
            if on_status is not None and seen != (info.status, info.status_message):
                seen = (info.status, info.status_message)
                outcome = on_status(info)
                if asyncio.iscoroutine(outcome):
                    await outcome

        try:
            while True:
                wake.clear()
                info, raw = await self._poll_task(task_id)
                handle.info = info
                await report(info)
                if self.era == "modern":
                    done = await self._modern_step(handle, info, raw)
                else:
                    done = await self._core_step(handle, info)
                if done is not None:
                    await report(handle.info)  # 2025: the state after tasks/result
                    return done
                if info.status == "input_required" and self.era == "modern":
                    continue  # answered just now: look again at once
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), info.poll_interval)
        finally:
            self._listeners.discard(status_note)

    async def _modern_step(
        self, handle: ToolTask, info: TaskInfo, raw: JSONObject
    ) -> CallToolResult | None:
        if info.status == "completed":
            tool = await self._tool_definition(handle.tool) if handle.tool else None
            return self._tool_result(handle.tool, tool, _object(raw.get("result"), "result"))
        if info.status == "failed":
            error = _object(raw.get("error"), "error")
            code, message = error.get("code"), error.get("message")
            raise JSONRPCError.from_error_object(
                ErrorObject(
                    code=code if isinstance(code, int) else -32603,
                    message=str(message or "the task failed"),
                    data=error.get("data"),
                )
            )
        if info.status == "cancelled":
            raise TaskCancelled(info.task_id, info.status_message)
        if info.status == "input_required":
            requests = _object(raw.get(INPUT_REQUESTS_KEY, {}), INPUT_REQUESTS_KEY)
            answers: JSONObject = {}
            for key, request in requests.items():
                if key in handle._answered:
                    continue
                answers[key] = await self._questions.answer_input_request(
                    key,
                    request,
                    protocol_version=self.negotiated.protocol_version,
                    server_name=self.negotiated.server_name,
                    asked_during="tools/call (task)",
                )
            if answers:
                await self._request(
                    "tasks/update",
                    {
                        "taskId": info.task_id,
                        INPUT_RESPONSES_KEY: answers,
                        "_meta": self._task_meta(),
                    },
                )
                handle._answered.update(answers)
        return None

    async def _core_step(self, handle: ToolTask, info: TaskInfo) -> CallToolResult | None:
        if not (info.terminal or info.status == "input_required"):
            return None
        if info.status == "cancelled":
            raise TaskCancelled(info.task_id, info.status_message)
        # Terminal: the result (or error) is there. input_required: tasks/result blocks
        # while the server's questions arrive as requests, answered by the session.
        with self._core_tasks_gated():
            raw = await self._request("tasks/result", {"taskId": info.task_id}, timeout=None)
        with contextlib.suppress(JSONRPCError):
            handle.info, _ = await self._poll_task(info.task_id)
        raw = {k: v for k, v in raw.items() if k != "_meta"} | _own_meta(raw)
        tool = await self._tool_definition(handle.tool) if handle.tool else None
        return self._tool_result(handle.tool, tool, raw)


def _own_meta(raw: JSONObject) -> JSONObject:
    """The result's ``_meta`` without the related-task key (the handle already knows it)."""
    meta = raw.get("_meta")
    if not isinstance(meta, dict):
        return {}
    rest = {k: v for k, v in meta.items() if k != keys.RELATED_TASK}
    return {"_meta": rest} if rest else {}


def _object(value: Any, what: str) -> JSONObject:
    if not isinstance(value, dict):
        raise ServerMisbehaved(f"tasks/get: the task's {what} is not an object")
    return value

"""Tasks as a core (experimental) utility of 2025-11-25.

A task-augmented request (``tools/call``, ``sampling/createMessage``, ``elicitation/create``)
carries ``params.task``; the receiver answers at once with :class:`CreateTaskResult` and the
requestor polls ``tasks/get``, blocks on ``tasks/result``, lists and cancels. In 2026-07-28 Tasks
moved to an extension with different shapes: see :mod:`mcpkit.types._tasks_ext`.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mcpkit.types._base import Cursor, Meta, NotificationModel, RequestModel, UnsetType, WireModel
from mcpkit.types._common import PaginatedRequestParams

__all__ = [
    "CancelTaskRequest",
    "CancelTaskResult",
    "CreateTaskResult",
    "GetTaskPayloadRequest",
    "GetTaskPayloadResult",
    "GetTaskRequest",
    "GetTaskResult",
    "ListTasksRequest",
    "ListTasksResult",
    "Task",
    "TaskIdParams",
    "TaskMetadata",
    "TaskStatus",
    "TaskStatusNotification",
    "TaskStatusNotificationParams",
    "TaskSupport",
    "ToolExecution",
]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TaskSupport = Literal["forbidden", "optional", "required"]


class TaskMetadata(WireModel, kw_only=True):
    """``params.task`` of a task-augmented request."""

    ttl: int | None = None
    """Requested retention in ms; the receiver may override it."""


class ToolExecution(WireModel, kw_only=True):
    """``Tool.execution`` (2025-11-25 only)."""

    task_support: TaskSupport | None = None
    """Absent means ``"forbidden"``."""


class Task(WireModel, kw_only=True):
    task_id: str
    status: TaskStatus
    created_at: str
    """ISO 8601."""
    last_updated_at: str
    ttl: int | None
    """Retention in ms; ``None`` (JSON null) means unlimited. Always written."""
    status_message: str | None = None
    poll_interval: int | None = None
    """Suggested polling interval in ms."""


class CreateTaskResult(WireModel, kw_only=True):
    """The immediate answer to a task-augmented request."""

    task: Task
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class TaskIdParams(WireModel, kw_only=True):
    """Params of ``tasks/get``, ``tasks/result`` and ``tasks/cancel`` (both Tasks flavours)."""

    task_id: str
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class GetTaskResult(Task, kw_only=True):
    """``tasks/get``: the task, flattened into the result."""

    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CancelTaskResult(Task, kw_only=True):
    """``tasks/cancel``: the task (now ``cancelled``), flattened into the result."""

    meta: Meta | None = msgspec.field(default=None, name="_meta")


GetTaskPayloadResult = dict[str, Any]
"""``tasks/result``: exactly the result of the original request (so its shape depends on that
request), with ``_meta["io.modelcontextprotocol/related-task"]`` set."""


class ListTasksResult(WireModel, kw_only=True):
    tasks: list[Task]
    next_cursor: Cursor | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class TaskStatusNotificationParams(Task, kw_only=True):
    """``notifications/tasks/status``: the full task."""

    meta: Meta | None = msgspec.field(default=None, name="_meta")


class GetTaskRequest(RequestModel, tag="tasks/get", kw_only=True):
    params: TaskIdParams


class GetTaskPayloadRequest(RequestModel, tag="tasks/result", kw_only=True):
    params: TaskIdParams


class CancelTaskRequest(RequestModel, tag="tasks/cancel", kw_only=True):
    params: TaskIdParams


class ListTasksRequest(RequestModel, tag="tasks/list", kw_only=True):
    params: PaginatedRequestParams | UnsetType = msgspec.UNSET


class TaskStatusNotification(NotificationModel, tag="notifications/tasks/status", kw_only=True):
    params: TaskStatusNotificationParams

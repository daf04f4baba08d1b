"""The Tasks extension ``io.modelcontextprotocol/tasks`` for 2026-07-28 (SEP-2663).

Compared with the 2025-11-25 core utility (:mod:`mcpkit.types._tasks`): the server alone decides
to create a task and answers ``tools/call`` with a flattened :class:`ExtCreateTaskResult`
(``resultType: "task"``, ``ttlMs``, ``pollIntervalMs``); ``tasks/get`` returns a
:data:`DetailedTask` that carries the payload for its status (``inputRequests``, ``result`` or
``error``); ``tasks/update`` delivers input responses; ``notifications/tasks`` reports changes on
a ``subscriptions/listen`` stream. ``tasks/result``, ``tasks/list`` and ``params.task`` are gone.
"""

from __future__ import annotations

import msgspec

from mcpkit.types._base import (
    RESULT_TYPE_KEY,
    RESULT_TYPE_TASK,
    TASKS_EXTENSION_ID,
    InputResponses,
    JSONObject,
    Meta,
    NotificationModel,
    RequestModel,
    WireModel,
)
from mcpkit.types._jsonrpc import ErrorObject
from mcpkit.types._mrtr import InputRequests
from mcpkit.types._tasks import TaskStatus

__all__ = [
    "TASKS_EXTENSION_ID",
    "CancelledTask",
    "CompletedTask",
    "DetailedTask",
    "ExtCreateTaskResult",
    "ExtTaskNotification",
    "FailedTask",
    "InputRequiredTask",
    "UpdateTaskRequest",
    "UpdateTaskRequestParams",
    "WorkingTask",
]


class _TaskFields(WireModel, tag_field="status", kw_only=True):
    """Members of every task state. ``status`` is the tag that picks the variant."""

    task_id: str
    created_at: str
    """ISO 8601."""
    last_updated_at: str
    ttl_ms: int | None
    """Retention in ms; ``None`` (JSON null) means unlimited. Always written."""
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result_type: str | None = None
    """``"complete"`` when the task is the result of ``tasks/get``."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")

    @property
    def status(self) -> TaskStatus:
        tag: TaskStatus = type(self).__struct_config__.tag  # type: ignore[assignment]
        return tag


class WorkingTask(_TaskFields, tag="working", kw_only=True):
    pass


class InputRequiredTask(_TaskFields, tag="input_required", kw_only=True):
    input_requests: InputRequests
    """Answer with ``tasks/update``."""


class CompletedTask(_TaskFields, tag="completed", kw_only=True):
    result: JSONObject
    """The original request's result (a tool error result, ``isError: true``, included)."""


class FailedTask(_TaskFields, tag="failed", kw_only=True):
    error: ErrorObject
    """The JSON-RPC error the request failed with."""


class CancelledTask(_TaskFields, tag="cancelled", kw_only=True):
    pass


DetailedTask = WorkingTask | InputRequiredTask | CompletedTask | FailedTask | CancelledTask
"""A task with the payload of its status: the result of ``tasks/get`` and the params of
``notifications/tasks``."""


class ExtCreateTaskResult(WireModel, tag_field=RESULT_TYPE_KEY, tag=RESULT_TYPE_TASK, kw_only=True):
    """The server's answer to ``tools/call`` when it chose to run the call as a task."""

    task_id: str
    status: TaskStatus
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    status_message: str | None = None
    poll_interval_ms: int | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class UpdateTaskRequestParams(WireModel, kw_only=True):
    task_id: str
    input_responses: InputResponses
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class UpdateTaskRequest(RequestModel, tag="tasks/update", kw_only=True):
    params: UpdateTaskRequestParams


class ExtTaskNotification(NotificationModel, tag="notifications/tasks", kw_only=True):
    params: DetailedTask

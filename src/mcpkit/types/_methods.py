"""The method table: for each revision, every method with its direction, its params and result
models, the capability that gates it, and the flags other layers branch on.

Two tables, one per era, because the eras disagree about the same method name (in 2026-07-28
``sampling/createMessage`` is an MRTR input request, not a JSON-RPC request; ``tools/call`` may
answer ``input_required``). Within an era, ``MethodSpec.versions`` says which revisions have the
method, so ``method_spec("elicitation/create", "2025-03-26")`` is ``None``.

Typical use::

    spec = method_spec(request.method, version)
    if spec is None or spec.kind != "request" or spec.sender == "server": ...  # -32601
    params = decode_params(spec, request.params)                # msgspec.ValidationError → -32602
    ...
    result = decode_result(spec, response.result)               # honours resultType
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal

import msgspec

from mcpkit.types._base import (
    RESULT_TYPE_INPUT_REQUIRED,
    RESULT_TYPE_KEY,
    RESULT_TYPE_TASK,
    TASKS_EXTENSION_ID,
    JSONObject,
)
from mcpkit.types._method_names import (
    CANCELLED_NOTIFICATION,
    INITIALIZED_NOTIFICATION,
    PROGRESS_NOTIFICATION,
)
from mcpkit.types._versions import CORE_TASKS_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS, Era, era_of

__all__ = [
    "LEGACY_METHODS",
    "MODERN_METHODS",
    "Gate",
    "MethodKind",
    "MethodSpec",
    "Sender",
    "decode_input_response",
    "decode_params",
    "decode_result",
    "method_spec",
    "methods_for",
    "result_model",
]

MethodKind = Literal["request", "notification", "input_request"]
"""``input_request``: a 2026-07-28 MRTR request embedded in ``InputRequiredResult``."""
Sender = Literal["client", "server", "both"]


class Gate(msgspec.Struct, frozen=True):
    """The capability a method needs: ``path`` (wire names) inside the capabilities of ``side``.

    ``side`` is ``"server"`` or ``"client"``, or ``"receiver"`` for methods either side may send
    (2025-11-25 ``tasks/*``: the side that receives the request must declare it). ``since`` limits
    the gate to revisions on or after it (the capability did not exist before).
    """

    side: Literal["server", "client", "receiver"]
    path: tuple[str, ...]
    since: str | None = None

    def applies_to(self, version: str) -> bool:
        return self.since is None or version >= self.since


class MethodSpec(msgspec.Struct, frozen=True):
    method: str
    era: Era
    kind: MethodKind
    sender: Sender
    params_ref: Any
    """The ``params`` model, or its name in :mod:`mcpkit.types` (see :attr:`params`)."""
    result_ref: Any
    """The result model or its name; ``None`` for notifications (see :attr:`result`)."""
    versions: frozenset[str]
    gate: Gate | None = None
    paginated: bool = False
    cacheable: bool = False
    """2026-07-28: complete results carry ``ttlMs`` and ``cacheScope``."""
    mrtr: bool = False
    """2026-07-28: the server may answer with an ``InputRequiredResult``."""
    task_augmentable: bool = False
    """2025-11-25: ``params.task`` turns the answer into a ``CreateTaskResult``."""

    def supports(self, version: str) -> bool:
        return version in self.versions

    @property
    def params(self) -> Any:
        """Model for ``params``; :func:`decode_params` treats absent params as ``{}``."""
        return _model(self.params_ref)

    @property
    def result(self) -> Any:
        """Model for a complete result; ``None`` for notifications. See :func:`result_model`."""
        return _model(self.result_ref)


def _model(ref: Any) -> Any:
    """A model the table names, imported on first use.

    The table names its models instead of importing them: a server answering ``tools/call``
    needs the method names and flags, not the ~90 wire models, whose modules (msgspec builds
    each Struct class at import) were a sixth of a stdio server's start.
    """
    if not isinstance(ref, str):
        return ref
    import mcpkit.types

    return getattr(mcpkit.types, ref)


def _since(first: str, versions: tuple[str, ...] = LEGACY_VERSIONS) -> frozenset[str]:
    return frozenset(v for v in versions if v >= first)


_ALL_LEGACY: Final = frozenset(LEGACY_VERSIONS)
_TASKS_LEGACY: Final = _since(CORE_TASKS_VERSION)
_ALL_MODERN: Final = frozenset(MODERN_VERSIONS)
_TASKS_EXT_GATE: Final = Gate("server", ("extensions", TASKS_EXTENSION_ID))


def _legacy(
    method: str,
    kind: MethodKind,
    sender: Sender,
    params: Any,
    result: Any = None,
    *,
    versions: frozenset[str] = _ALL_LEGACY,
    gate: Gate | None = None,
    paginated: bool = False,
    task_augmentable: bool = False,
) -> MethodSpec:
    return MethodSpec(
        method,
        "legacy",
        kind,
        sender,
        params,
        result,
        versions,
        gate,
        paginated=paginated,
        task_augmentable=task_augmentable,
    )


def _modern(
    method: str,
    kind: MethodKind,
    sender: Sender,
    params: Any,
    result: Any = None,
    *,
    gate: Gate | None = None,
    paginated: bool = False,
    cacheable: bool = False,
    mrtr: bool = False,
) -> MethodSpec:
    return MethodSpec(
        method,
        "modern",
        kind,
        sender,
        params,
        result,
        _ALL_MODERN,
        gate,
        paginated=paginated,
        cacheable=cacheable,
        mrtr=mrtr,
    )


def _table(*specs: MethodSpec) -> Mapping[str, MethodSpec]:
    return MappingProxyType({spec.method: spec for spec in specs})


_S_TOOLS: Final = Gate("server", ("tools",))
_S_RESOURCES: Final = Gate("server", ("resources",))
_S_PROMPTS: Final = Gate("server", ("prompts",))
_S_LOGGING: Final = Gate("server", ("logging",))
_S_COMPLETIONS: Final = Gate("server", ("completions",), since="2025-03-26")

LEGACY_METHODS: Final[Mapping[str, MethodSpec]] = _table(
    # client → server requests
    _legacy("initialize", "request", "client", "InitializeRequestParams", "InitializeResult"),
    _legacy("ping", "request", "both", "RequestParams", "EmptyResult"),
    _legacy(
        "tools/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListToolsResult",
        gate=_S_TOOLS,
        paginated=True,
    ),
    _legacy(
        "tools/call",
        "request",
        "client",
        "CallToolRequestParams",
        "CallToolResult",
        gate=_S_TOOLS,
        task_augmentable=True,
    ),
    _legacy(
        "resources/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListResourcesResult",
        gate=_S_RESOURCES,
        paginated=True,
    ),
    _legacy(
        "resources/templates/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListResourceTemplatesResult",
        gate=_S_RESOURCES,
        paginated=True,
    ),
    _legacy(
        "resources/read",
        "request",
        "client",
        "ReadResourceRequestParams",
        "ReadResourceResult",
        gate=_S_RESOURCES,
    ),
    _legacy(
        "resources/subscribe",
        "request",
        "client",
        "SubscribeRequestParams",
        "EmptyResult",
        gate=Gate("server", ("resources", "subscribe")),
    ),
    _legacy(
        "resources/unsubscribe",
        "request",
        "client",
        "UnsubscribeRequestParams",
        "EmptyResult",
        gate=Gate("server", ("resources", "subscribe")),
    ),
    _legacy(
        "prompts/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListPromptsResult",
        gate=_S_PROMPTS,
        paginated=True,
    ),
    _legacy(
        "prompts/get",
        "request",
        "client",
        "GetPromptRequestParams",
        "GetPromptResult",
        gate=_S_PROMPTS,
    ),
    _legacy(
        "completion/complete",
        "request",
        "client",
        "CompleteRequestParams",
        "CompleteResult",
        gate=_S_COMPLETIONS,
    ),
    _legacy(
        "logging/setLevel",
        "request",
        "client",
        "SetLevelRequestParams",
        "EmptyResult",
        gate=_S_LOGGING,
    ),
    # tasks (either side may be the receiver)
    _legacy(
        "tasks/get",
        "request",
        "both",
        "TaskIdParams",
        "GetTaskResult",
        versions=_TASKS_LEGACY,
        gate=Gate("receiver", ("tasks",)),
    ),
    _legacy(
        "tasks/result",
        "request",
        "both",
        "TaskIdParams",
        "GetTaskPayloadResult",
        versions=_TASKS_LEGACY,
        gate=Gate("receiver", ("tasks",)),
    ),
    _legacy(
        "tasks/list",
        "request",
        "both",
        "PaginatedRequestParams",
        "ListTasksResult",
        versions=_TASKS_LEGACY,
        gate=Gate("receiver", ("tasks", "list")),
        paginated=True,
    ),
    _legacy(
        "tasks/cancel",
        "request",
        "both",
        "TaskIdParams",
        "CancelTaskResult",
        versions=_TASKS_LEGACY,
        gate=Gate("receiver", ("tasks", "cancel")),
    ),
    # server → client requests
    _legacy(
        "sampling/createMessage",
        "request",
        "server",
        "CreateMessageRequestParams",
        "CreateMessageResult",
        gate=Gate("client", ("sampling",)),
        task_augmentable=True,
    ),
    _legacy(
        "elicitation/create",
        "request",
        "server",
        "ElicitRequestParams",
        "ElicitResult",
        versions=_since("2025-06-18"),
        gate=Gate("client", ("elicitation",)),
        task_augmentable=True,
    ),
    _legacy(
        "roots/list",
        "request",
        "server",
        "RequestParams",
        "ListRootsResult",
        gate=Gate("client", ("roots",)),
    ),
    # notifications
    _legacy(INITIALIZED_NOTIFICATION, "notification", "client", "NotificationParams"),
    _legacy(CANCELLED_NOTIFICATION, "notification", "both", "CancelledNotificationParams"),
    _legacy(PROGRESS_NOTIFICATION, "notification", "both", "ProgressNotificationParams"),
    _legacy(
        "notifications/message",
        "notification",
        "server",
        "LoggingMessageNotificationParams",
        gate=_S_LOGGING,
    ),
    _legacy(
        "notifications/resources/list_changed",
        "notification",
        "server",
        "NotificationParams",
        gate=Gate("server", ("resources", "listChanged")),
    ),
    _legacy(
        "notifications/resources/updated",
        "notification",
        "server",
        "ResourceUpdatedNotificationParams",
        gate=Gate("server", ("resources", "subscribe")),
    ),
    _legacy(
        "notifications/tools/list_changed",
        "notification",
        "server",
        "NotificationParams",
        gate=Gate("server", ("tools", "listChanged")),
    ),
    _legacy(
        "notifications/prompts/list_changed",
        "notification",
        "server",
        "NotificationParams",
        gate=Gate("server", ("prompts", "listChanged")),
    ),
    _legacy(
        "notifications/roots/list_changed",
        "notification",
        "client",
        "NotificationParams",
        gate=Gate("client", ("roots", "listChanged")),
    ),
    _legacy(
        "notifications/elicitation/complete",
        "notification",
        "server",
        "ElicitationCompleteNotificationParams",
        versions=_TASKS_LEGACY,
        gate=Gate("client", ("elicitation", "url")),
    ),
    _legacy(
        "notifications/tasks/status",
        "notification",
        "both",
        "TaskStatusNotificationParams",
        versions=_TASKS_LEGACY,
    ),
)
"""Every method of 2024-11-05 … 2025-11-25 (see ``MethodSpec.versions`` for each)."""

MODERN_METHODS: Final[Mapping[str, MethodSpec]] = _table(
    # client → server requests
    _modern(
        "server/discover",
        "request",
        "client",
        "RequestParams",
        "DiscoverResult",
        cacheable=True,
    ),
    _modern(
        "tools/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListToolsResult",
        gate=_S_TOOLS,
        paginated=True,
        cacheable=True,
    ),
    _modern(
        "tools/call",
        "request",
        "client",
        "CallToolRequestParams",
        "CallToolResult",
        gate=_S_TOOLS,
        mrtr=True,
    ),
    _modern(
        "resources/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListResourcesResult",
        gate=_S_RESOURCES,
        paginated=True,
        cacheable=True,
    ),
    _modern(
        "resources/templates/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListResourceTemplatesResult",
        gate=_S_RESOURCES,
        paginated=True,
        cacheable=True,
    ),
    _modern(
        "resources/read",
        "request",
        "client",
        "ReadResourceRequestParams",
        "ReadResourceResult",
        gate=_S_RESOURCES,
        cacheable=True,
        mrtr=True,
    ),
    _modern(
        "prompts/list",
        "request",
        "client",
        "PaginatedRequestParams",
        "ListPromptsResult",
        gate=_S_PROMPTS,
        paginated=True,
        cacheable=True,
    ),
    _modern(
        "prompts/get",
        "request",
        "client",
        "GetPromptRequestParams",
        "GetPromptResult",
        gate=_S_PROMPTS,
        mrtr=True,
    ),
    _modern(
        "completion/complete",
        "request",
        "client",
        "CompleteRequestParams",
        "CompleteResult",
        gate=_S_COMPLETIONS,
    ),
    # Each filter field is gated separately (tools.listChanged, prompts.listChanged,
    # resources.listChanged, resources.subscribe); the request itself is always allowed.
    _modern(
        "subscriptions/listen",
        "request",
        "client",
        "SubscriptionsListenRequestParams",
        "SubscriptionsListenResult",
    ),
    # Tasks extension (io.modelcontextprotocol/tasks); both sides must declare it.
    _modern("tasks/get", "request", "client", "TaskIdParams", "DetailedTask", gate=_TASKS_EXT_GATE),
    _modern(
        "tasks/update",
        "request",
        "client",
        "UpdateTaskRequestParams",
        "EmptyResult",
        gate=_TASKS_EXT_GATE,
    ),
    _modern(
        "tasks/cancel",
        "request",
        "client",
        "TaskIdParams",
        "EmptyResult",
        gate=_TASKS_EXT_GATE,
    ),
    # MRTR input requests (inside InputRequiredResult.inputRequests), gated per request by the
    # client capabilities in its _meta.
    _modern(
        "elicitation/create",
        "input_request",
        "server",
        "ElicitRequestParams",
        "ElicitResult",
        gate=Gate("client", ("elicitation",)),
    ),
    _modern(
        "sampling/createMessage",
        "input_request",
        "server",
        "CreateMessageRequestParams",
        "CreateMessageResult",
        gate=Gate("client", ("sampling",)),
    ),
    _modern(
        "roots/list",
        "input_request",
        "server",
        "RequestParams",
        "ListRootsResult",
        gate=Gate("client", ("roots",)),
    ),
    # notifications
    _modern(CANCELLED_NOTIFICATION, "notification", "both", "CancelledNotificationParams"),
    _modern(PROGRESS_NOTIFICATION, "notification", "server", "ProgressNotificationParams"),
    _modern(
        "notifications/message",
        "notification",
        "server",
        "LoggingMessageNotificationParams",
        gate=_S_LOGGING,
    ),
    _modern(
        "notifications/subscriptions/acknowledged",
        "notification",
        "server",
        "SubscriptionsAcknowledgedNotificationParams",
    ),
    _modern(
        "notifications/resources/list_changed",
        "notification",
        "server",
        "NotificationParams",
        gate=Gate("server", ("resources", "listChanged")),
    ),
    _modern(
        "notifications/resources/updated",
        "notification",
        "server",
        "ResourceUpdatedNotificationParams",
        gate=Gate("server", ("resources", "subscribe")),
    ),
    _modern(
        "notifications/tools/list_changed",
        "notification",
        "server",
        "NotificationParams",
        gate=Gate("server", ("tools", "listChanged")),
    ),
    _modern(
        "notifications/prompts/list_changed",
        "notification",
        "server",
        "NotificationParams",
        gate=Gate("server", ("prompts", "listChanged")),
    ),
    _modern("notifications/tasks", "notification", "server", "DetailedTask", gate=_TASKS_EXT_GATE),
)
"""Every method of 2026-07-28, including the Tasks extension's."""

_BY_ERA: Final[Mapping[str, Mapping[str, MethodSpec]]] = {
    "legacy": LEGACY_METHODS,
    "modern": MODERN_METHODS,
}


def methods_for(version: str) -> Mapping[str, MethodSpec]:
    """All methods of a revision (``"2025-06-18"``) or of an era (``"legacy"``/``"modern"``).

    An unknown revision gives an empty mapping.
    """
    table = _BY_ERA.get(version)
    if table is not None:
        return table
    era = era_of(version)
    if era is None:
        return MappingProxyType({})
    return MappingProxyType(
        {name: spec for name, spec in _BY_ERA[era].items() if version in spec.versions}
    )


def method_spec(method: str, version: str) -> MethodSpec | None:
    """The spec of ``method`` in a revision or an era, or ``None`` if it has no such method."""
    table = _BY_ERA.get(version)
    if table is not None:
        return table.get(method)
    era = era_of(version)
    if era is None:
        return None
    spec = _BY_ERA[era].get(method)
    return spec if spec is not None and version in spec.versions else None


def decode_params(spec: MethodSpec, params: JSONObject | None) -> Any:
    """The typed params of a request or notification (absent params decode as ``{}``).

    Raises :class:`msgspec.ValidationError` naming the bad path.
    """
    return msgspec.convert(params if params is not None else {}, spec.params)


def result_model(spec: MethodSpec, result: JSONObject) -> Any:
    """The model a result of ``spec`` decodes into, chosen by its shape.

    2026-07-28: ``resultType`` ``"input_required"`` → :class:`InputRequiredResult`; ``"task"``
    (Tasks extension) → :class:`ExtCreateTaskResult`; absent or ``"complete"`` → ``spec.result``
    (other values are invalid, and decoding into ``spec.result`` is as good a place to fail as
    any; callers check ``resultType`` against what they negotiated).
    2025-11-25: a task-augmentable method answered with ``{"task": ...}`` → ``CreateTaskResult``.
    """
    if spec.era == "modern":
        result_type = result.get(RESULT_TYPE_KEY)
        if result_type == RESULT_TYPE_INPUT_REQUIRED:
            return _model("InputRequiredResult")
        if result_type == RESULT_TYPE_TASK:
            return _model("ExtCreateTaskResult")
    elif spec.task_augmentable and "task" in result:
        return _model("CreateTaskResult")
    return spec.result


def decode_result(spec: MethodSpec, result: JSONObject) -> Any:
    """The typed result of a request (see :func:`result_model`). Raises
    :class:`msgspec.ValidationError` naming the bad path."""
    return msgspec.convert(result, result_model(spec, result))


_INPUT_REQUESTS: Final[Mapping[str, MethodSpec]] = MappingProxyType(
    {spec.method: spec for spec in MODERN_METHODS.values() if spec.kind == "input_request"}
)


def decode_input_response(method: str, response: JSONObject) -> Any:
    """Decode one ``inputResponses`` value, given the method of the input request it answers.

    Raises :class:`KeyError` for a method that is not an input request, and
    :class:`msgspec.ValidationError` for a malformed answer.
    """
    return msgspec.convert(response, _INPUT_REQUESTS[method].result)

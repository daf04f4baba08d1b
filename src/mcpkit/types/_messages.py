"""Unions of the typed whole-message models, by sender. Each is a msgspec tagged union on
``method``, so ``decode(ClientRequest, obj)`` picks the right model in one pass (an unknown method
is a validation error). Revision membership is in :mod:`mcpkit.types._methods`."""

from __future__ import annotations

from mcpkit.types._completion import CompleteRequest
from mcpkit.types._elicitation import ElicitRequest
from mcpkit.types._lifecycle import (
    DiscoverRequest,
    InitializedNotification,
    InitializeRequest,
    PingRequest,
    SetLevelRequest,
)
from mcpkit.types._notifications import (
    CancelledNotification,
    ElicitationCompleteNotification,
    LoggingMessageNotification,
    ProgressNotification,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    RootsListChangedNotification,
    ToolListChangedNotification,
)
from mcpkit.types._prompts import GetPromptRequest, ListPromptsRequest
from mcpkit.types._resources import (
    ListResourcesRequest,
    ListResourceTemplatesRequest,
    ReadResourceRequest,
    SubscribeRequest,
    UnsubscribeRequest,
)
from mcpkit.types._roots import ListRootsRequest
from mcpkit.types._sampling import CreateMessageRequest
from mcpkit.types._subscriptions import (
    SubscriptionsAcknowledgedNotification,
    SubscriptionsListenRequest,
)
from mcpkit.types._tasks import (
    CancelTaskRequest,
    GetTaskPayloadRequest,
    GetTaskRequest,
    ListTasksRequest,
    TaskStatusNotification,
)
from mcpkit.types._tasks_ext import ExtTaskNotification, UpdateTaskRequest
from mcpkit.types._tools import CallToolRequest, ListToolsRequest

__all__ = ["ClientNotification", "ClientRequest", "ServerNotification", "ServerRequest"]

ClientRequest = (
    InitializeRequest
    | PingRequest
    | DiscoverRequest
    | ListToolsRequest
    | CallToolRequest
    | ListResourcesRequest
    | ListResourceTemplatesRequest
    | ReadResourceRequest
    | SubscribeRequest
    | UnsubscribeRequest
    | ListPromptsRequest
    | GetPromptRequest
    | CompleteRequest
    | SetLevelRequest
    | SubscriptionsListenRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | ListTasksRequest
    | CancelTaskRequest
    | UpdateTaskRequest
)
"""Requests a client sends, in any revision."""

ServerRequest = (
    PingRequest
    | CreateMessageRequest
    | ElicitRequest
    | ListRootsRequest
    | GetTaskRequest
    | GetTaskPayloadRequest
    | ListTasksRequest
    | CancelTaskRequest
)
"""Requests a legacy server sends (2026-07-28 servers send none: they use MRTR)."""

ClientNotification = (
    CancelledNotification
    | ProgressNotification
    | InitializedNotification
    | RootsListChangedNotification
    | TaskStatusNotification
)

ServerNotification = (
    CancelledNotification
    | ProgressNotification
    | LoggingMessageNotification
    | ResourceUpdatedNotification
    | ResourceListChangedNotification
    | ToolListChangedNotification
    | PromptListChangedNotification
    | ElicitationCompleteNotification
    | TaskStatusNotification
    | SubscriptionsAcknowledgedNotification
    | ExtTaskNotification
)

"""Notifications of both eras: cancellation, progress, log messages, list changes, resource
updates, roots changes (legacy), URL-elicitation completion (2025-11-25).

In 2026-07-28 the change notifications travel only on a ``subscriptions/listen`` stream and carry
``_meta["io.modelcontextprotocol/subscriptionId"]``; the shapes are otherwise the same.
"""

from __future__ import annotations

from typing import Any

import msgspec

from mcpkit.types._base import (
    LoggingLevel,
    Meta,
    NotificationModel,
    ProgressToken,
    RequestId,
    UnsetType,
    WireModel,
)
from mcpkit.types._common import NotificationParams
from mcpkit.types._method_names import CANCELLED_NOTIFICATION, PROGRESS_NOTIFICATION

__all__ = [
    "CancelledNotification",
    "CancelledNotificationParams",
    "ElicitationCompleteNotification",
    "ElicitationCompleteNotificationParams",
    "LoggingMessageNotification",
    "LoggingMessageNotificationParams",
    "ProgressNotification",
    "ProgressNotificationParams",
    "PromptListChangedNotification",
    "ResourceListChangedNotification",
    "ResourceUpdatedNotification",
    "ResourceUpdatedNotificationParams",
    "RootsListChangedNotification",
    "ToolListChangedNotification",
]


class CancelledNotificationParams(WireModel, kw_only=True):
    request_id: RequestId | None = None
    """Required in 2026-07-28; optional in 2025-11-25 (where tasks are cancelled otherwise)."""
    reason: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ProgressNotificationParams(WireModel, kw_only=True):
    progress_token: ProgressToken
    progress: float
    """Must increase with every notification, even when ``total`` is unknown."""
    total: float | None = None
    message: str | None = None
    """2025-03-26+."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class LoggingMessageNotificationParams(WireModel, kw_only=True):
    level: LoggingLevel
    data: Any
    """Any JSON value (a string or an object, typically)."""
    logger: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ResourceUpdatedNotificationParams(WireModel, kw_only=True):
    uri: str
    """The subscribed resource or one of its sub-resources."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ElicitationCompleteNotificationParams(WireModel, kw_only=True):
    elicitation_id: str
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CancelledNotification(NotificationModel, tag=CANCELLED_NOTIFICATION, kw_only=True):
    params: CancelledNotificationParams


class ProgressNotification(NotificationModel, tag=PROGRESS_NOTIFICATION, kw_only=True):
    params: ProgressNotificationParams


class LoggingMessageNotification(NotificationModel, tag="notifications/message", kw_only=True):
    params: LoggingMessageNotificationParams


class ResourceUpdatedNotification(
    NotificationModel, tag="notifications/resources/updated", kw_only=True
):
    params: ResourceUpdatedNotificationParams


class ResourceListChangedNotification(
    NotificationModel, tag="notifications/resources/list_changed", kw_only=True
):
    params: NotificationParams | UnsetType = msgspec.UNSET


class ToolListChangedNotification(
    NotificationModel, tag="notifications/tools/list_changed", kw_only=True
):
    params: NotificationParams | UnsetType = msgspec.UNSET


class PromptListChangedNotification(
    NotificationModel, tag="notifications/prompts/list_changed", kw_only=True
):
    params: NotificationParams | UnsetType = msgspec.UNSET


class RootsListChangedNotification(
    NotificationModel, tag="notifications/roots/list_changed", kw_only=True
):
    params: NotificationParams | UnsetType = msgspec.UNSET


class ElicitationCompleteNotification(
    NotificationModel, tag="notifications/elicitation/complete", kw_only=True
):
    params: ElicitationCompleteNotificationParams

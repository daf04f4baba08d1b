"""``subscriptions/listen`` (2026-07-28): the one long-lived request that carries change
notifications, its acknowledgement, and its graceful-close result."""

from __future__ import annotations

import msgspec

from mcpkit.types._base import Meta, NotificationModel, RequestModel, WireModel

__all__ = [
    "SubscriptionFilter",
    "SubscriptionsAcknowledgedNotification",
    "SubscriptionsAcknowledgedNotificationParams",
    "SubscriptionsListenRequest",
    "SubscriptionsListenRequestParams",
    "SubscriptionsListenResult",
]


class SubscriptionFilter(WireModel, kw_only=True):
    """Which notifications a listen stream wants; the acknowledgement echoes the agreed subset."""

    tools_list_changed: bool | None = None
    prompts_list_changed: bool | None = None
    resources_list_changed: bool | None = None
    resource_subscriptions: list[str] | None = None
    """URIs whose ``notifications/resources/updated`` the client wants."""
    task_ids: list[str] | None = None
    """Tasks extension: tasks whose ``notifications/tasks`` the client wants."""


class SubscriptionsListenRequestParams(WireModel, kw_only=True):
    notifications: SubscriptionFilter
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class SubscriptionsListenResult(WireModel, kw_only=True):
    """Sent when the server closes the stream gracefully; ``_meta`` carries the
    ``io.modelcontextprotocol/subscriptionId``."""

    meta: Meta = msgspec.field(name="_meta")
    result_type: str | None = None


class SubscriptionsAcknowledgedNotificationParams(WireModel, kw_only=True):
    notifications: SubscriptionFilter
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class SubscriptionsListenRequest(RequestModel, tag="subscriptions/listen", kw_only=True):
    params: SubscriptionsListenRequestParams


class SubscriptionsAcknowledgedNotification(
    NotificationModel, tag="notifications/subscriptions/acknowledged", kw_only=True
):
    params: SubscriptionsAcknowledgedNotificationParams

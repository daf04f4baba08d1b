"""How a conversation starts: ``initialize`` / ``notifications/initialized`` / ``ping`` (legacy),
``server/discover`` (2026-07-28), and ``logging/setLevel`` (legacy)."""

from __future__ import annotations

import msgspec

from mcpkit.types._base import (
    CacheScope,
    LoggingLevel,
    Meta,
    NotificationModel,
    RequestModel,
    UnsetType,
    WireModel,
)
from mcpkit.types._capabilities import ClientCapabilities, ServerCapabilities
from mcpkit.types._common import Implementation, NotificationParams, RequestParams
from mcpkit.types._method_names import INITIALIZED_NOTIFICATION

__all__ = [
    "DiscoverRequest",
    "DiscoverResult",
    "InitializeRequest",
    "InitializeRequestParams",
    "InitializeResult",
    "InitializedNotification",
    "PingRequest",
    "SetLevelRequest",
    "SetLevelRequestParams",
]


class InitializeRequestParams(WireModel, kw_only=True):
    protocol_version: str
    capabilities: ClientCapabilities
    client_info: Implementation
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class InitializeResult(WireModel, kw_only=True):
    protocol_version: str
    """The version the server chose: the client's if supported, else one the server supports."""
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class DiscoverResult(WireModel, kw_only=True):
    """``server/discover`` (2026-07-28): what a modern server supports. Cacheable."""

    supported_versions: list[str]
    capabilities: ServerCapabilities
    instructions: str | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class SetLevelRequestParams(WireModel, kw_only=True):
    level: LoggingLevel
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class InitializeRequest(RequestModel, tag="initialize", kw_only=True):
    params: InitializeRequestParams


class PingRequest(RequestModel, tag="ping", kw_only=True):
    params: RequestParams | UnsetType = msgspec.UNSET


class DiscoverRequest(RequestModel, tag="server/discover", kw_only=True):
    params: RequestParams | UnsetType = msgspec.UNSET


class SetLevelRequest(RequestModel, tag="logging/setLevel", kw_only=True):
    params: SetLevelRequestParams


class InitializedNotification(NotificationModel, tag=INITIALIZED_NOTIFICATION, kw_only=True):
    params: NotificationParams | UnsetType = msgspec.UNSET

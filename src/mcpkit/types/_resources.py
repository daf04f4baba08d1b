"""Resources: descriptors, templates, contents, and the ``resources/*`` params and results.

:class:`ResourceContents` is what decoding produces for an item of ``contents`` (and for an
embedded resource): JSON tells text from binary only by which key is present, so one Struct with
both ``text`` and ``blob`` optional decodes either in a single pass. Build replies with the precise
subclasses :class:`TextResourceContents` / :class:`BlobResourceContents`.
"""

from __future__ import annotations

import msgspec

from mcpkit.types._base import (
    CacheScope,
    Cursor,
    InputResponses,
    Meta,
    RequestModel,
    UnsetType,
    WireModel,
)
from mcpkit.types._common import Annotations, Icon, PaginatedRequestParams

__all__ = [
    "BlobResourceContents",
    "ListResourceTemplatesRequest",
    "ListResourceTemplatesResult",
    "ListResourcesRequest",
    "ListResourcesResult",
    "ReadResourceRequest",
    "ReadResourceRequestParams",
    "ReadResourceResult",
    "Resource",
    "ResourceContents",
    "ResourceTemplate",
    "SubscribeRequest",
    "SubscribeRequestParams",
    "TextResourceContents",
    "UnsubscribeRequest",
    "UnsubscribeRequestParams",
]


class Resource(WireModel, kw_only=True):
    """An item of ``resources/list`` (and, with ``type``, a ``resource_link`` content block)."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    """Raw size in bytes, if known."""
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ResourceTemplate(WireModel, kw_only=True):
    """An item of ``resources/templates/list``; ``uri_template`` is an RFC 6570 template."""

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ResourceContents(WireModel, kw_only=True):
    """Text or binary contents of a resource; exactly one of ``text`` / ``blob`` is set."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None
    """Base64-encoded bytes."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")

    @property
    def is_text(self) -> bool:
        return self.text is not None


class TextResourceContents(ResourceContents, kw_only=True):
    text: str


class BlobResourceContents(ResourceContents, kw_only=True):
    blob: str


class ListResourcesResult(WireModel, kw_only=True):
    resources: list[Resource]
    next_cursor: Cursor | None = None
    ttl_ms: int | None = None
    """2026-07-28: how long (ms) the client may reuse this page."""
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListResourceTemplatesResult(WireModel, kw_only=True):
    resource_templates: list[ResourceTemplate]
    next_cursor: Cursor | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ReadResourceRequestParams(WireModel, kw_only=True):
    uri: str
    input_responses: InputResponses | None = None
    """2026-07-28 MRTR retry: answers keyed like the previous ``inputRequests``."""
    request_state: str | None = None
    """2026-07-28 MRTR retry: the opaque state returned with the ``InputRequiredResult``."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ReadResourceResult(WireModel, kw_only=True):
    contents: list[ResourceContents]
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class SubscribeRequestParams(WireModel, kw_only=True):
    """``resources/subscribe`` (legacy only)."""

    uri: str
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class UnsubscribeRequestParams(WireModel, kw_only=True):
    """``resources/unsubscribe`` (legacy only)."""

    uri: str
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListResourcesRequest(RequestModel, tag="resources/list", kw_only=True):
    params: PaginatedRequestParams | UnsetType = msgspec.UNSET


class ListResourceTemplatesRequest(RequestModel, tag="resources/templates/list", kw_only=True):
    params: PaginatedRequestParams | UnsetType = msgspec.UNSET


class ReadResourceRequest(RequestModel, tag="resources/read", kw_only=True):
    params: ReadResourceRequestParams


class SubscribeRequest(RequestModel, tag="resources/subscribe", kw_only=True):
    params: SubscribeRequestParams


class UnsubscribeRequest(RequestModel, tag="resources/unsubscribe", kw_only=True):
    params: UnsubscribeRequestParams

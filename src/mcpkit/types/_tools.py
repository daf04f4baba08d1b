"""Tools: the descriptor, its annotations, and ``tools/list`` / ``tools/call``.

``input_schema`` / ``output_schema`` stay plain JSON Schema dicts: the server computes them once
per tool and the client hands them to a validator, neither needs a typed view. In 2026-07-28 an
``output_schema`` may be any schema (e.g. an array) and ``structuredContent`` any JSON value;
2025 limits both to objects. That rule belongs to the server layer, so one model serves both.
"""

from __future__ import annotations

from typing import Any

import msgspec

from mcpkit.types._base import (
    CacheScope,
    Cursor,
    InputResponses,
    JSONObject,
    Meta,
    RequestModel,
    UnsetType,
    WireModel,
)
from mcpkit.types._common import Icon, PaginatedRequestParams
from mcpkit.types._content import ContentBlock
from mcpkit.types._tasks import TaskMetadata, ToolExecution

__all__ = [
    "CallToolRequest",
    "CallToolRequestParams",
    "CallToolResult",
    "ListToolsRequest",
    "ListToolsResult",
    "Tool",
    "ToolAnnotations",
]


class ToolAnnotations(WireModel, kw_only=True):
    """Behaviour hints (2025-03-26+). Untrusted unless the server is; ``None`` = unspecified,
    which per spec means read-only false, destructive true, idempotent false, open-world true."""

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class Tool(WireModel, kw_only=True):
    name: str
    input_schema: JSONObject
    """A JSON Schema whose root is ``{"type": "object", ...}``."""
    title: str | None = None
    description: str | None = None
    output_schema: JSONObject | None = None
    annotations: ToolAnnotations | None = None
    execution: ToolExecution | None = None
    """2025-11-25 only (task support); removed in 2026-07-28."""
    icons: list[Icon] | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListToolsResult(WireModel, kw_only=True):
    tools: list[Tool]
    next_cursor: Cursor | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CallToolRequestParams(WireModel, kw_only=True):
    name: str
    arguments: JSONObject | None = None
    task: TaskMetadata | None = None
    """2025-11-25: ask for a task instead of an immediate result."""
    input_responses: InputResponses | None = None
    """2026-07-28 MRTR retry: answers keyed like the previous ``inputRequests``."""
    request_state: str | None = None
    """2026-07-28 MRTR retry: the opaque state returned with the ``InputRequiredResult``."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CallToolResult(WireModel, kw_only=True):
    content: list[ContentBlock]
    structured_content: Any = None
    """2025: a JSON object; 2026-07-28: any JSON value. ``None`` when absent (so a JSON ``null``
    reads the same, and is not written back): what callers test is ``is None``."""
    is_error: bool | None = None
    """As sent (``None`` when absent, so an explicit ``false`` survives a round trip);
    :meth:`mcpkit.client.Client.call_tool` hands out results with a plain bool here."""
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListToolsRequest(RequestModel, tag="tools/list", kw_only=True):
    params: PaginatedRequestParams | UnsetType = msgspec.UNSET


class CallToolRequest(RequestModel, tag="tools/call", kw_only=True):
    params: CallToolRequestParams

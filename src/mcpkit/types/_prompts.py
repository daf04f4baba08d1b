"""Prompts: descriptors and ``prompts/list`` / ``prompts/get``."""

from __future__ import annotations

import msgspec

from mcpkit.types._base import (
    CacheScope,
    Cursor,
    InputResponses,
    Meta,
    RequestModel,
    Role,
    UnsetType,
    WireModel,
)
from mcpkit.types._common import Icon, PaginatedRequestParams
from mcpkit.types._content import ContentBlock

__all__ = [
    "GetPromptRequest",
    "GetPromptRequestParams",
    "GetPromptResult",
    "ListPromptsRequest",
    "ListPromptsResult",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
]


class PromptArgument(WireModel, kw_only=True):
    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None


class Prompt(WireModel, kw_only=True):
    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[Icon] | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class PromptMessage(WireModel, kw_only=True):
    role: Role
    content: ContentBlock


class ListPromptsResult(WireModel, kw_only=True):
    prompts: list[Prompt]
    next_cursor: Cursor | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class GetPromptRequestParams(WireModel, kw_only=True):
    name: str
    arguments: dict[str, str] | None = None
    input_responses: InputResponses | None = None
    """2026-07-28 MRTR retry."""
    request_state: str | None = None
    """2026-07-28 MRTR retry."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class GetPromptResult(WireModel, kw_only=True):
    messages: list[PromptMessage]
    description: str | None = None
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListPromptsRequest(RequestModel, tag="prompts/list", kw_only=True):
    params: PaginatedRequestParams | UnsetType = msgspec.UNSET


class GetPromptRequest(RequestModel, tag="prompts/get", kw_only=True):
    params: GetPromptRequestParams

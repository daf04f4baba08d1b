"""Sampling: ``sampling/createMessage`` (a legacy server→client request; a deprecated MRTR input
request in 2026-07-28), with tools and tool choice (2025-11-25+)."""

from __future__ import annotations

from typing import Literal

import msgspec

from mcpkit.types._base import InputRequestModel, JSONObject, Meta, Role, WireModel
from mcpkit.types._content import SamplingContent
from mcpkit.types._tasks import TaskMetadata
from mcpkit.types._tools import Tool

__all__ = [
    "CreateMessageRequest",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "IncludeContext",
    "ModelHint",
    "ModelPreferences",
    "SamplingMessage",
    "ToolChoice",
]

IncludeContext = Literal["none", "thisServer", "allServers"]


class SamplingMessage(WireModel, kw_only=True):
    role: Role
    content: SamplingContent | list[SamplingContent]
    """One block, or (2025-11-25+) a list of blocks."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ModelHint(WireModel, kw_only=True):
    name: str | None = None


class ModelPreferences(WireModel, kw_only=True):
    hints: list[ModelHint] | None = None
    cost_priority: float | None = None
    speed_priority: float | None = None
    intelligence_priority: float | None = None


class ToolChoice(WireModel, kw_only=True):
    mode: Literal["auto", "none", "required"] | None = None


class CreateMessageRequestParams(WireModel, kw_only=True):
    messages: list[SamplingMessage]
    max_tokens: int
    model_preferences: ModelPreferences | None = None
    system_prompt: str | None = None
    include_context: IncludeContext | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    metadata: JSONObject | None = None
    tools: list[Tool] | None = None
    """Needs the client's ``sampling.tools`` capability."""
    tool_choice: ToolChoice | None = None
    task: TaskMetadata | None = None
    """2025-11-25 only."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CreateMessageResult(WireModel, kw_only=True):
    role: Role
    content: SamplingContent | list[SamplingContent]
    model: str
    stop_reason: str | None = None
    """``"endTurn"``, ``"stopSequence"``, ``"maxTokens"``, ``"toolUse"`` or another string."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CreateMessageRequest(InputRequestModel, tag="sampling/createMessage", kw_only=True):
    params: CreateMessageRequestParams

"""The optional fields of a sampling request, as ``ctx.sample(...)`` takes them.

A ``TypedDict`` so that ``**options: Unpack[SamplingOptions]`` lets a type checker catch a
misspelt one (``ctx.sample("hi", max_tokens=9, temprature=0.2)``), which ``**options: Any``
left to a ``TypeError`` at run time. The keys are those ``Question.sample`` maps to wire names
(a test holds them equal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from mcpkit.types._sampling import IncludeContext, ModelPreferences, ToolChoice

__all__ = ["SamplingOptions"]


class SamplingOptions(TypedDict, total=False):
    """``sampling/createMessage`` fields beyond ``messages`` and ``maxTokens`` (``None``: omit)."""

    system_prompt: str | None
    temperature: float | None
    model_preferences: ModelPreferences | Mapping[str, Any] | None
    stop_sequences: Sequence[str] | None
    tools: Sequence[Any] | None
    tool_choice: ToolChoice | Mapping[str, Any] | None
    include_context: IncludeContext | None
    metadata: Mapping[str, Any] | None

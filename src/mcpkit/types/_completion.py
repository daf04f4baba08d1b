"""Argument completion: ``completion/complete``."""

from __future__ import annotations

from typing import Final

import msgspec

from mcpkit.types._base import Meta, RequestModel, WireModel

__all__ = [
    "MAX_COMPLETION_VALUES",
    "CompleteRequest",
    "CompleteRequestParams",
    "CompleteResult",
    "Completion",
    "CompletionArgument",
    "CompletionContext",
    "PromptReference",
    "ResourceReference",
    "ResourceTemplateReference",
]

MAX_COMPLETION_VALUES: Final = 100
"""The spec caps ``completion.values`` at 100 items."""


class PromptReference(WireModel, tag_field="type", tag="ref/prompt", kw_only=True):
    name: str
    title: str | None = None


class ResourceTemplateReference(WireModel, tag_field="type", tag="ref/resource", kw_only=True):
    uri: str
    """A URI or a URI template."""


ResourceReference = ResourceTemplateReference
"""The 2024-11-05 / 2025-03-26 name of the same object."""


class CompletionArgument(WireModel, kw_only=True):
    name: str
    value: str


class CompletionContext(WireModel, kw_only=True):
    arguments: dict[str, str] | None = None
    """Arguments already resolved."""


class CompleteRequestParams(WireModel, kw_only=True):
    ref: PromptReference | ResourceTemplateReference
    argument: CompletionArgument
    context: CompletionContext | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class Completion(WireModel, kw_only=True):
    values: list[str]
    total: int | None = None
    has_more: bool | None = None


class CompleteResult(WireModel, kw_only=True):
    completion: Completion
    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class CompleteRequest(RequestModel, tag="completion/complete", kw_only=True):
    params: CompleteRequestParams

"""Content blocks: the tagged union on ``"type"`` used by tool results, prompts and sampling.

``ContentBlock`` (text, image, audio, resource_link, resource) is what tools and prompts return.
``SamplingContent`` (text, image, audio, tool_use, tool_result) is what sampling messages carry.
Each block is a tagged Struct, so a list of mixed blocks decodes in one msgspec pass and an
unknown ``type`` is a validation error.
"""

from __future__ import annotations

from typing import Any

import msgspec

from mcpkit.types._base import JSONObject, Meta, WireModel
from mcpkit.types._common import Annotations
from mcpkit.types._resources import Resource, ResourceContents

__all__ = [
    "AudioContent",
    "ContentBlock",
    "EmbeddedResource",
    "ImageContent",
    "ResourceLink",
    "SamplingContent",
    "TextContent",
    "ToolResultContent",
    "ToolUseContent",
]


class TextContent(WireModel, tag_field="type", tag="text", kw_only=True):
    text: str
    annotations: Annotations | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ImageContent(WireModel, tag_field="type", tag="image", kw_only=True):
    data: str
    """Base64-encoded image bytes."""
    mime_type: str
    annotations: Annotations | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class AudioContent(WireModel, tag_field="type", tag="audio", kw_only=True):
    """Audio (2025-03-26+)."""

    data: str
    """Base64-encoded audio bytes."""
    mime_type: str
    annotations: Annotations | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ResourceLink(Resource, tag_field="type", tag="resource_link", kw_only=True):
    """A link to a resource (2025-06-18+); it need not appear in ``resources/list``."""


class EmbeddedResource(WireModel, tag_field="type", tag="resource", kw_only=True):
    resource: ResourceContents
    """Decodes as :class:`ResourceContents`; build with ``TextResourceContents`` /
    ``BlobResourceContents``."""
    annotations: Annotations | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


class ToolUseContent(WireModel, tag_field="type", tag="tool_use", kw_only=True):
    """A model's request to call a tool, inside sampling (2025-11-25+)."""

    id: str
    name: str
    input: JSONObject
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ToolResultContent(WireModel, tag_field="type", tag="tool_result", kw_only=True):
    """The result of a tool use, sent back to the model in sampling (2025-11-25+)."""

    tool_use_id: str
    content: list[ContentBlock]
    structured_content: Any = msgspec.UNSET
    """Any JSON value; ``UNSET`` when absent (``None`` is JSON ``null``)."""
    is_error: bool | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent

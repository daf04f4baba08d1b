"""Elicitation: ``elicitation/create`` in form and URL mode, and the restricted JSON Schema
(``PrimitiveSchemaDefinition``) a form may use.

Decoding yields :class:`ElicitRequestParams`, which has the members of both modes (a form request
may omit ``mode``, so JSON offers no tag to choose a class by). Build requests with the precise
subclasses :class:`ElicitRequestFormParams` / :class:`ElicitRequestURLParams`.

The properties of ``requestedSchema`` stay plain dicts for the same reason (several variants share
``"type": "string"``); :func:`primitive_schema` gives the typed variant of one property.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mcpkit.types._base import InputRequestModel, JSONObject, Meta, WireModel
from mcpkit.types._tasks import TaskMetadata

__all__ = [
    "BooleanSchema",
    "ElicitAction",
    "ElicitRequest",
    "ElicitRequestFormParams",
    "ElicitRequestParams",
    "ElicitRequestURLParams",
    "ElicitRequestedSchema",
    "ElicitResult",
    "EnumOption",
    "LegacyTitledEnumSchema",
    "NumberSchema",
    "PrimitiveSchemaDefinition",
    "StringSchema",
    "TitledMultiSelectEnumSchema",
    "TitledMultiSelectItems",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "UntitledMultiSelectItems",
    "UntitledSingleSelectEnumSchema",
    "primitive_schema",
]

ElicitAction = Literal["accept", "decline", "cancel"]


class StringSchema(WireModel, tag_field="type", tag="string", kw_only=True):
    title: str | None = None
    description: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: Literal["email", "uri", "date", "date-time"] | None = None
    default: str | None = None


class NumberSchema(WireModel, kw_only=True):
    type: Literal["number", "integer"]
    title: str | None = None
    description: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    default: int | float | None = None


class BooleanSchema(WireModel, tag_field="type", tag="boolean", kw_only=True):
    title: str | None = None
    description: str | None = None
    default: bool | None = None


class EnumOption(WireModel, kw_only=True):
    """One titled choice: ``{"const": value, "title": label}``."""

    const: str
    title: str


class UntitledSingleSelectEnumSchema(WireModel, tag_field="type", tag="string", kw_only=True):
    enum: list[str]
    title: str | None = None
    description: str | None = None
    default: str | None = None


class TitledSingleSelectEnumSchema(WireModel, tag_field="type", tag="string", kw_only=True):
    one_of: list[EnumOption]
    title: str | None = None
    description: str | None = None
    default: str | None = None


class LegacyTitledEnumSchema(WireModel, tag_field="type", tag="string", kw_only=True):
    """The 2025-06-18 enum with parallel ``enumNames`` (kept for compatibility)."""

    enum: list[str]
    enum_names: list[str] | None = None
    title: str | None = None
    description: str | None = None
    default: str | None = None


class UntitledMultiSelectItems(WireModel, tag_field="type", tag="string", kw_only=True):
    enum: list[str]


class UntitledMultiSelectEnumSchema(WireModel, tag_field="type", tag="array", kw_only=True):
    items: UntitledMultiSelectItems
    title: str | None = None
    description: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    default: list[str] | None = None


class TitledMultiSelectItems(WireModel, kw_only=True):
    any_of: list[EnumOption]


class TitledMultiSelectEnumSchema(WireModel, tag_field="type", tag="array", kw_only=True):
    items: TitledMultiSelectItems
    title: str | None = None
    description: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    default: list[str] | None = None


PrimitiveSchemaDefinition = (
    StringSchema
    | NumberSchema
    | BooleanSchema
    | UntitledSingleSelectEnumSchema
    | TitledSingleSelectEnumSchema
    | UntitledMultiSelectEnumSchema
    | TitledMultiSelectEnumSchema
    | LegacyTitledEnumSchema
)


def primitive_schema(obj: JSONObject) -> PrimitiveSchemaDefinition:
    """The typed variant of one ``requestedSchema`` property (raises ``msgspec.ValidationError``
    when it is none of them)."""
    kind = obj.get("type")
    model: type[Any]
    if kind == "boolean":
        model = BooleanSchema
    elif kind in ("number", "integer"):
        model = NumberSchema
    elif kind == "array":
        items = obj.get("items")
        titled = isinstance(items, dict) and "anyOf" in items
        model = TitledMultiSelectEnumSchema if titled else UntitledMultiSelectEnumSchema
    elif "oneOf" in obj:
        model = TitledSingleSelectEnumSchema
    elif "enumNames" in obj:
        model = LegacyTitledEnumSchema
    elif "enum" in obj:
        model = UntitledSingleSelectEnumSchema
    else:
        model = StringSchema
    result: PrimitiveSchemaDefinition = msgspec.convert(obj, model)
    return result


class ElicitRequestedSchema(WireModel, tag_field="type", tag="object", kw_only=True):
    """A flat object schema: top-level primitive properties only, no nesting."""

    properties: dict[str, Any]
    """Property name → a ``PrimitiveSchemaDefinition`` (a dict when decoded; pass Structs or dicts
    when building)."""
    required: list[str] | None = None
    schema_: str | None = msgspec.field(default=None, name="$schema")


class ElicitRequestParams(WireModel, kw_only=True):
    """What ``elicitation/create`` params decode to: the union of both modes' members."""

    message: str
    mode: Literal["form", "url"] | None = None
    """Absent means ``"form"``."""
    requested_schema: ElicitRequestedSchema | None = None
    """Form mode."""
    url: str | None = None
    """URL mode."""
    elicitation_id: str | None = None
    """URL mode, 2025-11-25 only (2026-07-28 removed it)."""
    task: TaskMetadata | None = None
    """2025-11-25 only."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")

    @property
    def is_url(self) -> bool:
        return self.mode == "url"


class ElicitRequestFormParams(ElicitRequestParams, kw_only=True):
    mode: Literal["form"] | None = None
    requested_schema: ElicitRequestedSchema


class ElicitRequestURLParams(ElicitRequestParams, kw_only=True):
    mode: Literal["url"]
    url: str


class ElicitResult(WireModel, kw_only=True):
    action: ElicitAction
    content: dict[str, str | int | float | bool | list[str]] | None = None
    """Present with ``accept`` in form mode: the user's values, keyed by property."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ElicitRequest(InputRequestModel, tag="elicitation/create", kw_only=True):
    params: ElicitRequestParams

"""The restricted JSON Schema a form elicitation may ask with, checked before it is sent.

MCP lets a server ask the user through a form only with a flat object of primitive fields, so
that every client can draw it: strings (with ``minLength``/``maxLength`` and the formats
``email``, ``uri``, ``date``, ``date-time``), numbers and integers (``minimum``/``maximum``),
booleans, single-select enums (``enum``, optionally ``enumNames``, or ``oneOf`` of
``{const, title}``) and multi-select enums (an ``array`` whose ``items`` is such an enum). No
nesting, no ``$ref``, no combinators. A schema outside that subset is the tool author's bug:
:func:`check_form_schema` names the offending place instead of letting a client refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcpkit.protocol._errors import UsageError

__all__ = ["STRING_FORMATS", "check_form_schema", "elicitation_params_problem"]

STRING_FORMATS: Final = frozenset({"email", "uri", "date", "date-time"})
_COMMON: Final = frozenset({"type", "title", "description", "default"})
_ALLOWED: Final = {
    "string": _COMMON | {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}


def check_form_schema(schema: Any) -> None:
    """Raise :class:`UsageError` unless ``schema`` is a valid form ``requestedSchema``."""
    if not isinstance(schema, Mapping):
        raise UsageError("an elicitation schema must be a JSON object schema (a dict)")
    if schema.get("type") != "object":
        raise UsageError('an elicitation schema must have "type": "object" at the top')
    extra = set(schema) - {"type", "properties", "required", "$schema", "title", "description"}
    if extra:
        raise UsageError(f"an elicitation schema cannot use {_names(extra)} at the top level")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UsageError('an elicitation schema\'s "properties" must be an object')
    for name, field in properties.items():
        _check_field(str(name), field)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise UsageError('an elicitation schema\'s "required" must be a list of field names')
    unknown = [r for r in required if r not in properties]
    if unknown:
        raise UsageError(f"required fields {_names(unknown)} are not among the properties")


def elicitation_params_problem(params: Mapping[str, Any], *, legacy: bool) -> str | None:
    """Why an ``elicitation/create`` request's params are malformed, or ``None``.

    A URL-mode request needs a string ``url``, and in a handshake-era session (2025-11-25) an
    ``elicitationId`` too: the id is what the completion notification and a later ``-32042``
    refer to (2026-07-28 has no such id: the input request's key names the question). A
    client answers such a request with -32602."""
    if params.get("mode", "form") != "url":
        return None
    for key in ("url", "elicitationId") if legacy else ("url",):
        value = params.get(key)
        if not isinstance(value, str) or not value:
            return f"a URL-mode elicitation/create needs a non-empty string {key!r}"
    return None


def _check_field(name: str, field: Any) -> None:
    where = f"elicitation field {name!r}"
    if not isinstance(field, Mapping):
        raise UsageError(f"{where} must be a schema object")
    kind = field.get("type")
    if isinstance(kind, list | dict):
        raise UsageError(
            f"{where} has type {kind!r}: a form field has exactly one type (a string: string, "
            "number, integer, boolean or array), not a list of types"
        )
    if kind not in _ALLOWED:
        if "$ref" in field or "properties" in field or kind == "object":
            raise UsageError(f"{where}: forms are flat; nested objects and $ref are not allowed")
        raise UsageError(
            f"{where} has type {kind!r}; use string, number, integer, boolean, or an array of "
            "enum strings"
        )
    extra = set(field) - _ALLOWED[kind]
    if extra:
        raise UsageError(f"{where} ({kind}) cannot use {_names(extra)}")
    if kind == "string":
        _check_string(where, field)
    elif kind == "array":
        _check_multi_select(where, field)


def _check_string(where: str, field: Mapping[str, Any]) -> None:
    fmt = field.get("format")
    if fmt is not None and fmt not in STRING_FORMATS:
        raise UsageError(f"{where}: format {fmt!r} is not one of {_names(STRING_FORMATS)}")
    if "enum" in field and not _strings(field["enum"]):
        raise UsageError(f"{where}: enum must be a non-empty list of strings")
    if "enumNames" in field and (
        "enum" not in field or not _strings(field["enumNames"])
        or len(field["enumNames"]) != len(field["enum"])
    ):  # fmt: skip
        raise UsageError(f"{where}: enumNames must name each enum value, in order")
    if "oneOf" in field and not _titled_options(field["oneOf"]):
        raise UsageError(f'{where}: oneOf must be a list of {{"const": str, "title": str}}')


def _check_multi_select(where: str, field: Mapping[str, Any]) -> None:
    items = field.get("items")
    if not isinstance(items, Mapping):
        raise UsageError(f"{where}: an array field needs items (an enum of strings)")
    if "enum" in items:
        if items.get("type") != "string" or not _strings(items["enum"]) or set(items) - {
            "type", "enum"
        }:  # fmt: skip
            raise UsageError(f'{where}: items must be {{"type": "string", "enum": [...]}}')
        return
    options = items.get("anyOf")
    if set(items) - {"anyOf"} or not _titled_options(options):
        raise UsageError(
            f'{where}: items must be an enum of strings, or anyOf [{{"const", "title"}}]'
        )


def _strings(values: Any) -> bool:
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


def _titled_options(options: Any) -> bool:
    return (
        isinstance(options, list)
        and bool(options)
        and all(
            isinstance(o, Mapping)
            and isinstance(o.get("const"), str)
            and isinstance(o.get("title"), str)
            and not set(o) - {"const", "title"}
            for o in options
        )
    )


def _names(values: Any) -> str:
    return ", ".join(sorted(str(v) for v in values))

"""Form elicitation schemas: the spec's restricted subset is accepted, anything else is named."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._elicitation_schema import check_form_schema
from mcpkit.protocol._errors import UsageError

GOOD: list[dict[str, Any]] = [
    {"type": "object", "properties": {}},
    {
        "type": "object",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40},
            "email": {"type": "string", "format": "email", "default": "a@b.c"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "ratio": {"type": "number", "description": "between 0 and 1"},
            "ok": {"type": "boolean", "default": True},
            "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
            "tone": {"type": "string", "oneOf": [{"const": "f", "title": "Friendly"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "pick": {
                "type": "array",
                "minItems": 1,
                "items": {"anyOf": [{"const": "x", "title": "X"}]},
            },
        },
        "required": ["name", "ok"],
    },
]


@pytest.mark.parametrize("schema", GOOD)
def test_the_restricted_subset_is_accepted(schema: dict[str, Any]) -> None:
    check_form_schema(schema)


BAD: list[tuple[Any, str]] = [
    ("not a schema", "must be a JSON object schema"),
    ({"type": "array"}, '"type": "object"'),
    ({"type": "object", "properties": {}, "additionalProperties": False}, "additionalProperties"),
    (
        {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}},
        "field 'a': forms are flat",
    ),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}, "field 'a': forms are flat"),
    ({"type": "object", "properties": {"a": {"type": "null"}}}, "field 'a' has type 'null'"),
    ({"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}, "pattern"),
    ({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}, "ipv4"),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": []}}}, "enum must"),
    (
        {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}},
        "items must be an enum",
    ),
    ({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["b"]}, "'b'"[1:-1]),
]


@pytest.mark.parametrize(("schema", "named"), BAD)
def test_anything_else_is_refused_naming_the_place(schema: Any, named: str) -> None:
    with pytest.raises(UsageError) as refused:
        check_form_schema(schema)
    assert named in str(refused.value)

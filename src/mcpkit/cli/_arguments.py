"""``key=value`` arguments on the command line, typed by the tool's ``inputSchema``.

The schema decides what a value means, so quoting is rarely needed:

* a ``string`` property keeps the text as given (``zip=01234`` stays ``"01234"``);
* ``integer``, ``number``, ``boolean`` (also ``yes``/``no``/``on``/``off``), ``null``, ``array``
  and ``object`` properties parse the text as JSON (``tags=["a","b"]``, ``limit=5``);
* a property that allows several types tries JSON first and falls back to the text when a
  string is allowed;
* ``key:=JSON`` always parses JSON (for values the schema does not describe);
* a property the schema does not know is parsed as JSON if it is valid JSON, else kept as text.

``--json '{...}'`` gives the whole object instead. Every mistake is a usage error naming the
argument.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mcpkit.cli._errors import CliError
from mcpkit.protocol import JSON_TYPE_WORDS

__all__ = ["parse_assignments", "parse_json_object", "parse_string_assignments"]

_TRUE: Final = frozenset({"true", "yes", "on", "1"})
_FALSE: Final = frozenset({"false", "no", "off", "0"})


def parse_json_object(text: str, *, what: str = "--json") -> dict[str, Any]:
    """A JSON object from ``text``, or a usage error that points at the problem."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            hint="""quote the whole object for the shell: --json '{"key": "value"}'""",
        ) from None
    if not isinstance(value, dict):
        raise CliError(
            f"{what} must be a JSON object, not {type(value).__name__}",
            hint="""give the arguments by name: --json '{"key": "value"}'""",
        )
    return value


def _split(item: str) -> tuple[str, str, bool]:
    if "=" not in item:
        raise CliError(
            f"argument {item!r} is not key=value",
            hint="write arguments as key=value (or key:=JSON); quote values with spaces",
        )
    key, _, value = item.partition("=")
    raw_json = key.endswith(":")
    key = key.removesuffix(":")
    if not key:
        raise CliError(f"argument {item!r} has no name before '='", hint="write key=value")
    return key, value, raw_json


def _types(schema: Any) -> set[str]:
    if not isinstance(schema, Mapping):
        return set()
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(k for k in kind if isinstance(k, str))
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                found |= _types(option)
    if "enum" in schema and not found:
        found.update(_json_type(v) for v in schema["enum"])
    if "const" in schema and not found:
        found.add(_json_type(schema["const"]))
    return found


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, dict) else "array"


def _coerce(key: str, text: str, schema: Any) -> Any:
    types = _types(schema)
    if types == {"string"}:
        return text
    if types == {"boolean"}:
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise CliError(
            f"Invalid arguments: `{key}`: expected a boolean (true or false), got {text!r}",
            hint=f"give {key}=true",
        )
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        if not types or "string" in types:
            return text
        expected = " or ".join(sorted(types))
        words = " or ".join(JSON_TYPE_WORDS.get(name, name) for name in sorted(types))
        raise CliError(
            f"Invalid arguments: `{key}`: expected {words}, got {text!r}",
            hint=f"give {key}=<JSON {expected}>",
        ) from None
    if (
        types
        and "string" in types
        and _json_type(value) not in types
        and not (_json_type(value) == "number" and "integer" in types)
    ):
        return text  # e.g. a string-or-object property given plain words
    if "integer" in types and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def parse_assignments(items: Sequence[str], schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """Tool arguments from ``key=value`` / ``key:=JSON`` items, typed by ``schema``."""
    properties = (schema or {}).get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    out: dict[str, Any] = {}
    for item in items:
        key, text, raw_json = _split(item)
        if key in out:
            raise CliError(f"argument {key} is given twice", hint="give each argument once")
        if raw_json:
            try:
                out[key] = json.loads(text)
            except json.JSONDecodeError as exc:
                raise CliError(
                    f"argument {key}:= is not valid JSON: {exc.msg}",
                    hint=f"{key}:= takes JSON, e.g. {key}:='[1, 2]'; use {key}=text for text",
                ) from None
        else:
            out[key] = _coerce(key, text, properties.get(key))
    return out


def parse_string_assignments(items: Sequence[str]) -> dict[str, str]:
    """Prompt arguments: always strings on the wire, so ``key=value`` is taken literally."""
    out: dict[str, str] = {}
    for item in items:
        key, text, raw_json = _split(item)
        if raw_json:
            raise CliError(
                f"prompt argument {key}: prompt arguments are strings", hint=f"use {key}=..."
            )
        out[key] = text
    return out

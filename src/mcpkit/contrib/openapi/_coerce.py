"""Text values (from a URL, a query string, a header) typed by the JSON Schema they must match.

``"7"`` becomes ``7`` for an integer, ``"true"`` ``True`` for a boolean, ``"[1,2]"`` a list for
an array; what cannot be typed stays text, so validation then says why it is wrong. Used by the
contract's REST side (every parameter location) and by resource templates (URI variables).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

__all__ = ["coerce_text", "schema_types"]

_INTEGER: Final = re.compile(r"-?\d+")


def schema_types(schema: Any, defs: dict[str, Any], depth: int = 0) -> set[str]:
    """The JSON types ``schema`` admits (through ``$ref`` and ``anyOf``/``oneOf``/``allOf``)."""
    if not isinstance(schema, dict) or depth > 8:
        return set()
    if "$ref" in schema:
        return schema_types(defs.get(str(schema["$ref"]).removeprefix("#/$defs/")), defs, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(kind)
    out: set[str] = set()
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            out |= schema_types(sub, defs, depth + 1)
    return out


def coerce_text(text: str, schema: Any, defs: dict[str, Any]) -> Any:
    """``text`` typed by its schema; what cannot be typed stays text (validation says why)."""
    types = schema_types(schema, defs)
    if "integer" in types and _INTEGER.fullmatch(text):
        return int(text)
    if "number" in types:
        try:
            return float(text) if not _INTEGER.fullmatch(text) else int(text)
        except ValueError:
            pass
    if "boolean" in types and text in ("true", "false"):
        return text == "true"
    if "null" in types and text in ("", "null"):
        return None
    if ("object" in types or "array" in types) and text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text

"""An error answer in the contract's own documented shape.

The contract's REST side answers its errors (invalid request, contract violation …) as RFC 9457
problem details. When the operation documents that status with its own schema — a 400 whose
body requires ``code`` and ``message``, say — the answer must match it like any other answer:
the problem's fields are kept where the schema takes them, and each required field it lacks is
filled from the problem by the field's name and type (``code`` → ``"bad_request"``, ``message``
→ the detail, an integer ``status`` → the status …), or by the schema's ``const``, ``enum`` or
``default``. Fields the schema closes off (``additionalProperties: false``) are dropped.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final

from mcpkit.contrib.openapi._coerce import schema_types
from mcpkit.contrib.openapi._operations import OperationResponse
from mcpkit.contrib.openapi._schemas import attach_defs

__all__ = ["shaped_problem"]

logger = logging.getLogger("mcpkit.contrib.openapi")

_TEXT_NAMES: Final = frozenset(
    {"message", "detail", "details", "description", "error_description", "msg", "reason"}
)
_CODE_NAMES: Final = frozenset({"code", "error", "error_code", "errorcode", "kind", "type"})
_LIST_NAMES: Final = frozenset({"errors", "details", "violations", "problems", "issues"})


def _resolve(schema: Any, defs: dict[str, Any]) -> Any:
    seen: set[str] = set()
    while isinstance(schema, dict) and "$ref" in schema:
        name = str(schema["$ref"]).removeprefix("#/$defs/")
        if name in seen or name not in defs:
            return schema
        seen.add(name)
        schema = defs[name]
    return schema


def _snake(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "error"


def _value_for(name: str, schema: Any, problem: dict[str, Any], defs: dict[str, Any]) -> Any:
    schema = _resolve(schema, defs)
    if isinstance(schema, dict):
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        if "default" in schema:
            return schema["default"]
    types = schema_types(schema, defs) or {"string"}
    lowered = name.lower()
    status = problem.get("status", 500)
    if types & {"integer", "number"}:
        return status if ("status" in lowered or "code" in lowered) else 0
    if "string" in types:
        if lowered in _CODE_NAMES or lowered.endswith("code"):
            return _snake(str(problem.get("title", "error")))
        if lowered == "title":
            return str(problem.get("title", "Error"))
        if lowered == "status":
            return str(status)
        return str(problem.get("detail") or problem.get("title") or "error")
    if "array" in types:
        found = problem.get("errors") if lowered in _LIST_NAMES else None
        if not isinstance(found, list):
            return []
        items = _resolve(schema.get("items"), defs) if isinstance(schema, dict) else None
        if "string" in schema_types(items, defs):  # the schema lists messages, not objects
            return [_line(item) for item in found]
        return list(found)
    if "object" in types:
        return {}
    if "boolean" in types:
        return False
    return None


def _line(item: Any) -> str:
    if isinstance(item, dict) and "message" in item:
        field = item.get("field")
        return f"{field}: {item['message']}" if field else str(item["message"])
    return str(item)


def shaped_problem(
    problem: dict[str, Any], response: OperationResponse | None, defs: dict[str, Any]
) -> dict[str, Any]:
    """``problem`` made to match the documented ``response`` schema (see the module)."""
    if response is None or response.schema is None:
        return problem
    root = _resolve(response.schema, defs)
    if not isinstance(root, dict) or "object" not in (schema_types(root, defs) or {"object"}):
        return problem
    declared = root.get("properties")
    properties: dict[str, Any] = declared if isinstance(declared, dict) else {}
    shaped = dict(problem)
    if root.get("additionalProperties") is False:
        shaped = {k: v for k, v in shaped.items() if k in properties}
    for name, schema in properties.items():
        if (
            name in shaped
            and isinstance(shaped[name], str)
            and "string" not in (schema_types(_resolve(schema, defs), defs) or {"string"})
        ):  # e.g. the problem's textual "errors" where the schema wants something else
            del shaped[name]
    for name in root.get("required") or []:
        if isinstance(name, str) and name not in shaped:
            shaped[name] = _value_for(name, properties.get(name, {}), problem, defs)
    from mcpkit.contrib.openapi._validate import Validator

    validator = Validator(attach_defs(root, defs))
    errors = list(validator.iter_errors(shaped))
    for error in errors:  # a field taken from the problem in the wrong form: made anew
        path = list(error.absolute_path)
        if path and isinstance(path[0], str) and path[0] in properties:
            shaped[path[0]] = _value_for(path[0], properties[path[0]], problem, defs)
    errors = list(validator.iter_errors(shaped)) if errors else errors
    if errors:
        logger.warning(
            "contract: the documented %s error shape cannot be filled from a problem (%s); "
            "answering the problem as is",
            response.status,
            errors[0].message,
        )
        return problem
    return shaped

"""What an operation answers: its MCP output schema, and checking answers against the document.

The output schema comes from the 2xx JSON responses (one schema, or ``anyOf`` of several). MCP
wants an object at its root, so any other shape (an array, a string, a nullable object) is
wrapped as ``{"result": ...}`` — and the values are wrapped the same way at call time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from mcpkit.contrib.openapi._operations import Operation, OperationResponse
from mcpkit.contrib.openapi._schemas import SchemaConverter, attach_defs, is_object_schema

__all__ = [
    "OutputPlan",
    "ValidationMode",
    "binding_output_schema",
    "object_root",
    "plan_output",
    "problem_text",
]

ValidationMode = Literal["strict", "warn", "off"]
VALIDATION_MODES: Final = ("strict", "warn", "off")
MAX_VIOLATIONS: Final = 20
"""Violations of one answer listed in its error (then "and N more")."""
MAX_ERROR_TEXT: Final = 4000
"""Characters of an error body kept in an ``isError`` result."""


@dataclass(slots=True)
class OutputPlan:
    operation: Operation
    converter: SchemaConverter
    output_schema: dict[str, Any] | None
    wrapped: bool
    _validators: dict[str, Any] = field(default_factory=dict)

    def wrap(self, value: Any) -> Any:
        return {"result": value} if self.wrapped else value

    def problem(self, status: int, value: Any, *, formats: bool = False) -> str | None:
        """Why ``value`` (the JSON body of a ``status`` answer) breaks the document — every
        violation, shallowest first (``at $.a: ...; at $.b: ...``) — or None. ``formats``
        asserts the schemas' ``format`` keywords too."""
        response = self.operation.response_for(status)
        if response is None or response.schema is None:
            return None
        validator = self._validator(response, formats)
        errors = sorted(validator.iter_errors(value), key=_depth)
        if not errors:
            return None
        found = [f"at {_where(e.absolute_path)}: {e.message}" for e in errors[:MAX_VIOLATIONS]]
        if len(errors) > MAX_VIOLATIONS:
            found.append(f"and {len(errors) - MAX_VIOLATIONS} more")
        return "; ".join(found)

    def _validator(self, response: OperationResponse, formats: bool) -> Any:
        key = f"{response.status}{'+formats' if formats else ''}"
        validator = self._validators.get(key)
        if validator is None:
            from mcpkit.contrib.openapi._validate import Validator

            defs = self.converter.defs_for(response.refs)
            validator = Validator(attach_defs(response.schema, defs), formats=formats)
            self._validators[key] = validator
        return validator


def binding_output_schema(plan: OutputPlan, mode: ValidationMode) -> dict[str, Any] | None:
    """The ``outputSchema`` a tool may advertise: the document's only when answers are held to
    it (``strict``). A client treats an advertised schema as binding and rejects a result that
    breaks it, so ``warn``/``off`` — which let such answers through — advertise none."""
    return plan.output_schema if mode == "strict" else None


def _depth(error: Any) -> tuple[int, list[str]]:
    return len(error.absolute_path), [str(p) for p in error.absolute_path]


def _where(path: Any) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def plan_output(operation: Operation, converter: SchemaConverter) -> OutputPlan:
    schemas: list[Any] = []
    seen: set[str] = set()
    refs: set[str] = set()
    for response in operation.success_responses():
        if response.schema is None:
            continue
        key = json.dumps(response.schema, sort_keys=True)
        if key not in seen:
            seen.add(key)
            schemas.append(response.schema)
            refs |= response.refs
    if not schemas:
        return OutputPlan(operation, converter, None, False)
    defs = converter.defs_for(refs)
    schema = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if is_object_schema(schema, defs):
        return OutputPlan(operation, converter, object_root(schema, defs), False)
    wrapped = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    return OutputPlan(operation, converter, attach_defs(wrapped, defs), True)


def object_root(schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """An object schema with ``"type": "object"`` at its root, as MCP requires: a root that is
    only a ``$ref`` is replaced by the definition it names."""
    seen: set[str] = set()
    while isinstance(schema, dict) and set(schema) == {"$ref"}:
        name = str(schema["$ref"]).removeprefix("#/$defs/")
        if name in seen or name not in defs:
            break
        seen.add(name)
        schema = defs[name]
    root = dict(schema) if isinstance(schema, dict) else {}
    root["type"] = "object"
    return attach_defs(root, defs)  # type: ignore[no-any-return]


def problem_text(status: int, reason: str, label: str, body: Any) -> tuple[str, dict[str, Any]]:
    """A readable line and an RFC 9457 problem-details object for an error answer."""
    problem: dict[str, Any]
    if isinstance(body, dict):
        problem = dict(body)
        problem.setdefault("status", status)
        problem.setdefault("title", reason)
    elif isinstance(body, str):
        problem = {"status": status, "title": reason}
        if body.strip():
            problem["detail"] = body[:MAX_ERROR_TEXT]
    else:
        problem = {"status": status, "title": reason, "detail": body}
    detail = problem.get("detail") or problem.get("message") or problem.get("error")
    line = f"HTTP {status} {reason} from {label}"
    if detail is not None:
        text = detail if isinstance(detail, str) else json.dumps(detail)
        line += f": {text[:MAX_ERROR_TEXT]}"
    return line, problem

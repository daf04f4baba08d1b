"""Registering thousands of generated tools quickly.

``RegisteredTool(...)`` analyses a Python signature and meta-validates the input schema, which
is right for hand-written tools but costs milliseconds each: a 1,200-operation document would
take most of a minute to serve. A generated tool has no signature worth analysing (its function
takes ``**arguments``) and a schema the converter produced, so each one here is a copy of one
analysed template with its own name, function and definition, and its argument validator is
compiled on first use.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from mcpkit.protocol import json_path
from mcpkit.server import RegisteredTool
from mcpkit.server._names import validate_tool_name

__all__ = ["LazyValidator", "make_tool"]

_template: RegisteredTool | None = None


async def _placeholder(**arguments: Any) -> Any:  # never called: every copy gets its own fn
    raise AssertionError


class _SchemaProblem:
    """Looks like a jsonschema error: the schema itself is broken (reported per call)."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.absolute_path: deque[Any] = deque()


class LazyValidator:
    """A Draft 2020-12 validator compiled (and its schema checked) at the first call."""

    __slots__ = ("_schema", "_validator")

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._validator: Any = None

    def iter_errors(self, instance: Any) -> Iterator[Any]:
        if self._validator is None:
            from jsonschema import Draft202012Validator, SchemaError

            from mcpkit.contrib.openapi._validate import Validator

            try:
                Draft202012Validator.check_schema(self._schema)
            except SchemaError as exc:
                yield _SchemaProblem(f"the document's input schema is invalid: {exc.message}")
                return
            self._validator = Validator(self._schema)
        yield from self._validator.iter_errors(instance)

    def errors(self, instance: Any) -> list[tuple[str, str]]:
        """``(json_path, message)`` per problem, as :class:`RegisteredTool` reports them."""
        found = sorted(self.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
        return [(json_path(error.absolute_path), error.message) for error in found]


def make_tool(
    fn: Callable[..., Any],
    *,
    name: str,
    title: str | None,
    description: str | None,
    annotations: dict[str, Any] | None,
    input_schema: dict[str, Any],
    output_schema: dict[str, Any] | None,
) -> RegisteredTool:
    """A tool whose arguments are validated against ``input_schema`` and passed as keywords."""
    global _template
    if _template is None:
        _template = RegisteredTool(_placeholder, name="template", input_schema={"type": "object"})
    validate_tool_name(name)
    tool = copy.copy(_template)
    tool.fn = fn
    tool.name = name
    definition: dict[str, Any] = {"name": name}
    if title:
        definition["title"] = title
    if description:
        definition["description"] = description
    definition["inputSchema"] = input_schema
    if output_schema is not None:
        definition["outputSchema"] = output_schema
    if annotations:
        definition["annotations"] = annotations
    tool.definition = definition
    tool._schema_validator = LazyValidator(input_schema)
    return tool

"""Registering thousands of generated tools quickly.

A generated tool is declared by data: the input schema the converter produced and a function
taking ``**arguments``. ``mcpkit.server.RegisteredTool.from_schema`` is made for that (it reads
nothing of the function's signature). What stays costly is the
schema: ``jsonschema``'s meta-schema check takes ~13 ms a schema here, 16 s for GitHub's 1,223
operations, and building both validators another ~0.3 s. So each tool brings its own
:class:`DocumentSchema` (an :class:`~mcpkit.server.ArgumentValidator`): the schema is checked
against the 2020-12 meta-schema at registration by ``jsonschema-rs`` (~25 ms for all of GitHub's;
an invalid one is refused then, as for any tool), and the validators are built at its first call.
Without ``jsonschema-rs`` the meta-schema check moves to the first call, whose result reports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.protocol import UsageError, json_path
from mcpkit.server import RegisteredTool

__all__ = ["DocumentSchema", "make_tool"]


class DocumentSchema:
    """The arguments check of one generated tool: Draft 2020-12, validators built at first use.

    The schema itself is checked here when ``jsonschema-rs`` is installed (part of the
    ``openapi`` extra), else at the first call.
    """

    __slots__ = ("_checked", "_schema", "_validator")

    def __init__(self, schema: dict[str, Any], *, tool: str) -> None:
        self._schema = schema
        self._validator: Any = None
        self._checked = _meta_check(schema, tool)

    def errors(self, value: Any) -> list[tuple[str, str]]:
        """``(json_path, message)`` per problem, in document order (``[]``: valid)."""
        if self._validator is None:
            from mcpkit.contrib.openapi._validate import Validator

            if not self._checked:
                from jsonschema import Draft202012Validator, SchemaError

                try:
                    Draft202012Validator.check_schema(self._schema)
                except SchemaError as exc:
                    return [("$", f"the document's input schema is invalid: {exc.message}")]
                self._checked = True
            self._validator = Validator(self._schema)
        found = sorted(
            self._validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
        )
        return [(json_path(error.absolute_path), error.message) for error in found]


def _meta_check(schema: dict[str, Any], tool: str) -> bool:
    """Check ``schema`` against the 2020-12 meta-schema now if that is cheap (``jsonschema-rs``);
    ``False`` when it is left for the first call. Raises :class:`UsageError` for an invalid one."""
    try:
        import jsonschema_rs
    except ImportError:
        return False
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as exc:
        raise UsageError(
            f"tool {tool!r}: the document's input schema is invalid: {exc.message}"
        ) from None
    except Exception:  # a schema it cannot take (e.g. an integer past 64 bits): Python decides
        return False
    return True


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
    return RegisteredTool.from_schema(
        fn,
        name=name,
        title=title,
        description=description,
        annotations=annotations,
        input_schema=input_schema,
        output_schema=output_schema,
        validator=DocumentSchema(input_schema, tool=name),
    )

"""JSON Schema validation the way MCP asks for it, shared by server and client.

The spec's rules (basic/index §JSON Schema Usage) that shape this module:

* no ``$schema`` means JSON Schema 2020-12; a declared dialect (2020-12, 2019-09, draft-07, and
  the older draft-06/draft-04) is honoured, so ``items: [...]`` is a tuple in draft-07 and
  ``prefixItems`` is in 2020-12; an unknown dialect is an error, never a silent guess;
* only local ``$ref``\\ s resolve (``#/$defs/...``, ``#/definitions/...``): the registry has no
  retriever, so a reference to a URL is reported as unavailable instead of fetched. Nothing here
  does I/O, so validating never blocks an event loop on the network.

One implementation serves both sides: a server validating ``tools/call`` arguments against a
hand-written ``input_schema=``, a client checking ``structuredContent`` against an
``outputSchema``. :mod:`jsonschema` is imported on the first compile, not with this module, so
a server with no hand-written schema never pays for it.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "DEFAULT_DIALECT",
    "CompiledSchema",
    "SchemaProblem",
    "JSON_TYPE_WORDS",
    "argument_problem_text",
    "compile_schema",
    "external_refs",
    "json_path",
]

JSON_TYPE_WORDS: Final = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean",
    "null": "null",
    "array": "an array",
    "object": "an object",
}
"""JSON Schema types as a sentence says them: the server's argument errors use the same words
(``expected an integer, got a string``), so a check made by a client reads like the server's."""


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"


def _type_words(types: Any) -> str:
    names = types if isinstance(types, list) else [types]
    return " or ".join(JSON_TYPE_WORDS.get(str(name), f"`{name}`") for name in names)


def argument_problem_text(path: str, detail: str) -> str:
    """``Invalid arguments: `b`: expected an integer, got a string`` for ``("$.b", detail)``:
    the wording of the server's own argument errors (``mcpkit.server``'s ``ArgumentError``)."""
    field = path[2:] if path.startswith("$.") else "" if path == "$" else path.lstrip("$")
    return f"Invalid arguments: `{field}`: {detail}" if field else f"Invalid arguments: {detail}"


DEFAULT_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


class SchemaProblem(ValueError):
    """The schema itself is unusable: not an object, invalid, or of an unknown dialect."""


@cache
def _dialects() -> dict[str, type[Validator]]:
    """``$schema`` URI (with and without the trailing ``#``) → validator class."""
    import jsonschema

    known: dict[str, type[Validator]] = {}
    for cls in (
        jsonschema.Draft202012Validator,
        jsonschema.Draft201909Validator,
        jsonschema.Draft7Validator,
        jsonschema.Draft6Validator,
        jsonschema.Draft4Validator,
    ):
        uri = cls.META_SCHEMA["$schema"].rstrip("#")
        known[uri] = cls
        known[uri + "#"] = cls
    return known


@cache
def _registry() -> Any:
    """A ``$ref`` registry that never retrieves: a remote reference stays unresolvable."""
    import referencing
    import referencing.exceptions

    def no_network(uri: str) -> Any:
        raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]

    return referencing.Registry(retrieve=no_network)  # type: ignore[call-arg]


def json_path(path: Any) -> str:
    """``$.a[0].b`` for a jsonschema error path (a deque of keys and indexes)."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


class CompiledSchema:
    """A validator built once; :meth:`first_error` gives a message a person can act on."""

    __slots__ = ("_validator", "schema")

    def __init__(self, schema: dict[str, Any], validator: Validator) -> None:
        self.schema = schema
        self._validator = validator

    def first_error(self, value: Any) -> tuple[str, str] | None:
        """``None`` when ``value`` is valid, else ``(json_path, message)`` of the best error."""
        import jsonschema.exceptions
        import referencing.exceptions

        try:
            error = jsonschema.exceptions.best_match(self._validator.iter_errors(value))
        except referencing.exceptions.Unresolvable as exc:
            return "$", f"the schema refers to {exc} which is not available (not fetched)"
        if error is None:
            return None
        path = json_path(error.absolute_path)
        if error.validator == "required" and isinstance(error.validator_value, list):
            missing = [
                name
                for name in error.validator_value
                if isinstance(error.instance, dict) and name not in error.instance
            ]
            if missing:
                base = "" if path == "$" else path[1:]
                path = f"${base}.{missing[0]}"
        return path, error.message

    def first_argument_problem(self, value: Any) -> tuple[str, str] | None:
        """Like :meth:`first_error` for tool arguments, the detail worded as the server words
        it (``required argument is missing``, ``expected an integer, got a string``,
        ``unknown argument``); other problems keep the validator's message."""
        import jsonschema.exceptions
        import referencing.exceptions

        try:
            error = jsonschema.exceptions.best_match(self._validator.iter_errors(value))
        except referencing.exceptions.Unresolvable as exc:
            return "$", f"the schema refers to {exc} which is not available (not fetched)"
        if error is None:
            return None
        path = json_path(error.absolute_path)
        nested = path != "$"
        if error.validator == "required" and isinstance(error.instance, dict):
            missing = [n for n in error.validator_value or () if n not in error.instance]
            if missing:
                return (
                    f"{path}.{missing[0]}",
                    "required field is missing" if nested else "required argument is missing",
                )
        if error.validator == "type":
            got = JSON_TYPE_WORDS[_json_type(error.instance)]
            return path, f"expected {_type_words(error.validator_value)}, got {got}"
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties") if isinstance(error.schema, dict) else None
            names = sorted(known) if isinstance(known, dict) else []
            extra = [n for n in error.instance if n not in names]
            if extra and error.validator_value is False:
                if nested:
                    return f"{path}.{extra[0]}", "unknown field"
                hint = f"expected one of: {', '.join(names)}" if names else "takes no arguments"
                return f"$.{extra[0]}", f"unknown argument ({hint})"
        return path, error.message

    def errors(self, value: Any) -> list[tuple[str, str]]:
        """Every ``(json_path, message)`` problem of ``value``, in document order."""
        import referencing.exceptions

        try:
            found = sorted(
                self._validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
            )
        except referencing.exceptions.Unresolvable as exc:
            return [("$", f"the schema refers to {exc} which is not available (not fetched)")]
        return [(json_path(error.absolute_path), error.message) for error in found]


def compile_schema(schema: Any) -> CompiledSchema:
    """Check ``schema`` and build its validator (dialect from ``$schema``, 2020-12 by default).

    Raises :class:`SchemaProblem` for a schema that is not an object, names an unknown dialect,
    or is invalid under its own dialect's meta-schema.
    """
    if not isinstance(schema, dict):
        raise SchemaProblem(f"a schema must be a JSON object, not {type(schema).__name__}")
    dialect = schema.get("$schema", DEFAULT_DIALECT)
    cls = _dialects().get(dialect) if isinstance(dialect, str) else None
    if cls is None:
        raise SchemaProblem(
            f"unsupported JSON Schema dialect {dialect!r}; supported: 2020-12, 2019-09, "
            f"draft-07, draft-06, draft-04"
        )
    import jsonschema.exceptions

    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise SchemaProblem(
            f"invalid schema at {json_path(exc.absolute_path)}: {exc.message}"
        ) from None
    validator = cls(schema, registry=_registry())
    return CompiledSchema(schema, validator)


def external_refs(schema: Any) -> list[str]:
    """Every ``$ref`` in ``schema`` that points outside it (a URL no local ``$id`` names).

    Such a reference can never resolve here (nothing is fetched), so a server refuses a
    hand-written schema that has one at registration rather than failing every call.
    """
    ids: set[str] = set()
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$id" and isinstance(value, str):
                    ids.add(value.split("#", 1)[0])
                elif key == "$ref" and isinstance(value, str):
                    refs.append(value)
                elif key not in ("const", "enum", "default", "examples"):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schema)
    return [ref for ref in refs if not ref.startswith("#") and ref.split("#", 1)[0] not in ids]

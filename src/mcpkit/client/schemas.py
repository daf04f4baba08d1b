"""JSON Schema checks for tool inputs and outputs, compiled once per schema.

The spec's rules (basic/index §JSON Schema Usage) that shape this module:

* no ``$schema`` means JSON Schema 2020-12; a declared dialect is honoured; an unknown dialect is
  an error, never a silent guess;
* network ``$ref`` is never fetched: the registry below has no retriever, so an external
  reference fails validation instead of reaching out (2026 SHOULD);
* clients SHOULD validate ``structuredContent`` against ``outputSchema``.

A :class:`CompiledSchema` is cheap to call repeatedly; :class:`SchemaCache` keeps one per tool so
a hot loop of ``tools/call`` never re-checks or re-builds a validator.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any, Final, Literal

import jsonschema
import jsonschema.exceptions
import referencing
import referencing.exceptions
from jsonschema.protocols import Validator

__all__ = [
    "DEFAULT_DIALECT",
    "MAX_CACHED_SCHEMAS",
    "CompiledSchema",
    "SchemaCache",
    "SchemaProblem",
    "ValidationMode",
    "compile_schema",
    "json_path",
]

logger = logging.getLogger("mcpkit.client")

ValidationMode = Literal["strict", "warn", "off"]
"""How a client treats results that violate a tool's ``outputSchema``."""

DEFAULT_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
MAX_CACHED_SCHEMAS: Final = 4096
"""Compiled validators kept per client (least recently used beyond this are rebuilt)."""

_KNOWN_DIALECTS: Final[dict[str, type[Validator]]] = {}
for _cls in (
    jsonschema.Draft202012Validator,
    jsonschema.Draft201909Validator,
    jsonschema.Draft7Validator,
    jsonschema.Draft6Validator,
    jsonschema.Draft4Validator,
):
    _uri = _cls.META_SCHEMA["$schema"]
    _KNOWN_DIALECTS[_uri] = _cls
    _KNOWN_DIALECTS[_uri.rstrip("#")] = _cls
    _KNOWN_DIALECTS[_uri.rstrip("#") + "#"] = _cls


class SchemaProblem(ValueError):
    """The schema itself is unusable: not an object, invalid, or of an unknown dialect."""


def _no_network(uri: str) -> referencing.Resource[Any]:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


_REGISTRY: Final = referencing.Registry(retrieve=_no_network)  # type: ignore[call-arg]


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


def compile_schema(schema: Any) -> CompiledSchema:
    """Check ``schema`` and build its validator (dialect from ``$schema``, 2020-12 by default)."""
    if not isinstance(schema, dict):
        raise SchemaProblem(f"a schema must be a JSON object, not {type(schema).__name__}")
    dialect = schema.get("$schema", DEFAULT_DIALECT)
    cls = _KNOWN_DIALECTS.get(dialect) if isinstance(dialect, str) else None
    if cls is None:
        raise SchemaProblem(
            f"unsupported JSON Schema dialect {dialect!r}; supported: 2020-12, 2019-09, "
            f"draft-07, draft-06, draft-04"
        )
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise SchemaProblem(
            f"invalid schema at {json_path(exc.absolute_path)}: {exc.message}"
        ) from None
    validator = cls(schema, registry=_REGISTRY)
    return CompiledSchema(schema, validator)


class SchemaCache:
    """Compiled schemas keyed by (tool name, role), rebuilt only when the schema object changes.

    Identity of the schema dict is the change signal (the entry keeps the dict alive, so the
    identity cannot be reused): a fresh ``tools/list`` produces new dicts, so a changed tool is
    recompiled, while repeated calls against the same listing hit the cache.
    """

    def __init__(self, max_entries: int = MAX_CACHED_SCHEMAS) -> None:
        self._entries: OrderedDict[
            tuple[str, str], tuple[dict[str, Any], CompiledSchema | SchemaProblem]
        ] = OrderedDict()
        self._max = max_entries

    def get(self, tool: str, role: str, schema: dict[str, Any]) -> CompiledSchema:
        """The compiled schema; raises :class:`SchemaProblem` (remembered too) for a bad one."""
        key = (tool, role)
        hit = self._entries.get(key)
        if hit is not None and hit[0] is schema:
            self._entries.move_to_end(key)
            entry = hit[1]
        else:
            entry = self._build(key, schema)
        if isinstance(entry, SchemaProblem):
            raise entry
        return entry

    def _build(
        self, key: tuple[str, str], schema: dict[str, Any]
    ) -> CompiledSchema | SchemaProblem:
        entry: CompiledSchema | SchemaProblem
        try:
            entry = compile_schema(schema)
        except SchemaProblem as exc:
            logger.warning("tool %r has an unusable %s: %s", key[0], key[1], exc)
            entry = exc
        self._entries[key] = (schema, entry)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
        return entry

    def clear(self) -> None:
        self._entries.clear()

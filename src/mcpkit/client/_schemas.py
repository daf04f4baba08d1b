"""The client's cache of compiled tool schemas.

Compiling (dialect from ``$schema``, local ``$ref`` only, never a network fetch) is
:mod:`mcpkit.protocol._schema_dialects`, shared with the server; the names are re-exported here
for the client's users. Clients SHOULD validate ``structuredContent`` against ``outputSchema``:
a :class:`CompiledSchema` is cheap to call repeatedly, and :class:`SchemaCache` keeps one per
tool so a hot loop of ``tools/call`` never re-checks or re-builds a validator.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any, Final, Literal

from mcpkit.protocol._schema_dialects import (
    DEFAULT_DIALECT,
    CompiledSchema,
    SchemaProblem,
    compile_schema,
    json_path,
)

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

MAX_CACHED_SCHEMAS: Final = 4096
"""Compiled validators kept per client (least recently used beyond this are rebuilt)."""


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

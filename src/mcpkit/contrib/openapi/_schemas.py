"""OpenAPI schema objects → JSON Schema 2020-12, with ``$ref``s kept as finite ``$defs``.

Every schema a ``$ref`` names becomes one entry of ``$defs`` (keyed by its component name), so a
recursive schema (a tree, a linked list) stays a finite document that references itself instead
of being expanded forever. Each definition is converted once per document and shared by every
operation that uses it; a tool's schema carries only the definitions it reaches.

OpenAPI 3.0's dialect differs from JSON Schema in a few places, translated here:
``nullable: true`` → ``"null"`` in ``type`` (or ``anyOf`` with ``{"type": "null"}``);
boolean ``exclusiveMinimum``/``exclusiveMaximum`` → the numeric 2020-12 form; ``example`` →
``examples``. Keywords that only mean something to OpenAPI tooling (``discriminator``, ``xml``,
``externalDocs``, ``x-*``) are dropped. 3.1 documents written in the 3.0 habit (``nullable``,
boolean exclusive bounds — common in large real documents) are translated the same way, so every
produced schema is valid JSON Schema 2020-12.

A schema carries only the ``$defs`` it references: a definition whose ``$ref`` was replaced (a
flattened request body, an object root made concrete) is not emitted.
"""

from __future__ import annotations

import re
from typing import Any, Final

from mcpkit.contrib.openapi._document import Document, escape_pointer
from mcpkit.contrib.openapi._errors import OpenAPIError

__all__ = ["SchemaConverter", "attach_defs", "is_object_schema", "referenced_defs"]

_SCHEMA_MAP_KEYS: Final = ("properties", "patternProperties", "dependentSchemas", "$defs")
_SCHEMA_KEYS: Final = (
    "additionalProperties",
    "items",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)
_SCHEMA_LIST_KEYS: Final = ("allOf", "anyOf", "oneOf", "prefixItems")
_DROPPED: Final = frozenset({"discriminator", "xml", "externalDocs", "nullable", "example"})
_COMPONENT_PREFIX: Final = "/components/schemas/"
_DEF_NAME: Final = re.compile(r"[^A-Za-z0-9_.-]")


class SchemaConverter:
    """Converts the schemas of one document; definitions are cached across operations."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self._defs: dict[str, Any] = {}
        self._deps: dict[str, set[str]] = {}
        self._def_names: dict[str, str] = {}  # pointer -> $defs name
        self._names_taken: set[str] = set()
        self._converting: set[str] = set()

    # -- public --------------------------------------------------------------------------------

    def convert(self, schema: Any, at: str) -> tuple[Any, dict[str, Any]]:
        """The converted schema and the ``$defs`` it needs (transitively)."""
        refs: set[str] = set()
        converted = self._convert(schema, at, refs)
        return converted, self.defs_for(refs)

    def convert_into(self, schema: Any, at: str, refs: set[str]) -> Any:
        """Convert ``schema``, adding the names of the definitions it uses to ``refs``."""
        return self._convert(schema, at, refs)

    def with_defs(self, schema: Any, at: str) -> Any:
        """The converted schema with its ``$defs`` attached at the root (wrapping when needed)."""
        converted, defs = self.convert(schema, at)
        return attach_defs(converted, defs)

    def defs_for(self, names: set[str]) -> dict[str, Any]:
        closure: dict[str, Any] = {}
        pending = list(names)
        while pending:
            name = pending.pop()
            if name in closure:
                continue
            closure[name] = self._defs[name]
            pending.extend(self._deps[name] - closure.keys())
        return dict(sorted(closure.items()))

    # -- conversion ----------------------------------------------------------------------------

    def _def_for(self, ref: Any, at: str) -> str:
        """Register (and convert, once) the definition a ``$ref`` names; return its key."""
        target, pointer = self.document.lookup(ref, at)
        name = self._def_names.get(pointer)
        if name is not None:
            return name
        if pointer.startswith(_COMPONENT_PREFIX) and "/" not in pointer[len(_COMPONENT_PREFIX) :]:
            base = pointer[len(_COMPONENT_PREFIX) :].replace("~1", "/").replace("~0", "~")
        else:
            base = pointer.strip("/")
        base = _DEF_NAME.sub("_", base) or "schema"
        name, n = base, 2
        while name in self._names_taken:
            name, n = f"{base}_{n}", n + 1
        self._names_taken.add(name)
        self._def_names[pointer] = name
        deps: set[str] = set()
        self._deps[name] = deps
        self._defs[name] = True  # placeholder while converting (recursion ends here)
        self._defs[name] = self._convert(target, pointer, deps)
        self._check_not_pure_cycle(name, pointer)
        return name

    def _check_not_pure_cycle(self, name: str, pointer: str) -> None:
        seen = [name]
        current = self._defs[name]
        while isinstance(current, dict) and set(current) == {"$ref"}:
            nxt = current["$ref"].removeprefix("#/$defs/")
            if nxt in seen:
                chain = " -> ".join([*seen, nxt])
                raise OpenAPIError(pointer, f"schema $ref cycle with no schema in it: {chain}")
            seen.append(nxt)
            current = self._defs.get(nxt)

    def _convert(self, node: Any, at: str, refs: set[str]) -> Any:
        if isinstance(node, bool):  # 3.1 anywhere; 3.0 as additionalProperties
            return node
        if not isinstance(node, dict):
            raise OpenAPIError(at, f"a schema must be an object, not {type(node).__name__}")
        if node.get("nullable") is True:  # 3.0, or the 3.0 habit in a 3.1 document
            inner = self._convert({k: v for k, v in node.items() if k != "nullable"}, at, refs)
            return _nullable(inner) if isinstance(inner, dict) else inner
        if "$ref" in node:
            name = self._def_for(node["$ref"], f"{at}/$ref")
            refs.add(name)
            ref: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
            if self.document.is_30:  # 3.0: siblings of $ref are ignored (nullable: above)
                return ref
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if not rest:
                return ref
            merged = self._convert(rest, at, refs)
            return {**ref, **merged} if isinstance(merged, dict) else ref
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED or key.startswith("x-"):
                continue
            where = f"{at}/{escape_pointer(key)}"
            if key in _SCHEMA_MAP_KEYS:
                if not isinstance(value, dict):
                    raise OpenAPIError(where, f"{key} must be an object of schemas")
                out[key] = {
                    name: self._convert(sub, f"{where}/{escape_pointer(name)}", refs)
                    for name, sub in value.items()
                }
            elif key in _SCHEMA_KEYS:
                if key == "items" and isinstance(value, list):
                    out["prefixItems"] = [
                        self._convert(sub, f"{where}/{i}", refs) for i, sub in enumerate(value)
                    ]
                else:
                    out[key] = self._convert(value, where, refs)
            elif key in _SCHEMA_LIST_KEYS:
                if not isinstance(value, list):
                    raise OpenAPIError(where, f"{key} must be a list of schemas")
                out[key] = [self._convert(sub, f"{where}/{i}", refs) for i, sub in enumerate(value)]
            elif key == "type":
                out[key] = _type(value, where, self.document.is_30)
            elif key == "required":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise OpenAPIError(where, "required must be a list of property names")
                if value:
                    out[key] = value
            else:
                out[key] = value
        if "example" in node and "examples" not in node:
            out["examples"] = [node["example"]]
        _exclusive_bounds(out, node)  # boolean flags: 3.0, or the 3.0 habit in 3.1
        return out


def _type(value: Any, at: str, is_30: bool) -> Any:
    if value == "file":  # Swagger 2 leftovers: a file upload is a string
        return "string"
    if isinstance(value, str) or (not is_30 and isinstance(value, list)):
        return value
    raise OpenAPIError(at, f"type must be a string{'' if is_30 else ' or a list'}, not {value!r}")


def _exclusive_bounds(out: dict[str, Any], node: dict[str, Any]) -> None:
    for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = node.get(flag)
        if isinstance(value, bool):
            del out[flag]
            if value and bound in node:
                out[flag] = node[bound]
                out.pop(bound, None)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and "$ref" not in schema:
        out = {**schema, "type": [kind, "null"]}
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]}


def referenced_defs(schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``defs`` that ``schema`` reaches through ``$ref`` (transitively)."""
    reached: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/") :]
                if name in defs and name not in reached:
                    reached.add(name)
                    pending.append(defs[name])
            pending.extend(v for k, v in node.items() if k != "$defs")
        elif isinstance(node, list):
            pending.extend(node)
    return {name: value for name, value in defs.items() if name in reached}


def attach_defs(schema: Any, defs: dict[str, Any]) -> Any:
    """``schema`` with the ``defs`` it references attached at its root (wrapped in ``allOf``
    when the root is not an object); unreferenced definitions are left out."""
    defs = referenced_defs(schema, defs) if defs else defs
    if not defs:
        return schema
    if isinstance(schema, dict) and "$defs" not in schema:
        return {**schema, "$defs": defs}
    return {"allOf": [schema], "$defs": defs}


def is_object_schema(schema: Any, defs: dict[str, Any]) -> bool:
    """True when ``schema`` certainly describes a JSON object (a ``$ref`` is followed)."""
    seen: set[str] = set()
    while isinstance(schema, dict) and "$ref" in schema and len(schema) == 1:
        name = str(schema["$ref"]).removeprefix("#/$defs/")
        if name in seen:
            return False
        seen.add(name)
        schema = defs.get(name)
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "object":
        return True
    if "type" not in schema and ("properties" in schema or "additionalProperties" in schema):
        return "anyOf" not in schema and "oneOf" not in schema
    return False

#!/usr/bin/env python3
"""Generate src/mcpkit/protocol/_shape_tables.py from the official schemas in tests/data/spec.

Why a generated table: shaping runs on every outbound message, so it must not interpret JSON
Schema at runtime. This script reads each revision's ``schema.json`` once and writes, per
revision, a compact description of which fields each definition has (see
:mod:`mcpkit.protocol._shape` for the node forms). ``tests/protocol/test_shape_tables.py`` runs
the generator and fails if the committed table differs, so the table cannot drift from the
schemas.

Run from the repository root::

    python scripts/gen_shape_tables.py          # rewrite the table
    python scripts/gen_shape_tables.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import json
import pprint
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "data" / "spec"
OUT = ROOT / "src" / "mcpkit" / "protocol" / "_shape_tables.py"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

OPAQUE_PROPERTIES = frozenset({"_meta", "inputSchema", "outputSchema", "requestedSchema"})
"""Values kept exactly as given: ``_meta`` maps are open by definition, and the others are JSON
Schema documents written by the user (dropping a keyword would change what they mean)."""

EMPTY_RESULT_REQUESTS = {
    "PingRequest",
    "SubscribeRequest",
    "UnsubscribeRequest",
    "SetLevelRequest",
}
"""Requests answered with the empty result (only ``_meta``)."""

EXTENSION_FIELDS = {
    "2026-07-28": {"SubscriptionFilter": ("ext-tasks", "TaskSubscriptionNotifications")},
}
"""Core objects an extension adds fields to (revision → core definition → (extension schema,
definition whose properties are added)): the Tasks extension lets ``subscriptions/listen`` name
task ids, so for a peer that negotiated it those fields are part of the filter."""

Node = Any


class Revision:
    def __init__(self, revision: str) -> None:
        document = json.loads((SPEC / revision / "schema.json").read_text(encoding="utf-8"))
        self.key = "$defs" if "$defs" in document else "definitions"
        self.defs: dict[str, Any] = document[self.key]
        for name, (extension, source) in EXTENSION_FIELDS.get(revision, {}).items():
            ext = json.loads((SPEC / extension / "schema.json").read_text(encoding="utf-8"))
            target = dict(self.defs[name])
            target["properties"] = {
                **target.get("properties", {}),
                **ext["$defs"][source]["properties"],
            }
            self.defs[name] = target
        self.used: set[str] = set()
        self.built: dict[str, Node] = {}

    def ref_name(self, ref: str) -> str:
        prefix = f"#/{self.key}/"
        assert ref.startswith(prefix), ref
        return ref[len(prefix) :]

    def resolve(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self.defs[self.ref_name(schema["$ref"])]
        return schema

    def definition(self, name: str) -> Node:
        """A reference to definition ``name`` (built once; ``None`` if it needs no shaping)."""
        if name not in self.built:
            self.built[name] = None  # recursion guard: a cycle shapes as "keep"
            self.built[name] = self.node(self.defs[name])
        return name if self.built[name] is not None else None

    def node(self, schema: Any) -> Node:
        if not isinstance(schema, dict):
            return None
        if "$ref" in schema and len(schema.keys() - {"description"}) == 1:
            return self.definition(self.ref_name(schema["$ref"]))
        if "allOf" in schema:
            return self.merged([self.resolve(arm) for arm in schema["allOf"]])
        if "anyOf" in schema or "oneOf" in schema:
            return self.union(schema.get("anyOf") or schema["oneOf"])
        kind = schema.get("type")
        if kind == "array" or (kind is None and "items" in schema):
            item = self.node(schema.get("items"))
            return None if item is None else ("a", item)
        if kind == "object" or "properties" in schema or "additionalProperties" in schema:
            return self.object(schema)
        return None

    def object(self, schema: dict[str, Any]) -> Node:
        properties: dict[str, Any] = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        if not properties:
            if isinstance(extra, dict) and extra:
                value = self.node(extra)
                return None if value is None else ("m", value)
            return None  # an open map: anything goes
        children = {
            key: child
            for key, sub in sorted(properties.items())
            if key not in OPAQUE_PROPERTIES and (child := self.node(sub)) is not None
        }
        open_ = extra is not None and extra is not False
        keys = None if open_ else tuple(sorted(properties))
        if keys is None and not children:
            return None
        return ("o", keys, children)

    def merged(self, arms: list[Any]) -> Node:
        """``allOf`` of objects: one object with every arm's properties."""
        properties: dict[str, Any] = {}
        open_ = False
        for arm in arms:
            if "allOf" in arm:
                inner = self.merged([self.resolve(a) for a in arm["allOf"]])
                if inner is None:
                    return None
                open_ = open_ or inner[1] is None
                for key in inner[1] or ():
                    properties.setdefault(key, {})
                continue
            properties.update(arm.get("properties") or {})
            extra = arm.get("additionalProperties")
            open_ = open_ or (extra is not None and extra is not False)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if open_:
            schema["additionalProperties"] = {}
        return self.object(schema)

    def union(self, arms: list[Any]) -> Node:
        """Split by JSON type: objects (discriminated by a ``type`` const when every object arm
        has one, merged otherwise), arrays; primitives need no shaping."""
        objects: list[tuple[Any, Any]] = []
        arrays: list[Any] = []
        for arm in arms:
            resolved = self.resolve(arm)
            if not isinstance(resolved, dict):
                continue
            if "anyOf" in resolved:
                for inner in resolved["anyOf"]:
                    target = self.resolve(inner)
                    (arrays if target.get("type") == "array" else objects).append((inner, target))
            elif resolved.get("type") == "array":
                arrays.append(resolved)
            elif resolved.get("type") == "object" or "properties" in resolved:
                objects.append((arm, resolved))
        object_node: Node = None
        if objects:
            tags = [
                ((target.get("properties") or {}).get("type") or {}).get("const")
                for _, target in objects
            ]
            if all(isinstance(tag, str) for tag in tags):
                pairs = zip(tags, objects, strict=True)
                branches = {tag: self.node(arm) for tag, (arm, _) in pairs}
                object_node = ("t", dict(sorted(branches.items())))
            else:
                object_node = self.merged([target for _, target in objects])
                if object_node is not None and object_node[1] is not None:
                    # several shapes share one table: each child node must fit them all
                    object_node = ("o", object_node[1], {})
        array_node: Node = None
        for array in arrays:
            array_node = self.node(array) or array_node
        if object_node is None and array_node is None:
            return None
        if array_node is None:
            return object_node
        return ("u", object_node, array_node)


def _method_tables(rev: Revision) -> tuple[dict[str, Node], dict[str, Node]]:
    """Method → node of its params; method → node of its result."""
    params: dict[str, Node] = {}
    results: dict[str, Node] = {}
    for name, schema in sorted(rev.defs.items()):
        method = ((schema.get("properties") or {}).get("method") or {}).get("const")
        if not isinstance(method, str) or not (name.endswith(("Request", "Notification"))):
            continue
        params_schema = rev.resolve((schema.get("properties") or {}).get("params"))
        node = rev.node(params_schema) if params_schema else None
        if isinstance(node, tuple) and node[0] == "o" and node[1] is not None:
            # every revision's base Request/Notification params carry ``_meta`` (the progress
            # token lives there), even where a method's own definition does not repeat it
            node = ("o", tuple(sorted({*node[1], "_meta"})), node[2])
        params[method] = node
        if name.endswith("Request"):
            result = name[: -len("Request")] + "Result"
            if name in EMPTY_RESULT_REQUESTS or result not in rev.defs:
                result = "Result"
            results[method] = rev.definition(result)
    return params, results


def build() -> str:
    tables: dict[str, dict[str, Any]] = {}
    for revision in REVISIONS:
        rev = Revision(revision)
        params, results = _method_tables(rev)
        extra = {
            name: rev.definition(name)
            for name in ("CreateTaskResult", "InputRequiredResult")
            if name in rev.defs
        }
        tables[revision] = {
            "params": params,
            "results": results,
            "special": extra,
            "defs": {name: node for name, node in sorted(rev.built.items()) if node is not None},
        }
    body = pprint.pformat(tables, width=99, sort_dicts=True)
    return (
        '"""Per-revision field tables for :mod:`mcpkit.protocol._shape`.\n\n'
        "GENERATED by scripts/gen_shape_tables.py from tests/data/spec/<revision>/schema.json;\n"
        'do not edit (tests/protocol/test_shape_tables.py checks it is up to date).\n"""\n\n'
        "# ruff: noqa: E501\n\n"
        "from typing import Any, Final\n\n"
        "__all__: list[str] = []  # private: used through mcpkit.protocol._shape\n\n"
        f"TABLES: Final[dict[str, dict[str, Any]]] = {body}\n"
    )


def main() -> int:
    text = build()
    if "--check" in sys.argv[1:]:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run scripts/gen_shape_tables.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

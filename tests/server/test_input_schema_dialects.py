"""A hand-written ``input_schema=`` is validated by its own ``$schema`` dialect (issue #11).

Each case uses a keyword whose meaning differs by dialect, so the test fails if the server
validated everything as 2020-12 (what it did before). Calls go through a real in-memory session
(schema-checked messages); the unknown dialect and a remote ``$ref`` are refused at
registration, and no socket is ever opened while validating.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from _server_harness import connect

from mcpkit.protocol._errors import UsageError
from mcpkit.protocol._schema_dialects import compile_schema, external_refs
from mcpkit.server import Server

DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT201909 = "https://json-schema.org/draft/2019-09/schema"
DRAFT202012 = "https://json-schema.org/draft/2020-12/schema"


def pair_schema(dialect: str | None) -> dict[str, Any]:
    """A [string, integer] tuple: ``items`` array form (draft-07) or ``prefixItems`` (2020-12)."""
    pair: dict[str, Any] = (
        {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
        if dialect == DRAFT7
        else {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
    )
    schema: dict[str, Any] = {"type": "object", "properties": {"pair": pair}}
    if dialect is not None:
        schema["$schema"] = dialect
    return schema


def depends_schema(dialect: str, keyword: str) -> dict[str, Any]:
    """``a`` needs ``b``: ``dependencies`` (draft-07) or ``dependentRequired`` (2019-09 on)."""
    return {
        "$schema": dialect,
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        keyword: {"a": ["b"]},
    }


def build(schemas: dict[str, dict[str, Any]]) -> Server:
    server = Server("dialects")
    for name, schema in schemas.items():

        def echo(**arguments: Any) -> str:
            return "ok"

        server.tool(name=name, input_schema=schema)(echo)
    return server


async def call(peer: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await peer.legacy("tools/call", {"name": name, "arguments": arguments})
    return result


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Any attempt to open a connection is recorded and refused."""
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: refuse(None, a))  # type: ignore[arg-type]
    return attempts


async def test_each_dialect_gives_its_keywords_their_own_meaning(no_network: list[Any]) -> None:
    server = build(
        {
            "draft7_items": pair_schema(DRAFT7),
            "default_prefix": pair_schema(None),
            "d2020_prefix": pair_schema(DRAFT202012),
            "draft7_dependencies": depends_schema(DRAFT7, "dependencies"),
            "d2019_dependent": depends_schema(DRAFT201909, "dependentRequired"),
            "d2020_dependent": depends_schema(DRAFT202012, "dependentRequired"),
            # the same keyword in a dialect that does not have it means nothing
            "d2020_dependencies": depends_schema(DRAFT202012, "dependencies"),
        }
    )
    async with connect(server) as peer:
        await peer.initialize()
        for name in ("draft7_items", "default_prefix", "d2020_prefix"):
            good = await call(peer, name, {"pair": ["a", 1]})
            assert good.get("isError") is not True, (name, good)
            bad = await call(peer, name, {"pair": ["a", "b"]})
            assert bad["isError"] is True, name
            assert "'b' is not of type 'integer'" in bad["content"][0]["text"], name
        for name in ("draft7_dependencies", "d2019_dependent", "d2020_dependent"):
            bad = await call(peer, name, {"a": 1})
            assert (
                bad["isError"] is True
                and "'b' is a dependency of 'a'" in (bad["content"][0]["text"])
            ), (name, bad)
            good = await call(peer, name, {"a": 1, "b": 2})
            assert good.get("isError") is not True, name
        ignored = await call(peer, "d2020_dependencies", {"a": 1})
        assert ignored.get("isError") is not True  # 2020-12 has no "dependencies" keyword
    assert no_network == []


def test_draft7_items_array_is_not_a_2020_12_schema() -> None:
    """Read as 2020-12 (the default), the draft-07 tuple form is an invalid schema."""
    schema = pair_schema(DRAFT7)
    del schema["$schema"]
    with pytest.raises(UsageError, match="input_schema is not usable"):
        build({"t": schema})


def test_an_unknown_dialect_is_refused_at_registration() -> None:
    schema = {"$schema": "https://example.com/my-dialect", "type": "object"}
    with pytest.raises(UsageError, match="unsupported JSON Schema dialect"):
        build({"t": schema})


def test_a_remote_ref_is_refused_at_registration_without_network(no_network: list[Any]) -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "https://example.com/schemas/x.json"}},
    }
    with pytest.raises(UsageError, match="never fetched"):
        build({"t": schema})
    assert no_network == []


async def test_local_refs_resolve(no_network: list[Any]) -> None:
    schema = {
        "$schema": DRAFT7,
        "type": "object",
        "definitions": {"n": {"type": "integer"}},
        "properties": {"n": {"$ref": "#/definitions/n"}},
    }
    server = build({"t": schema})
    async with connect(server) as peer:
        await peer.initialize()
        bad = await call(peer, "t", {"n": "x"})
        assert bad["isError"] is True
        assert "'x' is not of type 'integer'" in bad["content"][0]["text"]
        assert (await call(peer, "t", {"n": 3})).get("isError") is not True
    assert no_network == []


def test_external_refs_finds_only_what_points_outside() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "properties": {
            "local": {"$ref": "#/$defs/a"},
            "self": {"$ref": "https://example.com/root.json#/$defs/a"},
            "remote": {"$ref": "https://other.example/b.json"},
            "literal": {"const": {"$ref": "https://not.a.ref/"}},
        },
        "$defs": {"a": {"type": "string"}},
    }
    assert external_refs(schema) == ["https://other.example/b.json"]


def test_the_client_and_the_server_share_one_implementation() -> None:
    from mcpkit.client import _schemas as schemas

    assert schemas.compile_schema is compile_schema

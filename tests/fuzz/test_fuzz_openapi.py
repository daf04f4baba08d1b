"""Property-based fuzzing of the OpenAPI converter (issue 28): random documents — well-formed
operations with random parameters, schemas and references, and random junk in every place.

Contract: ``from_openapi`` either raises ``OpenAPIError`` (a ``UsageError`` naming the place) or
returns a server whose ``tools/list`` answers with tools whose input schemas are objects; it
never raises anything else. Documents come in as dicts (no network).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from _fuzz_settings import FUZZ
from hypothesis import given
from hypothesis import strategies as st

from mcpkit.contrib.openapi import OpenAPIError, from_openapi
from mcpkit.testing import connect

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-{}./~%0123", min_size=1, max_size=8)
junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(names, children, max_size=3),
    max_leaves=8,
)
schemas = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(
                ["string", "integer", "number", "boolean", "array", "object", "null", "nope"]
            )
            | st.lists(st.sampled_from(["string", "null"]), max_size=2),
            "format": st.sampled_from(["date-time", "binary", "uuid", "x"]),
            "enum": st.lists(junk, max_size=3),
            "nullable": st.booleans(),
            "$ref": st.sampled_from(
                ["#/components/schemas/A", "#/components/schemas/B", "#/nope", "other.yaml#/x", "#"]
            )
            | st.text(max_size=6),
            "default": junk,
        },
    ),
    lambda children: st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(names, children, max_size=3),
            "items": children,
            "allOf": st.lists(children, max_size=2),
            "oneOf": st.lists(children, max_size=2),
            "anyOf": st.lists(children, max_size=2),
            "additionalProperties": st.booleans() | children,
            "required": st.lists(names, max_size=2),
        },
    ),
    max_leaves=6,
)
parameters = st.fixed_dictionaries(
    {"name": names | junk, "in": st.sampled_from(["path", "query", "header", "cookie", "body"])},
    optional={
        "required": st.booleans() | junk,
        "schema": schemas | junk,
        "style": st.sampled_from(["form", "simple", "label", "matrix", "deepObject", "x"]),
        "explode": st.booleans(),
        "content": st.dictionaries(st.sampled_from(["application/json", "text/plain"]),
                                   st.fixed_dictionaries({}, optional={"schema": schemas})),
    },
)  # fmt: skip
operations = st.fixed_dictionaries(
    {},
    optional={
        "operationId": names | junk,
        "summary": st.text(max_size=10) | junk,
        "parameters": st.lists(parameters | junk, max_size=3) | junk,
        "requestBody": st.fixed_dictionaries(
            {},
            optional={
                "content": st.dictionaries(
                    st.sampled_from(["application/json", "application/x-www-form-urlencoded",
                                     "multipart/form-data", "text/plain", "*/*"]),
                    st.fixed_dictionaries({}, optional={"schema": schemas | junk}),
                    max_size=2,
                ) | junk,
                "required": st.booleans(),
                "$ref": st.sampled_from(["#/components/requestBodies/R", "#/x"]),
            },
        ) | junk,
        "responses": st.dictionaries(
            st.sampled_from(["200", "201", "204", "default", "4XX", "x"]),
            st.fixed_dictionaries({"description": st.just("d")}, optional={
                "content": st.dictionaries(st.sampled_from(["application/json", "text/plain"]),
                                           st.fixed_dictionaries({}, optional={"schema": schemas}),
                                           max_size=2)}) | junk,
            max_size=2,
        ) | junk,
    },
)  # fmt: skip
documents = st.fixed_dictionaries(
    {
        "openapi": st.sampled_from(["3.0.3", "3.1.0", "3.1.1"]) | junk,
        "info": st.fixed_dictionaries({"title": st.text(max_size=6), "version": st.just("1")})
        | junk,
        "paths": st.dictionaries(
            st.sampled_from(["/a", "/a/{id}", "/{x}/{y}", "/b/{id}.json"]) | names,
            st.dictionaries(
                st.sampled_from(["get", "post", "put", "delete", "patch", "parameters", "x"]),
                operations | junk,
                max_size=3,
            )
            | junk,
            max_size=3,
        )
        | junk,
    },
    optional={
        "components": st.fixed_dictionaries(
            {},
            optional={
                "schemas": st.dictionaries(st.sampled_from(["A", "B", "C"]), schemas | junk),
                "requestBodies": st.dictionaries(st.just("R"), junk),
            },
        )
        | junk,
        "servers": st.lists(st.fixed_dictionaries({"url": st.text(max_size=12) | junk})) | junk,
    },
)


@pytest.fixture
def runner() -> Any:
    with asyncio.Runner() as run:
        yield run


@pytest.mark.timeout(300)
@pytest.mark.no_schema_check  # the tools' schemas are the document's, whatever they say
def test_openapi_converter_random_documents(runner: asyncio.Runner) -> None:
    outcomes = {"converted": 0, "refused": 0}

    @FUZZ
    @given(documents)
    def one(document: dict[str, Any]) -> None:
        async def go() -> None:
            async with httpx.AsyncClient(base_url="http://127.0.0.1:9") as http:
                try:
                    server = from_openapi(document, http)
                except OpenAPIError:
                    outcomes["refused"] += 1
                    return
                async with connect(server) as client:
                    for tool in await client.list_tools():
                        assert tool.input_schema.get("type") == "object", tool
                outcomes["converted"] += 1

        runner.run(go())

    one()
    print(f"\nOpenAPI converter: {outcomes}")
    assert outcomes["converted"] + outcomes["refused"] > 0

"""OpenAPI 3.0 habits inside 3.1 documents (boolean ``exclusiveMinimum``/``exclusiveMaximum``,
``nullable``) are translated, so every produced schema passes the 2020-12 meta-schema; and a
schema carries only the ``$defs`` it references. Checked on what a real client lists over
Streamable HTTP, and by calling through to a real API on uvicorn."""

from __future__ import annotations

import json
from typing import Any

import httpx
from jsonschema import Draft202012Validator

from _loopback import serving
from mcpkit.client import Client
from mcpkit.contrib.openapi import from_openapi

from ._echo import EchoApp
from .conftest import serve

PRICE: dict[str, Any] = {
    "type": "number",
    "minimum": 0,
    "exclusiveMinimum": True,
    "maximum": 100,
    "exclusiveMaximum": False,
}


def document() -> dict[str, Any]:
    item = {"$ref": "#/components/schemas/Item"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "habits", "version": "1"},
        "paths": {
            "/echo/items": {
                "post": {
                    "operationId": "add_item",
                    "requestBody": {"content": {"application/json": {"schema": item}}},
                    "responses": {
                        "200": {
                            "description": "echo",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                }
            }
        },
        "components": {
            "schemas": {
                "Item": {
                    "type": "object",
                    "required": ["price"],
                    "properties": {
                        "price": PRICE,
                        "note": {"type": "string", "nullable": True},
                        "tag": {"$ref": "#/components/schemas/Tag", "nullable": True},
                    },
                },
                "Tag": {"type": "string", "enum": ["new", "old"]},
                "Unused": {"type": "object"},
            }
        },
    }


async def test_3_0_habits_in_a_3_1_document_become_valid_2020_12() -> None:
    async with serve(EchoApp()) as api, httpx.AsyncClient(base_url=api) as http:
        server = from_openapi(document(), http)
        async with serving(server.http_app()) as base, Client(f"{base}/mcp") as client:
            [tool] = await client.list_tools()
            schema = tool.input_schema
            Draft202012Validator.check_schema(schema)  # the meta-schema accepts it
            assert schema["properties"]["price"] == {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 100,
            }
            # Item itself was flattened into the arguments: only Tag is still referenced
            assert list(schema["$defs"]) == ["Tag"]
            ok = await client.call_tool("add_item", {"price": 5, "note": None, "tag": None})
            zero = await client.call_tool("add_item", {"price": 0})
    assert not ok.is_error
    assert json.loads(ok.structured_content["body"]) == {"price": 5, "note": None, "tag": None}  # type: ignore[index]
    assert zero.is_error and "price" in zero.content[0].text  # type: ignore[union-attr]

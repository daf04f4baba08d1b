"""A contract's REST side answers in the contract's own terms (uvicorn on loopback):

* errors in the error shape the contract documents (its 400 requires ``code``: it gets one);
* unknown body fields refused where the body says ``additionalProperties: false``, as the MCP
  side refuses unknown arguments;
* ``format`` (date, date-time) checked in the implementation's answers;
* every violation reported, not the first.
"""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import pytest

from mcpkit.contrib.openapi import Contract
from mcpkit.testing import connect

from .conftest import serve

ERROR: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "string"}},
    },
}
ORDER: dict[str, Any] = {
    "type": "object",
    "required": ["id", "item", "created", "due"],
    "properties": {
        "id": {"type": "integer"},
        "item": {"type": "string"},
        "created": {"type": "string", "format": "date-time"},
        "due": {"type": "string", "format": "date"},
    },
}


def document() -> dict[str, Any]:
    def answer(schema: str) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{schema}"}
        return {"description": schema, "content": {"application/json": {"schema": ref}}}

    return {
        "openapi": "3.1.0",
        "info": {"title": "orders", "version": "1"},
        "paths": {
            "/orders": {
                "post": {
                    "operationId": "orders.create",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "required": ["item", "qty"],
                                    "properties": {
                                        "item": {"type": "string"},
                                        "qty": {"type": "integer", "minimum": 1},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": answer("Order"),
                        "400": answer("Error"),
                        "500": answer("Error"),
                    },
                }
            }
        },
        "components": {"schemas": {"Order": ORDER, "Error": ERROR}},
    }


def build(created: str = "2026-12-06T10:00:00Z", due: str = "2026-12-24") -> Contract:
    contract = Contract(document())

    @contract.implement("orders.create")
    def create(item: str, qty: int) -> dict[str, Any]:
        return {"id": 1, "item": item, "created": created, "due": due}

    return contract


async def test_invalid_requests_get_every_violation_in_the_documented_error_shape() -> None:
    async with serve(build().rest_app()) as url, httpx.AsyncClient(base_url=url) as http:
        bad = await http.post("/orders", json={"item": "kite", "qty": 0, "colour": "red"})
        good = await http.post("/orders", json={"item": "kite", "qty": 2})
    assert bad.status_code == 400
    body = bad.json()
    jsonschema.validate(body, ERROR)  # code and message, nothing the schema closes off
    assert body["code"] == "bad_request"
    assert "qty" in body["message"] and "colour" in body["message"]  # both, not the first
    assert len(body["errors"]) == 2
    assert good.status_code == 201 and good.json()["item"] == "kite"


async def test_unknown_body_fields_are_refused_on_both_sides() -> None:
    contract = build()
    async with connect(contract.server()) as client:
        mcp = await client.call_tool("orders_create", {"item": "kite", "qty": 1, "colour": "red"})
    assert mcp.is_error and "colour" in mcp.content[0].text  # type: ignore[union-attr]
    async with serve(contract.rest_app()) as url, httpx.AsyncClient(base_url=url) as http:
        rest = await http.post("/orders", json={"item": "kite", "qty": 1, "colour": "red"})
    assert rest.status_code == 400 and "colour" in rest.json()["message"]


@pytest.mark.parametrize(
    ("created", "due", "expected"),
    [
        ("yesterday", "2026-12-24", ["$.created"]),
        ("2026-12-06T10:00:00Z", "2026-13-01", ["$.due"]),
        ("12/06/2026", "24.12.2026", ["$.created", "$.due"]),
    ],
)
async def test_answers_are_checked_for_format_and_every_violation_named(
    created: str, due: str, expected: list[str]
) -> None:
    async with (
        serve(build(created, due).rest_app()) as url,
        httpx.AsyncClient(base_url=url) as http,
    ):
        answer = await http.post("/orders", json={"item": "kite", "qty": 1})
    assert answer.status_code == 500
    body = answer.json()
    jsonschema.validate(body, ERROR)
    assert body["code"] == "contract_violation"
    for where in expected:
        assert f"at {where}:" in body["message"]
    assert body["message"].count(" at $.") == len(expected)

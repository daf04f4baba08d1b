"""A resource template's URI values are typed and checked by their parameters' schemas: an
ill-typed value is invalid params, refused before any request reaches the API (a real API on
uvicorn, the MCP server over Streamable HTTP on loopback)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from _loopback import serving
from mcpkit.client import Client
from mcpkit.contrib.openapi import RouteMap, from_openapi
from mcpkit.protocol._errors import InvalidParams

from .conftest import serve

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "items", "version": "1"},
    "paths": {
        "/items/{id}": {
            "get": {
                "operationId": "get_item",
                "parameters": [
                    {
                        "name": "id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 1},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "the item",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    },
}


class Items:
    """Answers ``{"path": ...}`` and records every request's path."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.seen.append(scope["path"])
        body = json.dumps({"path": scope["path"]}).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_ill_typed_template_values_are_refused_before_any_request(mode: str) -> None:
    api = Items()
    maps = [RouteMap(kind="resource_template", methods=["GET"])]
    async with serve(api) as url, httpx.AsyncClient(base_url=url) as http:
        server = from_openapi(DOCUMENT, http, route_maps=maps)
        async with serving(server.http_app()) as base, Client(f"{base}/mcp", mode=mode) as client:
            [template] = await client.list_resource_templates()
            assert template.uri_template == "openapi://items/{id}"
            for bad in ("abc", "0", "1.5"):
                with pytest.raises(InvalidParams) as caught:
                    await client.read_resource(f"openapi://items/{bad}")
                assert "id:" in caught.value.message
            assert api.seen == []  # nothing reached the API
            read = await client.read_resource("openapi://items/7")
    assert json.loads(read.contents[0].text) == {"path": "/items/7"}  # type: ignore[union-attr]
    assert api.seen == ["/items/7"]

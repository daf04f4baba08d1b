"""What a tool's caller (a model) can put in an OpenAPI request stays an argument (issue 28): a
path parameter cannot climb the path with ``..``, and a document cannot hand the caller the
``Host`` or framing headers. A real uvicorn on loopback records what arrives."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mcpkit.contrib.openapi import OpenAPIError, from_openapi
from mcpkit.testing import connect

from .conftest import serve


class _Recorder:
    def __init__(self) -> None:
        self.raw_paths: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.raw_paths.append(scope["raw_path"])
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"ok": true}'})


def _document(parameters: list[dict[str, Any]], path: str = "/files/{name}") -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "files", "version": "1"},
        "paths": {
            path: {
                "get": {
                    "operationId": "get_file",
                    "parameters": parameters,
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }


async def test_path_parameters_cannot_climb_the_path() -> None:
    recorder = _Recorder()
    document = _document([{"name": "name", "in": "path", "required": True,
                           "schema": {"type": "string"}}])  # fmt: skip
    async with (
        serve(recorder) as url,
        httpx.AsyncClient(base_url=f"{url}/api/v1") as http,
        connect(from_openapi(document, http)) as client,
    ):
        for value in ("..", ".", "../admin", "a/../../b", "%2e%2e"):
            result = await client.call_tool("get_file", {"name": value})
            assert not result.is_error, result
    assert recorder.raw_paths == [
        b"/api/v1/files/%2E%2E",
        b"/api/v1/files/%2E",
        b"/api/v1/files/..%2Fadmin",
        b"/api/v1/files/a%2F..%2F..%2Fb",
        b"/api/v1/files/%252e%252e",
    ]


@pytest.mark.parametrize("name", ["Host", "transfer-encoding", "Content-Length", "Connection"])
def test_routing_and_framing_headers_are_refused_at_conversion(name: str) -> None:
    document = _document(
        [{"name": name, "in": "header", "schema": {"type": "string"}}], path="/files"
    )
    with pytest.raises(OpenAPIError, match="refused"):
        from_openapi(document, httpx.AsyncClient(base_url="http://127.0.0.1:9"))


async def test_a_server_url_built_from_variables_passes_the_address_policy() -> None:
    """Issue 28: ``servers[0]`` with a variable whose default names an internal address sent the
    requests there. Such a URL now passes the address policy first (no base_url given)."""
    document = _document([], path="/latest/meta-data")
    document["paths"]["/latest/meta-data"]["get"]["operationId"] = "metadata"
    document["servers"] = [
        {"url": "http://{host}", "variables": {"host": {"default": "169.254.169.254"}}}
    ]
    async with (
        httpx.AsyncClient() as http,  # no base_url: the document's server would be used
        connect(from_openapi(document, http)) as client,
    ):
        result = await client.call_tool("metadata", {})
        assert result.is_error
        assert "refused by the address policy" in result.content[0].text  # type: ignore[union-attr]

"""How arguments travel (path, query styles, header, cookie, JSON/form bodies, name clashes),
how answers come back (validation modes, text), and what failures look like (timeouts,
connection errors) — against real ASGI apps, in process and over uvicorn."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import httpx
import pytest

from mcpkit.contrib.openapi import from_openapi
from mcpkit.testing import connect

from ._echo import EchoApp, echo_document
from .conftest import serve


def _client(app: Any, **options: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://api", **options
    )


async def test_every_parameter_location_and_name_clashes() -> None:
    async with _client(EchoApp()) as http, connect(from_openapi(echo_document(), http)) as client:
        tools = {t.name: t for t in await client.list_tools()}
        schema = tools["echo_post"].input_schema
        assert list(schema["properties"]) == [
            "id", "id__query", "tags", "filter", "X-Trace", "session", "name", "id__body",
        ]  # fmt: skip
        assert "Accept" not in schema["properties"]  # OpenAPI ignores Accept header parameters
        assert schema["required"] == ["id", "name"]
        assert tools["echo_post"].annotations.destructive_hint is False
        assert tools["echo_put"].annotations.idempotent_hint is True
        result = await client.call_tool(
            "echo_post",
            {
                "id": 7, "id__query": "q", "tags": ["a", "b"], "filter": {"color": "red"},
                "X-Trace": "t-1", "session": "s 1", "name": "widget", "id__body": 3,
            },
        )  # fmt: skip
        echoed = result.structured_content
        assert echoed["path"] == "/echo/7"
        assert echoed["query"] == [["id", "q"], ["tags", "a,b"], ["filter[color]", "red"]]
        assert echoed["headers"]["x-trace"] == "t-1"
        assert echoed["headers"]["cookie"] == "session=s%201"
        assert json.loads(echoed["body"]) == {"name": "widget", "id": 3}


async def test_non_object_and_form_bodies() -> None:
    async with _client(EchoApp()) as http, connect(from_openapi(echo_document(), http)) as client:
        put = await client.call_tool("echo_put", {"id": 1, "body": [1, 2]})
        assert json.loads(put.structured_content["body"]) == [1, 2]
        form = await client.call_tool("echo_form", {"id": 1, "a": "x y", "n": 2})
        assert form.structured_content["body"] == "a=x+y&n=2"
        assert form.structured_content["headers"]["content-type"].startswith(
            "application/x-www-form-urlencoded"
        )
        multipart = await client.call_tool("echo_multipart", {"id": 1, "title": "t", "n": 5})
        sent = multipart.structured_content
        assert sent["headers"]["content-type"].startswith("multipart/form-data; boundary=")
        assert 'name="title"\r\n\r\nt\r\n' in sent["body"]
        assert 'name="n"\r\n\r\n5\r\n' in sent["body"]
        text = await client.call_tool("text", {})
        assert text.content[0].text == "plain words" and not text.is_error


@pytest.mark.parametrize("mode", ["strict", "warn", "off"])
async def test_response_validation_modes(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    async with _client(EchoApp()) as http:
        server = from_openapi(echo_document(), http, validate_responses=mode)  # type: ignore[arg-type]
        async with connect(server, output_validation="off") as client:
            with caplog.at_level(logging.WARNING, logger="mcpkit.contrib.openapi"):
                result = await client.call_tool("lie", {})
    if mode == "strict":
        assert result.is_error
        assert "does not match the document at $.count" in result.content[0].text
    else:
        assert not result.is_error and result.structured_content == {"count": "not a number"}
    warned = any("does not match the document" in r.message for r in caplog.records)
    assert warned is (mode == "warn")


async def test_timeout_is_a_clear_error() -> None:
    app = EchoApp()
    async with (
        serve(app) as url,
        httpx.AsyncClient(base_url=url, timeout=0.3) as http,
        connect(from_openapi(echo_document(), http)) as client,
    ):
        result = await client.call_tool("slow", {})
        app.release.set()
    assert result.is_error
    assert "GET /slow timed out (ReadTimeout)" in result.content[0].text


async def test_connection_refused_is_a_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed when the block ends: nothing listens there
    async with (
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
        connect(from_openapi(echo_document(), http)) as client,
    ):
        result = await client.call_tool("lie", {})
    assert result.is_error
    assert f"could not connect to the API at http://127.0.0.1:{port}" in result.content[0].text


async def test_document_servers_used_when_client_has_no_base_url() -> None:
    document = {
        **echo_document(),
        "servers": [{"url": "http://{host}/v1", "variables": {"host": {"default": "api"}}}],
    }
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=EchoApp())) as http,
        connect(from_openapi(document, http)) as client,
    ):
        result = await client.call_tool("echo_put", {"id": 5, "body": []})
    assert result.structured_content["path"] == "/v1/echo/5"

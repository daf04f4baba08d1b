"""Rules of issue #11 over real Streamable HTTP (uvicorn on loopback), where the other tests of
the rule run over memory or stdio only: no request but ping before ``notifications/initialized``
in a legacy session, ``"id": null`` on an error whose request id cannot be read, and no -32002
in a 2026-07-28 answer whatever a tool raises."""

from __future__ import annotations

from typing import Any

import httpx
from _asgi_harness import (
    ACCEPT_BOTH,
    LEGACY_VERSION,
    bound,
    collect_sse,
    initialize_body,
    modern_body,
    modern_headers,
    running,
    sse_messages,
)
from _asgi_servers import build_server

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.server import Server


async def test_a_tool_cannot_ask_the_client_before_notifications_initialized() -> None:
    """The client initialized but has not sent ``notifications/initialized`` yet: a tool that
    asks (elicitation) gets the reason as its error, and nothing is sent on the stream."""
    app = build_server().http_app()
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        hello = initialize_body(capabilities={"elicitation": {"form": {}}})
        started = await http.post("/mcp", json=hello, headers=ACCEPT_BOTH)
        assert started.status_code == 200, started.text
        headers = {
            **ACCEPT_BOTH,
            "mcp-protocol-version": LEGACY_VERSION,
            "mcp-session-id": started.headers["mcp-session-id"],
        }
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}
        async with http.stream("POST", "/mcp", json=call, headers=headers) as response:
            assert response.status_code == 200
            if response.headers["content-type"].startswith("application/json"):
                messages = [decode_json(await response.aread())]
            else:  # a request sent before the answer would show up here first
                messages = sse_messages(await bound(collect_sse(response, until_id=2)))
    assert [m.get("method") for m in messages] == [None], messages  # no request, one answer
    result = messages[-1]["result"]
    assert result["isError"] is True
    assert "before the client sent notifications/initialized" in result["content"][0]["text"]


async def test_an_unreadable_request_id_is_answered_with_id_null() -> None:
    headers = {**ACCEPT_BOTH, "mcp-protocol-version": LEGACY_VERSION}
    cases: list[tuple[bytes, Any]] = [
        (b"{not json", None),
        (b"\xff\xfe\x00garbage", None),
        (b"42", None),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"initialize","params":{}}', None),
        (b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', None),
        (b'{"jsonrpc":"1.0","id":7,"method":"tools/list"}', 7),  # readable: echoed
    ]
    async with running(build_server().http_app()) as url, httpx.AsyncClient(base_url=url) as http:
        for body, expected in cases:
            response = await http.post("/mcp", content=body, headers=headers)
            assert response.status_code == 400, (body, response.text)
            answer = response.json()
            assert "id" in answer and answer["id"] == expected, (body, answer)
            assert "error" in answer, answer


def _raising_server() -> Server:
    server = Server("raises")

    @server.tool
    def lookup(uri: str) -> str:
        raise ResourceNotFound(f"no such thing: {uri}", {"uri": uri})

    return server


async def test_a_2026_answer_never_carries_32002_over_http() -> None:
    body = modern_body(4, "tools/call", {"name": "lookup", "arguments": {"uri": "x://gone"}})
    async with (
        running(_raising_server().http_app()) as url,
        httpx.AsyncClient(base_url=url) as http,
    ):
        response = await http.post("/mcp", json=body, headers=modern_headers(body))
    error = response.json()["error"]
    assert error["code"] == -32602 and error["data"] == {"uri": "x://gone"}, error

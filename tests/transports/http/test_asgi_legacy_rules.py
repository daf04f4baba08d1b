"""Legacy sessions over HTTP: an error answer to a valid request is HTTP 200 whatever its code,
answered at once as JSON or over SSE alike (the body carries the JSON-RPC error); a 2026 body
is never served inside one."""

from __future__ import annotations

from typing import Any

import httpx
from _asgi_harness import LegacyPeer, modern_body, modern_headers, running
from _asgi_servers import build_server

from _schema_check import SchemaCheck
from mcpkit.protocol._errors import InvalidParams
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.server import Server
from mcpkit.transports.http import McpHttpApp
from mcpkit.types._jsonrpc import ErrorResponse


def _app(**options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server().http_app(**options)
    return app


async def test_a_missing_capability_error_is_200_as_json_and_over_sse() -> None:
    for options in ({"json_response": True}, {}):
        async with running(_app(**options)) as url, httpx.AsyncClient(base_url=url) as http:
            peer = LegacyPeer(http)
            await peer.initialize({})  # no elicitation declared
            answer = await peer.call(2, "tools/call", {"name": "ask", "arguments": {}})
            assert answer["error"]["code"] == -32600, (options, answer)
            assert "did not declare" in answer["error"]["message"]


async def test_an_unknown_tool_and_bad_params_are_200_too() -> None:
    async with running(_app(json_response=True)) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        missing = await peer.post(
            {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "x://y"}}
        )
        assert missing.status_code == 200
        assert missing.json()["error"]["code"] == -32002


async def test_a_2026_body_inside_a_legacy_session_is_400_header_mismatch() -> None:
    """The body says 2026-07-28, the header and session say legacy: refused, never served in
    the session (the 400 + -32020 body is what tells a client it met a modern server)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mixed", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta}}
    async with running(_app(json_response=True)) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        mixed = await peer.post(body)
        assert mixed.status_code == 400
        assert mixed.json()["error"]["code"] == -32020
        assert "2025-11-25" in mixed.json()["error"]["message"]
        assert (await peer.call(6, "tools/list"))["result"]["tools"]  # the session still serves


async def test_the_error_for_an_answer_that_cannot_be_encoded_is_observed_too(
    schema_check: SchemaCheck,
) -> None:
    """When an answer cannot be encoded, the -32603 that goes instead leaves through the same
    send point as any answer: the outbound observers see it with the request's revision."""
    server = Server("unencodable", "1.0.0")

    @server.tool
    def broken() -> str:
        error = InvalidParams("the widget is broken")
        error.data = {"widget": object()}  # stopped being JSON after it was built
        raise error

    seen: list[tuple[str, str | None]] = []

    def observer(message: Any, version: str | None, method: str | None) -> None:
        if isinstance(message, ErrorResponse) and message.error.code == -32603:
            seen.append((message.error.message, version))

    app = server.http_app(json_response=True)
    add_outbound_observer(observer)
    try:
        async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
            peer = LegacyPeer(http)
            await peer.initialize()
            legacy = await peer.call(2, "tools/call", {"name": "broken", "arguments": {}})
            body = modern_body(3, "tools/call", {"name": "broken", "arguments": {}})
            modern = (await http.post("/mcp", json=body, headers=modern_headers(body))).json()
    finally:
        remove_outbound_observer(observer)
    for answer in (legacy, modern):
        assert answer["error"]["code"] == -32603
        assert "could not be encoded" in answer["error"]["message"]
    why = "the error of tools/call could not be encoded as JSON"
    assert sorted(seen, key=str) == [(why, "2025-11-25"), (why, "2026-07-28")]
    # the schema check saw the unencodable answers before the transport refused them
    assert all(v.message.startswith("ErrorResponse(") for v in schema_check.violations)
    schema_check.clear()

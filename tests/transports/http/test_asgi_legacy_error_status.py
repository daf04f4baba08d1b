"""In a legacy session, an error answer to a valid request is HTTP 200 whatever its code,
answered at once as JSON or over SSE alike (the body carries the JSON-RPC error)."""

from __future__ import annotations

from typing import Any

import httpx
from _asgi_harness import LegacyPeer, running
from _asgi_servers import build_server

from mcpkit.transports.http import McpHttpApp


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

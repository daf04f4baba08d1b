"""Legacy requests to a stateless app (``stateless=True``: no ``Mcp-Session-Id``) run on the
protocol engine like every other transport's (``transports/http/_server/stateless.py``):
``initialize``
on a connection whose lifecycle negotiates, anything else on the app's
``StatelessServerConnection`` for the request's revision, which admits it and is the send point
of what answers it. What each conversation keeps (its log level) stays with its POST, ids of
different POSTs are unrelated, and what a one-POST conversation cannot use is dropped with 202.
Real uvicorn on loopback; the first test also watches the engine's send point."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from _asgi_harness import (
    ACCEPT_BOTH,
    bound,
    call_body,
    collect_sse,
    initialize_body,
    running,
    sse_messages,
)
from _asgi_servers import Probe, build_server

from mcpkit.protocol._connection import ServerConnection
from mcpkit.protocol._errors import INVALID_PARAMS
from mcpkit.server import Context
from mcpkit.transports.http import McpHttpApp
from mcpkit.types._jsonrpc import ErrorResponse, Message, Response


def _app(probe: Probe | None = None, **options: Any) -> McpHttpApp:
    server = build_server(probe)

    @server.tool
    async def chatty(ctx: Context) -> str:
        """Log at debug and at error."""
        await ctx.debug("quiet")
        await ctx.error("loud")
        return "said"

    app: McpHttpApp = server.http_app(stateless=True, **options)
    return app


def _headers(version: str | None = "2025-11-25") -> dict[str, str]:
    return {**ACCEPT_BOTH, "mcp-protocol-version": version} if version else dict(ACCEPT_BOTH)


async def test_every_answer_leaves_through_an_engine_at_the_conversations_revision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[tuple[str, bool, str | None, Any]] = []
    original = ServerConnection.send

    def spy(
        self: ServerConnection[Any, Any],
        message: Message,
        protocol_version: str | None = None,
        method: str | None = None,
    ) -> Message:
        out = original(self, message, protocol_version, method)
        answered = out.id if isinstance(out, Response | ErrorResponse) else None
        sent.append((type(self).__name__, self.operating, self.protocol_version, answered))
        return out

    monkeypatch.setattr(ServerConnection, "send", spy)
    async with running(_app(json_response=True)) as url, httpx.AsyncClient(base_url=url) as http:
        init = await http.post("/mcp", json=initialize_body(1, "2025-06-18"), headers=ACCEPT_BOTH)
        assert init.json()["result"]["protocolVersion"] == "2025-06-18"
        call = await http.post("/mcp", json=call_body(2, "add", a=1, b=2), headers=_headers())
        assert call.json()["result"]["content"][0]["text"] == "3"
        old = await http.post("/mcp", json=call_body(3, "nope"), headers=_headers(None))
        assert old.status_code == 200 and old.json()["error"]["code"] == INVALID_PARAMS
    assert sent == [
        # the handshake's own engine: negotiated, waiting for notifications/initialized
        ("ServerConnection", False, "2025-06-18", 1),
        # the app's engines per revision: operating at the header's (2025-03-26 without one)
        ("StatelessServerConnection", True, "2025-11-25", 2),
        ("StatelessServerConnection", True, "2025-03-26", 3),
    ]


@pytest.mark.parametrize(("version", "structured"), [(None, False), ("2025-11-25", True)])
async def test_an_answer_is_shaped_for_the_requests_revision(
    version: str | None, structured: bool
) -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        response = await http.post(
            "/mcp", json=call_body(4, "add", a=2, b=2), headers=_headers(version)
        )
        assert response.status_code == 200 and "mcp-session-id" not in response.headers
        result = response.json()["result"]
        assert result["content"][0]["text"] == "4"
        # structuredContent came with 2025-06-18: a 2025-03-26 client never sees it
        assert ("structuredContent" in result) is structured


async def test_progress_streams_increasing_values_before_the_answer() -> None:
    body = call_body(5, "progress", steps=3)
    body["params"]["_meta"] = {"progressToken": "p"}
    async with (
        running(_app()) as url,
        httpx.AsyncClient(base_url=url) as http,
        http.stream("POST", "/mcp", json=body, headers=_headers()) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        messages = sse_messages(await bound(collect_sse(response, until_id=5)))
    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    assert [(p["progressToken"], p["progress"]) for p in progress] == [("p", 1), ("p", 2), ("p", 3)]
    assert messages[-1]["id"] == 5 and messages[-1]["result"]["content"][0]["text"] == "3 steps"


async def test_a_log_level_set_in_one_post_stays_with_it() -> None:
    """Each POST is its own conversation: ``logging/setLevel`` applies to nothing after it
    (in particular not through the engine the app shares among its POSTs)."""
    set_level = {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "logging/setLevel",
        "params": {"level": "error"},
    }
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        answer = await http.post("/mcp", json=set_level, headers=_headers())
        assert answer.json() == {"jsonrpc": "2.0", "id": 6, "result": {}}
        async with http.stream(
            "POST", "/mcp", json=call_body(7, "chatty"), headers=_headers()
        ) as response:
            messages = sse_messages(await bound(collect_sse(response, until_id=7)))
    logged = [m["params"]["data"] for m in messages if m.get("method") == "notifications/message"]
    assert logged == ["quiet", "loud"]  # nothing set for this conversation: everything


async def test_the_same_id_in_concurrent_posts_is_no_duplicate() -> None:
    probe = Probe()
    app = _app(probe, json_response=True)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        held = asyncio.create_task(http.post("/mcp", json=call_body(8, "hold"), headers=_headers()))
        await bound(probe.hold_started.wait())
        other = await http.post("/mcp", json=call_body(8, "add", a=5, b=5), headers=_headers())
        assert other.json()["result"]["content"][0]["text"] == "10"  # served, not -32600
        probe.release.set()
        first = await bound(held)
    assert first.json()["id"] == 8
    assert first.json()["result"]["content"][0]["text"] == "released"


async def test_what_a_one_post_conversation_cannot_use_is_dropped_with_202() -> None:
    drops = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
        {"jsonrpc": "2.0", "id": 9, "result": {}},  # an answer: we asked nothing
    ]
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        for body in drops:
            response = await http.post("/mcp", json=body, headers=_headers())
            assert (response.status_code, response.content) == (202, b""), body
        after = await http.post("/mcp", json=call_body(10, "add", a=1, b=1), headers=_headers())
        assert after.json()["result"]["content"][0]["text"] == "2"


async def test_a_bad_initialize_is_refused_by_its_lifecycle_with_200() -> None:
    body = initialize_body(11)
    del body["params"]["clientInfo"]
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        response = await http.post("/mcp", json=body, headers=ACCEPT_BOTH)
    assert response.status_code == 200 and "mcp-session-id" not in response.headers
    error = response.json()
    assert error["id"] == 11 and error["error"]["code"] == INVALID_PARAMS
    assert "clientInfo" in error["error"]["message"]

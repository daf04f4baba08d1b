"""The 2026-07-28 leg of the HTTP server: stateless POSTs, header validation, status codes,
cancel-on-close, listen streams with keep-alives. Real uvicorn on loopback, wire spoken by hand."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from _asgi_harness import (
    ACCEPT_BOTH,
    MODERN_VERSION,
    bound,
    collect_sse,
    modern_body,
    modern_headers,
    running,
    sse_messages,
)
from _asgi_servers import Probe, build_server

from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http import McpHttpApp
from mcpkit.types._versions import MODERN_VERSIONS


def _app(probe: Probe | None = None, **options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server(probe).http_app(**options)
    return app


REGION_SCHEMA = {
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
}


async def _post(http: httpx.AsyncClient, body: dict[str, Any], **headers: str) -> httpx.Response:
    schema = None
    if body.get("method") == "tools/call" and body["params"].get("name") == "region":
        schema = REGION_SCHEMA
    all_headers = modern_headers(body, schema)
    all_headers.update(headers)
    return await http.post("/mcp", json=body, headers=all_headers)


async def test_tools_call_answers_json_with_result_type() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(1, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
        response = await _post(http, body)
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert "mcp-session-id" not in response.headers
        result = response.json()["result"]
        assert result["resultType"] == "complete"
        assert result["content"][0]["text"] == "5"


async def test_progress_travels_on_the_request_stream_with_proxy_header() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(
            7, "tools/call", {"name": "progress", "arguments": {"steps": 3}}, progressToken="p"
        )
        async with http.stream("POST", "/mcp", json=body, headers=modern_headers(body)) as r:
            assert r.status_code == 200
            assert r.headers["content-type"] == "text/event-stream"
            assert r.headers["x-accel-buffering"] == "no"
            events = await collect_sse(r)
        messages = sse_messages(events)
        assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2, 3]
        assert messages[-1]["id"] == 7 and messages[-1]["result"]["content"][0]["text"] == "3 steps"
        assert all(e.id is None for e in events)  # 2026-07-28 streams are not resumable


async def test_header_validation_rejects_with_400_and_32020() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(3, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        for override in ({"mcp-method": "tools/list"}, {"mcp-name": "other"}):
            response = await _post(http, body, **override)
            assert response.status_code == 400, (override, response.text)
            error = response.json()["error"]
            assert error["code"] == -32020 and response.json()["id"] == 3
        # _meta names an unknown version but the header says 2026-07-28: the disagreement is
        # reported before the version itself
        odd = modern_body(4, "server/discover", version="v999")
        response = await _post(http, odd, **{"mcp-protocol-version": MODERN_VERSION})
        assert response.status_code == 400 and response.json()["error"]["code"] == -32020
        headers = modern_headers(body)
        del headers["mcp-name"]
        response = await http.post("/mcp", json=body, headers=headers)
        assert response.status_code == 400 and response.json()["error"]["code"] == -32020
        assert "Mcp-Name" in response.json()["error"]["message"]


async def test_mcp_param_headers_are_checked_against_the_tool_schema() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(4, "tools/call", {"name": "region", "arguments": {"region": "eu"}})
        assert (await _post(http, body)).json()["result"]["content"][0]["text"] == "eu/1"
        wrong = await _post(http, body, **{"mcp-param-region": "us"})
        assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32020
        headers = modern_headers(body, REGION_SCHEMA)
        del headers["mcp-param-region"]
        missing = await http.post("/mcp", json=body, headers=headers)
        assert missing.status_code == 400 and "Mcp-Param-Region" in missing.text
        encoded = modern_body(5, "tools/call", {"name": "region", "arguments": {"region": " é "}})
        ok = await _post(http, encoded)
        assert ok.status_code == 200, ok.text
        assert ok.json()["result"]["content"][0]["text"] == " é /1"
        bad_b64 = await _post(http, encoded, **{"mcp-param-region": "=?base64?SGVsbG8?="})
        assert bad_b64.status_code == 400 and bad_b64.json()["error"]["code"] == -32020


async def test_status_codes_of_modern_errors() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        unknown = await _post(http, modern_body(1, "nope/never"))
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == -32601
        for legacy_only in ("ping", "logging/setLevel", "resources/subscribe"):
            response = await _post(http, modern_body(2, legacy_only, {"level": "info"}))
            assert response.status_code == 404, legacy_only
            assert response.json()["error"]["code"] == -32601
        init = modern_body(3, "initialize")
        response = await _post(http, init)
        assert response.status_code == 404 and response.json()["error"]["code"] == -32601
        bad = modern_body(4, "server/discover", version="v999")
        response = await _post(http, bad)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == -32022 and error["data"]["requested"] == "v999"
        assert set(MODERN_VERSIONS) <= set(error["data"]["supported"])
        no_meta = {"jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": {}}
        response = await http.post(
            "/mcp",
            json=no_meta,
            headers={
                **ACCEPT_BOTH,
                "mcp-protocol-version": MODERN_VERSION,
                "mcp-method": "server/discover",
            },
        )
        assert response.status_code == 400 and response.json()["error"]["code"] == -32602
        needs_caps = modern_body(6, "tools/call", {"name": "ask", "arguments": {}})
        response = await _post(http, needs_caps)
        assert response.status_code == 400 and response.json()["error"]["code"] == -32021


async def test_notification_is_accepted_with_202() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(0, "notifications/ping-like")
        del body["id"]
        headers = {**ACCEPT_BOTH, "mcp-protocol-version": MODERN_VERSION}
        response = await http.post("/mcp", json=body, headers=headers)
        assert response.status_code == 202 and response.content == b""


async def test_modern_only_server_refuses_get_delete_and_ignores_session_ids() -> None:
    app = build_server(supported_versions=MODERN_VERSIONS).http_app()
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        for method in ("GET", "DELETE"):
            response = await http.request(method, "/mcp", headers={"accept": "text/event-stream"})
            assert response.status_code == 405 and response.headers["allow"] == "POST"
        body = modern_body(1, "server/discover")
        response = await _post(http, body, **{"mcp-session-id": "stale", "last-event-id": "x.1"})
        assert response.status_code == 200 and "mcp-session-id" not in response.headers
        init = await http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}},
            headers=ACCEPT_BOTH,
        )
        assert init.status_code == 400 and init.json()["error"]["code"] == -32022


async def test_closing_the_stream_cancels_the_request() -> None:
    probe = Probe()
    app = _app(probe, sse_after=0.0)  # answer with SSE at once, so the stream is open
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(9, "tools/call", {"name": "hold", "arguments": {}})
        async with http.stream("POST", "/mcp", json=body, headers=modern_headers(body)) as r:
            assert r.headers["content-type"] == "text/event-stream"
            await bound(probe.hold_started.wait())
        # leaving the block closed the connection: that is the cancel signal
        await bound(probe.hold_cancelled.wait())
        await bound(app.wait_idle())
        assert app.task_count == 0


async def test_listen_stream_acknowledges_first_keeps_alive_and_delivers_changes() -> None:
    app = _app(keepalive_interval=0.05)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        listen = modern_body(
            11, "subscriptions/listen", {"notifications": {"toolsListChanged": True}}
        )
        async with http.stream("POST", "/mcp", json=listen, headers=modern_headers(listen)) as r:
            assert r.headers["x-accel-buffering"] == "no"
            decoder = SSEDecoder()
            chunks = r.aiter_raw()
            raw = b""
            seen: list[dict[str, Any]] = []
            changed = False
            async with asyncio.timeout(10):
                async for chunk in chunks:
                    raw += chunk
                    for event in decoder.feed(chunk):
                        seen.append(sse_messages([event])[0])
                    if seen and not changed:
                        change = modern_body(12, "tools/call", {"name": "change", "arguments": {}})
                        assert (await _post(http, change)).status_code == 200
                        changed = True
                    if len(seen) >= 2 and b"\n:" in raw:
                        break
        assert seen[0]["method"] == "notifications/subscriptions/acknowledged"
        assert seen[1]["method"] == "notifications/tools/list_changed"
        for note in seen:
            assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 11
        assert b":\n\n" in raw  # a keep-alive comment arrived while the stream was quiet
        await bound(app.wait_idle())  # closing the listen stream ended its handler


async def test_meta_is_parsed_once_per_request(monkeypatch: Any) -> None:
    # The router validates _meta before anything runs; the server then serves the request with
    # that parse instead of its own (issue #34: no repeated parsing on the 2026 path).
    from mcpkit.protocol import _http_routing
    from mcpkit.protocol._meta import parse_request_meta
    from mcpkit.server import _dispatch

    calls: list[str] = []

    def counted(where: str) -> Any:
        def parse(params: Any) -> Any:
            calls.append(where)
            return parse_request_meta(params)

        return parse

    monkeypatch.setattr(_http_routing, "parse_request_meta", counted("router"))
    monkeypatch.setattr(_dispatch, "parse_request_meta", counted("server"))
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(5, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        response = await _post(http, body)
        assert response.status_code == 200
        assert response.json()["result"]["content"][0]["text"] == "3"
    assert calls == ["router"]

"""The legacy leg (2025-11-25) of the HTTP server: sessions, server→client requests on the POST
stream, the GET stream, DELETE, stateless and JSON-only modes, reaping, cancellation rules."""

from __future__ import annotations

import re
from typing import Any

import httpx
from _asgi_harness import (
    ACCEPT_BOTH,
    LegacyPeer,
    bound,
    call_body,
    collect_sse,
    initialize_body,
    running,
    sse_messages,
)
from _asgi_servers import Probe, build_server

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http import McpHttpApp

ELICIT = {"elicitation": {}}


def _app(probe: Probe | None = None, **options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server(probe).http_app(**options)
    return app


async def test_initialize_mints_a_visible_ascii_session_used_by_later_requests() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        result = await peer.initialize()
        assert result["protocolVersion"] == "2025-11-25"
        assert peer.session_id and re.fullmatch(r"[\x21-\x7e]+", peer.session_id)
        answer = await peer.call(2, "tools/call", {"name": "add", "arguments": {"a": 4, "b": 5}})
        assert answer["result"]["content"][0]["text"] == "9"
        other = LegacyPeer(http)
        await other.initialize()
        assert other.session_id != peer.session_id


async def test_session_ids_are_required_and_unknown_or_ended_ones_get_404() -> None:
    app = _app()
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        body = {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}
        missing = await http.post(
            "/mcp", json=body, headers={**ACCEPT_BOTH, "mcp-protocol-version": "2025-11-25"}
        )
        assert missing.status_code == 400 and "Mcp-Session-Id" in missing.json()["error"]["message"]
        unknown = await peer.post(body, **{"mcp-session-id": "no-such-session"})
        assert unknown.status_code == 404 and unknown.json()["id"] == 5
        assert app.session_count == 1
        deleted = await http.delete("/mcp", headers=peer.headers())
        assert deleted.status_code == 200
        assert app.session_count == 0
        after = await peer.post(body)
        assert after.status_code == 404
        again = await http.delete("/mcp", headers=peer.headers())
        assert again.status_code == 404
        no_id = await http.delete("/mcp", headers={"mcp-protocol-version": "2025-11-25"})
        assert no_id.status_code == 400


async def test_version_header_must_match_the_negotiated_one() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        body = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
        other = await peer.post(body, **{"mcp-protocol-version": "2025-06-18"})
        assert other.status_code == 400 and "2025-11-25" in other.json()["error"]["message"]
        unknown = await peer.post(body, **{"mcp-protocol-version": "1999-01-01"})
        assert unknown.status_code == 400
        headers = peer.headers()
        del headers["mcp-protocol-version"]  # missing: assumed 2025-03-26 … but the session knows
        assert (await http.post("/mcp", json=body, headers=headers)).status_code == 200


async def test_server_request_travels_on_the_post_stream_and_the_answer_comes_back_as_a_post() -> (
    None
):
    probe = Probe()
    async with running(_app(probe)) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize(ELICIT)
        body = call_body(8, "ask")
        async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
            assert r.headers["content-type"] == "text/event-stream"
            decoder = SSEDecoder()
            messages: list[dict[str, Any]] = []
            async for chunk in r.aiter_bytes():
                for event in decoder.feed(chunk):
                    if not event.data:
                        continue
                    message = decode_json(event.data)
                    messages.append(message)
                    if message.get("method") == "elicitation/create":
                        answer = {
                            "jsonrpc": "2.0",
                            "id": message["id"],
                            "result": {"action": "accept", "content": {"name": "Ada"}},
                        }
                        accepted = await peer.post(answer)
                        assert accepted.status_code == 202 and accepted.content == b""
                if messages and messages[-1].get("id") == 8:
                    break
        assert messages[0]["method"] == "elicitation/create"
        assert messages[-1]["result"]["content"][0]["text"] == "hello Ada"
        assert probe.answers[0].action == "accept"


async def test_get_stream_carries_unsolicited_notifications() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        subscribed = await peer.call(2, "resources/subscribe", {"uri": "test://static"})
        assert subscribed["result"] == {}
        headers = peer.headers(accept="text/event-stream")
        async with http.stream("GET", "/mcp", headers=headers) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"] == "text/event-stream"
            await peer.call(3, "tools/call", {"name": "change", "arguments": {}})
            await peer.call(
                4, "tools/call", {"name": "touch", "arguments": {"uri": "test://static"}}
            )
            decoder = SSEDecoder()
            got: list[dict[str, Any]] = []
            async for chunk in stream.aiter_bytes():
                got += sse_messages(decoder.feed(chunk))
                if len(got) >= 2:
                    break
        assert [m["method"] for m in got] == [
            "notifications/tools/list_changed",
            "notifications/resources/updated",
        ]
        assert got[1]["params"]["uri"] == "test://static"


async def test_a_disconnect_is_not_a_cancellation_but_notifications_cancelled_is() -> None:
    probe = Probe()
    app = _app(probe, sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        body = call_body(21, "hold")
        async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
            assert r.status_code == 200
            await bound(probe.hold_started.wait())
        assert not probe.hold_cancelled.is_set()
        assert app.task_count >= 1  # still running after the client left
        probe.release.set()
        await bound(app.wait_idle())
        assert not probe.hold_cancelled.is_set()

        second = Probe()
        app2 = _app(second, sse_after=0.0)
        async with running(app2) as url2, httpx.AsyncClient(base_url=url2) as http2:
            peer2 = LegacyPeer(http2)
            await peer2.initialize()
            body = call_body(22, "hold")
            async with http2.stream("POST", "/mcp", json=body, headers=peer2.headers()) as r:
                await bound(second.hold_started.wait())
                cancel = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 22},
                }
                assert (await peer2.post(cancel)).status_code == 202
                events = await bound(collect_sse(r))
            await bound(second.hold_cancelled.wait())
            assert sse_messages(events) == []  # a cancelled request gets no response
            await bound(app2.wait_idle())


async def test_duplicate_in_flight_id_is_refused() -> None:
    probe = Probe()
    app = _app(probe, sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        body = call_body(30, "hold")
        async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
            await bound(probe.hold_started.wait())
            again = await peer.post(body)
            assert again.json()["error"]["code"] == -32600
            probe.release.set()
            final = sse_messages(await bound(collect_sse(r)))[-1]
        assert final["result"]["content"][0]["text"] == "released"


async def test_stateless_mode_has_no_sessions() -> None:
    app = _app(stateless=True)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        init = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
        assert init.status_code == 200 and "mcp-session-id" not in init.headers
        headers = {**ACCEPT_BOTH, "mcp-protocol-version": "2025-11-25"}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 1}},
        }
        response = await http.post("/mcp", json=call, headers=headers)
        assert response.json()["result"]["content"][0]["text"] == "2"
        for method in ("GET", "DELETE"):
            refused = await http.request(
                method, "/mcp", headers={**headers, "accept": "text/event-stream"}
            )
            assert refused.status_code == 405
        ask = call_body(3, "ask")
        asked = await http.post("/mcp", json=ask, headers=headers)
        answer = asked.json()
        assert "error" in answer or answer["result"].get("isError") is True  # nobody to ask
        assert app.session_count == 0


async def test_json_only_mode_never_streams() -> None:
    async with running(_app(json_response=True)) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        body = {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 1}},
        }
        response = await peer.post(body)
        assert response.headers["content-type"] == "application/json"
        assert response.json()["result"]["content"][0]["text"] == "3 steps"


async def test_session_limit_answers_503() -> None:
    async with running(_app(max_sessions=2)) as url, httpx.AsyncClient(base_url=url) as http:
        for _ in range(2):
            await LegacyPeer(http).initialize()
        refused = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
        assert refused.status_code == 503 and refused.headers["retry-after"]
        assert "max_sessions" in refused.json()["error"]["message"]


async def test_idle_sessions_are_reaped_and_their_work_cancelled() -> None:
    probe = Probe()
    app = _app(probe, session_idle_timeout=60.0, sse_after=0.0)
    now = [1_000_000.0]
    sessions = app.endpoint.sessions
    assert sessions is not None
    sessions.clock = lambda: now[0]
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        idle, busy = LegacyPeer(http), LegacyPeer(http)
        await idle.initialize()
        await busy.initialize()
        body = call_body(2, "hold")
        async with http.stream("POST", "/mcp", json=body, headers=idle.headers()) as r:
            await bound(probe.hold_started.wait())
            now[0] += 30
            assert (await busy.call(3, "tools/list"))["result"]["tools"]
            now[0] += 31  # idle: 61 s without a request; busy: 31 s
            assert await sessions.reap() == 1
            await bound(probe.hold_cancelled.wait())
            assert sse_messages(await bound(collect_sse(r))) == []
        assert app.session_count == 1
        gone = await idle.post({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        assert gone.status_code == 404
        assert (await busy.call(5, "tools/list"))["result"]["tools"]


async def test_a_second_get_stream_supersedes_the_first() -> None:
    """Each message goes to exactly one stream: a reconnecting GET takes over, the old one ends."""
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        headers = peer.headers(accept="text/event-stream")
        async with http.stream("GET", "/mcp", headers=headers) as old:
            assert old.status_code == 200
            async with http.stream("GET", "/mcp", headers=headers) as new:
                assert new.status_code == 200
                assert await bound(old.aread()) == b""  # the old stream ended, empty
                await peer.call(2, "tools/call", {"name": "change", "arguments": {}})
                decoder = SSEDecoder()
                got: list[dict[str, Any]] = []
                async for chunk in new.aiter_bytes():
                    got += sse_messages(decoder.feed(chunk))
                    if got:
                        break
        assert got[0]["method"] == "notifications/tools/list_changed"

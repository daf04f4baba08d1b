"""A legacy session's request runs its handler in the HTTP request's own task too
(``transports/http/_server/exchange.py``), and a stream whose every event is known before its first
byte
is written as one body. These check what that must keep: the session still cancels the request
through the handle it holds, a complete SSE answer is one ``Content-Length`` body with the same
events (numbered and stored when the stream is resumable), and an ASGI server that cancels the
request's task takes the handler with it without leaving it in the session's tables.
Real uvicorn on loopback, except the last test, which plays the ASGI server itself."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

import httpx
from _asgi_harness import LegacyPeer, bound, call_body, collect_sse, running, sse_messages
from _asgi_servers import Probe, build_server

from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http import McpHttpApp
from mcpkit.transports.http._server.event_store import MemoryEventStore


def _app(probe: Probe | None = None, **options: Any) -> McpHttpApp:
    server = build_server(probe)

    @server.tool
    async def total(a: int, b: int) -> int:
        """Add two integers without waiting (``add`` is a ``def``: it runs on a thread)."""
        return a + b

    app: McpHttpApp = server.http_app(**options)
    return app


async def test_a_quick_sse_answer_is_one_body_with_a_content_length() -> None:
    app = _app(sse_after=0.0)  # every answer is an event stream
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        response = await peer.post(call_body(5, "total", a=2, b=3))
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        # a live stream's headers (no caching, no proxy buffering) mean nothing for one body
        assert "cache-control" not in response.headers
        assert "x-accel-buffering" not in response.headers
        assert "transfer-encoding" not in response.headers
        assert int(response.headers["content-length"]) == len(response.content)
        events = SSEDecoder().feed(response.content)
        assert [json.loads(e.data)["id"] for e in events] == [5]
        assert json.loads(events[0].data)["result"]["content"][0]["text"] == "5"
        assert events[0].id is None  # nothing to resume without an event store


async def test_a_complete_resumable_answer_is_primed_numbered_and_stored() -> None:
    app = _app(sse_after=0.0, event_store=MemoryEventStore())
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        response = await peer.post(call_body(6, "total", a=1, b=1))
        assert int(response.headers["content-length"]) == len(response.content)
        decoder = SSEDecoder()
        prime, final = decoder.feed(response.content)
        assert prime.data == "" and prime.retry == 1000  # an id and the reconnection delay
        assert json.loads(final.data)["id"] == 6
        prime_id, final_id = prime.id, final.id
        assert prime_id is not None and final_id is not None and prime_id != final_id
        # The stream was stored as it was sent: resuming from the priming id replays the answer.
        replay = await http.get("/mcp", headers=peer.headers(**{"last-event-id": prime_id}))
        replayed = [e for e in SSEDecoder().feed(replay.content) if e.data]
        assert [(e.id, json.loads(e.data)["id"]) for e in replayed] == [(final_id, 6)]


async def test_session_cancels_an_inline_handler_that_already_streams() -> None:
    probe = Probe()
    app = _app(probe, sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        async with http.stream(
            "POST", "/mcp", json=call_body(8, "hold"), headers=peer.headers()
        ) as held:
            await bound(probe.hold_started.wait())
            assert held.headers["content-type"].startswith("text/event-stream")
            answer = await http.delete("/mcp", headers=peer.headers())  # the session ends
            assert answer.status_code == 200
            events = await bound(collect_sse(held))
        await bound(probe.hold_cancelled.wait())
        assert sse_messages(events) == []  # a cancelled request gets no response
        await bound(app.wait_idle())
        assert app.task_count == 0


async def test_an_asgi_server_cancelling_the_request_cancels_the_handler() -> None:
    """Some ASGI servers cancel the request's task (at shutdown, or when the client leaves).
    The handler runs in that task, so it stops; the session forgets it and serves on."""
    probe = Probe()
    app = _app(probe, sse_after=30.0)
    async with app.lifespan():
        session_id = await _asgi_initialize(app)
        headers = {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        request = asyncio.create_task(_asgi_post(app, call_body(9, "hold"), headers))
        await bound(probe.hold_started.wait())
        sessions = app.endpoint.sessions
        assert sessions is not None
        state = await sessions.find(session_id)
        assert state is not None and state.engine.inbound.get(9) is not None
        request.cancel()
        await bound(probe.hold_cancelled.wait())
        await asyncio.wait([request])
        assert request.cancelled()
        assert state.engine.inbound.get(9) is None and not state.busy
        again = await bound(_asgi_post(app, call_body(9, "add", a=4, b=5), headers))
        assert json.loads(again[-1]["body"])["result"]["content"][0]["text"] == "9"


async def _asgi_post(
    app: McpHttpApp, body: dict[str, Any], headers: dict[str, str]
) -> list[MutableMapping[str, Any]]:
    data = json.dumps(body).encode()
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "root_path": "",
        "query_string": b"",
        "http_version": "1.1",
        "scheme": "http",
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-length", str(len(data)).encode()),
            *((k.encode(), v.encode()) for k, v in headers.items()),
        ],
    }
    sent: list[MutableMapping[str, Any]] = []
    delivered = False
    never = asyncio.Event()

    async def receive() -> MutableMapping[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": data, "more_body": False}
        await never.wait()  # the client stays connected
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def _asgi_initialize(app: McpHttpApp) -> str:
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "asgi-test", "version": "1"},
        },
    }
    sent = await _asgi_post(app, hello, {})
    session_id: str = dict(sent[0]["headers"])[b"mcp-session-id"].decode()
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await _asgi_post(
        app, note, {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    )
    return session_id

"""One app on RedisState, in process (a real uvicorn on loopback, the shared Redis with a fresh
prefix): what a single worker must not do to sessions other workers also serve."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import httpx
from _asgi_harness import ACCEPT_BOTH, LegacyPeer, bound, initialize_body, running
from _redis_env import REDIS_URL

from mcpkit.contrib.redis import RedisState
from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.server import Server
from mcpkit.transports.http._server.legacy_sessions import LOCAL_COPY_IDLE_SECONDS


def _server() -> Server:
    server = Server("redis-app", "1.0.0")

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool
    async def touch(uri: str) -> str:
        await server.notify_resource_updated(uri)
        return "touched"

    @server.tool
    async def change() -> str:
        await server.notify_list_changed("tools")
        return "changed"

    @server.resource("test://watched", mime_type="text/plain")
    def watched() -> str:
        return "watched"

    return server


async def test_the_local_per_peer_table_never_ends_shared_sessions(prefix: str) -> None:
    # Behind a proxy every client has the proxy's address. The process-local per-peer cap would
    # end this process's "idle" sessions, which other workers may be serving right now.
    app = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix), max_sessions_per_peer=2)
    async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peers = [LegacyPeer(http) for _ in range(4)]
        for peer in peers:
            await bound(peer.initialize())
        for index, peer in enumerate(peers):
            args: dict[str, Any] = {"name": "add", "arguments": {"a": index, "b": 1}}
            reply = await bound(peer.call(10 + index, "tools/call", args))
            assert reply["result"]["structuredContent"] == {"result": index + 1}


async def test_shutting_a_worker_down_keeps_the_sessions_and_their_streams(prefix: str) -> None:
    first = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    async with running(first) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peer = LegacyPeer(http)
        await bound(peer.initialize())
        await bound(peer.call(2, "resources/subscribe", {"uri": "test://watched"}))
        await _one_update(http, peer, 3)
    # that worker stopped (its lifespan ended); another one serves the session and its stream
    second = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    async with running(second) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peer.http = http
        args = {"name": "add", "arguments": {"a": 2, "b": 3}}
        reply = await bound(peer.call(4, "tools/call", args))
        assert reply["result"]["structuredContent"] == {"result": 5}
        await _one_update(http, peer, 5)


async def _one_update(http: httpx.AsyncClient, peer: LegacyPeer, request_id: int) -> None:
    """Open the session's GET stream, announce an update, and see it arrive."""
    headers = {k: v for k, v in peer.headers().items() if k != "content-type"}
    async with http.stream("GET", "/mcp", headers=headers) as stream:
        assert stream.status_code == 200
        touch = {"name": "touch", "arguments": {"uri": "test://watched"}}
        await bound(peer.call(request_id, "tools/call", touch))
        event = await bound(_first_data_event(stream))
    assert decode_json(event.data)["method"] == "notifications/resources/updated"


async def test_idle_local_copies_are_dropped_and_rebuilt(prefix: str) -> None:
    app = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peer = LegacyPeer(http)
        await bound(peer.initialize())
        sessions = app.endpoint.sessions
        assert sessions is not None and len(sessions) == 1
        await sessions.reap()
        assert len(sessions) == 1  # just used: kept
        later = time.time() + LOCAL_COPY_IDLE_SECONDS + 1
        sessions.clock = lambda: later
        await sessions.reap()
        assert len(sessions) == 0  # dropped from this process, not from Redis
        args = {"name": "add", "arguments": {"a": 1, "b": 1}}
        reply = await bound(peer.call(2, "tools/call", args))
        assert reply["result"]["structuredContent"] == {"result": 2}
        assert len(sessions) == 1


async def _first_data_event(response: httpx.Response) -> Any:
    decoder = SSEDecoder()
    async for chunk in response.aiter_bytes():
        for event in decoder.feed(chunk):
            if event.data:
                return event
    raise AssertionError("the stream ended without an event")


async def test_a_legacy_list_change_reaches_every_session_once(prefix: str) -> None:
    app = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peers = [LegacyPeer(http) for _ in range(2)]
        for peer in peers:
            await bound(peer.initialize())
        async with contextlib.AsyncExitStack() as stack:
            streams = []
            for peer in peers:
                headers = {k: v for k, v in peer.headers().items() if k != "content-type"}
                stream = await stack.enter_async_context(
                    http.stream("GET", "/mcp", headers=headers)
                )
                assert stream.status_code == 200
                streams.append(stream)
            await bound(peers[0].call(2, "tools/call", {"name": "change", "arguments": {}}))
            touch = {"name": "touch", "arguments": {"uri": "test://nobody-watches"}}
            await bound(peers[0].call(3, "tools/call", touch))
            await bound(peers[0].call(4, "tools/call", {"name": "change", "arguments": {}}))
            for stream in streams:
                events = await bound(_data_events(stream, 2))
                methods = [decode_json(e.data)["method"] for e in events]
                assert methods == ["notifications/tools/list_changed"] * 2
                assert len({e.id for e in events}) == 2


async def _data_events(response: httpx.Response, count: int) -> list[Any]:
    decoder = SSEDecoder()
    found: list[Any] = []
    async for chunk in response.aiter_bytes():
        found += [e for e in decoder.feed(chunk) if e.data]
        if len(found) >= count:
            return found
    return found


async def _session(http: httpx.AsyncClient, version: str, *, initialized: bool) -> LegacyPeer:
    peer = LegacyPeer(http)
    response = await http.post(
        peer.path, json=initialize_body(version=version), headers=ACCEPT_BOTH
    )
    assert response.status_code == 200, response.text
    peer.session_id = response.headers["mcp-session-id"]
    peer.version = response.json()["result"]["protocolVersion"]
    assert peer.version == version
    if initialized:
        note = await peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status_code == 202
    return peer


async def test_a_legacy_fanout_leaves_through_each_sessions_send_point(prefix: str) -> None:
    # Fanned out through Redis, a list change is written into sessions other workers may hold:
    # each copy must still be shaped for its session's revision and seen by the observers, and
    # a session whose client has not sent notifications/initialized gets none.
    seen: list[tuple[str, str | None]] = []

    def observer(message: Any, version: str | None, method: str | None) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            seen.append((message.method, version))

    app = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    add_outbound_observer(observer)
    try:
        async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
            old = await bound(_session(http, "2025-03-26", initialized=True))
            await bound(_session(http, "2025-11-25", initialized=True))
            await bound(_session(http, "2025-06-18", initialized=False))
            await bound(old.call(2, "tools/call", {"name": "change", "arguments": {}}))
    finally:
        remove_outbound_observer(observer)
    method = "notifications/tools/list_changed"
    assert sorted(seen, key=str) == [(method, "2025-03-26"), (method, "2025-11-25")]

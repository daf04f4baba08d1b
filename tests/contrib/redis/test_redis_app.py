"""One app on RedisState, in process (a real uvicorn on loopback, the shared Redis with a fresh
prefix): what a single worker must not do to sessions other workers also serve."""

from __future__ import annotations

from typing import Any

import httpx
from _asgi_harness import LegacyPeer, bound, running
from _redis_env import REDIS_URL

from mcpkit.contrib.redis import RedisState
from mcpkit.server import Server


def _server() -> Server:
    server = Server("redis-app", "1.0.0")

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

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


async def test_shutting_a_worker_down_keeps_the_sessions(prefix: str) -> None:
    first = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    async with running(first) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peer = LegacyPeer(http)
        await bound(peer.initialize())
    # that worker stopped (its lifespan ended); another one serves the session
    second = _server().http_app(state=RedisState(REDIS_URL, prefix=prefix))
    async with running(second) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        peer.http = http
        args = {"name": "add", "arguments": {"a": 2, "b": 3}}
        reply = await bound(peer.call(2, "tools/call", args))
        assert reply["result"]["structuredContent"] == {"result": 5}

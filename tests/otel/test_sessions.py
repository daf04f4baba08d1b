"""The session gauge counts open legacy Streamable HTTP sessions (a real server on loopback)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from mcpkit import Client, Server
from mcpkit.contrib.otel import instrument

from ._recorder import Recorder


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        server.force_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


def sessions(otel: Recorder) -> int:
    return sum(point.value for _, point in otel.points("mcpkit.server.active_sessions"))


async def test_the_gauge_follows_sessions_opening_and_ending(otel: Recorder) -> None:
    server = Server("counted")
    server.tool(name="t")(lambda: "x")
    instrument(server, **otel.providers)
    async with serving(server.http_app()) as url:
        async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
            await first.call_tool("t", {})
            await second.call_tool("t", {})
            assert sessions(otel) == 2
            async with Client(url, mode="2026-07-28") as modern:  # stateless: no session
                await modern.call_tool("t", {})
                assert sessions(otel) == 2
        assert sessions(otel) == 0  # each client sent DELETE when it closed

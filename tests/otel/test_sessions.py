"""The session gauge counts open legacy Streamable HTTP sessions (a real server on loopback)."""

from __future__ import annotations

from _loopback import serving
from mcpkit import Client, Server
from mcpkit.contrib.otel import instrument

from ._recorder import Recorder


def sessions(otel: Recorder) -> int:
    return sum(point.value for _, point in otel.points("mcpkit.server.active_sessions"))


async def test_the_gauge_follows_sessions_opening_and_ending(otel: Recorder) -> None:
    server = Server("counted")
    server.tool(name="t")(lambda: "x")
    instrument(server, **otel.providers)
    async with serving(server.http_app()) as base:
        url = f"{base}/mcp"
        async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
            await first.call_tool("t", {})
            await second.call_tool("t", {})
            assert sessions(otel) == 2
            async with Client(url, mode="2026-07-28") as modern:  # stateless: no session
                await modern.call_tool("t", {})
                assert sessions(otel) == 2
        assert sessions(otel) == 0  # each client sent DELETE when it closed

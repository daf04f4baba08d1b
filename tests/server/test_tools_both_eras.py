"""Tools over real (schema-validated) messages, in both eras: the wire-level rules (exact
messages through a raw peer) and what only an in-process server shows (threads, lifespan,
middleware order). The tool features a client sees run over every transport in
tests/interaction/test_kit_tools.py."""

from __future__ import annotations

import threading
from typing import Annotated, Any

import pytest
from _server_harness import connect

from mcpkit.protocol._errors import InvalidParams, InvalidRequest, MethodNotFound, UsageError
from mcpkit.server import (
    Context,
    Header,
    Server,
    ToolResult,
    content,
)


def build() -> Server:
    server = Server("tools-test", "1.2.3", instructions="Use add for sums.")

    @server.tool
    def add(a: int, b: int = 1) -> int:
        return a + b

    @server.tool
    def where() -> str:
        return threading.current_thread().name

    @server.tool
    async def where_async() -> str:
        return threading.current_thread().name

    @server.tool
    def custom() -> ToolResult:
        return ToolResult(content=[content.text("partial")], is_error=True)

    return server


async def test_discover_describes_the_server() -> None:
    """The 2026 wire fields of ``server/discover``; what a client reads from it (name, version,
    instructions, capabilities) is checked over every transport in
    tests/interaction/test_kit_tools.py."""
    async with connect(build()) as peer:
        result = await peer.modern("server/discover")
    assert "2026-07-28" in result["supportedVersions"]
    assert "2025-11-25" in result["supportedVersions"]
    assert result["capabilities"]["tools"] == {"listChanged": True}
    assert result["instructions"] == "Use add for sums."
    assert result["resultType"] == "complete"
    assert isinstance(result["ttlMs"], int) and result["cacheScope"] in ("public", "private")
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"] == "1.2.3"


async def test_a_tool_result_built_by_hand_is_sent_as_built() -> None:
    """The exact wire form of a ``ToolResult`` (what a client sees of it, and the other ways a
    tool fails, is checked over every transport in tests/interaction/test_kit_tools.py)."""
    async with connect(build()) as peer:
        custom = await peer.modern("tools/call", {"name": "custom"})
    assert custom == {
        "content": [{"type": "text", "text": "partial"}],
        "isError": True,
        "resultType": "complete",
        "_meta": custom["_meta"],
    }


async def test_sync_tools_run_in_a_worker_thread_and_async_on_the_loop() -> None:
    async with connect(build()) as peer:
        sync_thread = await peer.modern("tools/call", {"name": "where"})
        async_thread = await peer.modern("tools/call", {"name": "where_async"})
    assert sync_thread["content"][0]["text"] != threading.current_thread().name
    assert async_thread["content"][0]["text"] == threading.current_thread().name


async def test_legacy_requests_before_initialize_are_refused_and_the_connection_survives() -> None:
    async with connect(build()) as peer:
        with pytest.raises(InvalidRequest, match="before initialize"):
            await peer.legacy("tools/list")
        assert await peer.legacy("ping") == {}
        init = await peer.initialize()
        assert init["protocolVersion"] == "2025-11-25"
        assert init["serverInfo"]["name"] == "tools-test"
        assert len((await peer.legacy("tools/list"))["tools"]) == 4


async def test_legacy_version_counter_offer() -> None:
    async with connect(build()) as peer:
        init = await peer.initialize(version="1999-01-01")
    assert init["protocolVersion"] == "2025-11-25"


async def test_unknown_methods_and_modern_versions() -> None:
    from mcpkit.protocol._errors import UnsupportedProtocolVersion

    async with connect(build()) as peer:
        with pytest.raises(MethodNotFound):
            await peer.modern("tools/explode")
        with pytest.raises(UnsupportedProtocolVersion) as info:
            await peer.modern(
                "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}
            )
        assert "2026-07-28" in info.value.supported
        with pytest.raises(InvalidParams, match="clientCapabilities"):
            await peer.session.send_request(
                "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
            )


async def test_middleware_wraps_every_request() -> None:
    server = build()
    seen: list[str] = []

    async def record(info: Any, call_next: Any) -> dict[str, Any]:
        seen.append(info.request.method)
        return await call_next()

    server.add_middleware(record)
    async with connect(server) as peer:
        await peer.modern("tools/list")
        await peer.modern("tools/call", {"name": "add", "arguments": {"a": 1}})
    assert seen == ["tools/list", "tools/call"]


async def test_lifespan_runs_once_and_is_visible_in_context() -> None:
    import contextlib

    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> Any:
        events.append("start")
        yield {"db": "connected"}
        events.append("stop")

    server = Server("life", lifespan=lifespan)

    @server.tool
    def db(ctx: Context) -> str:
        return str(ctx.lifespan["db"])

    async with server.running():
        async with connect(server) as first, connect(server) as second:
            a = await first.modern("tools/call", {"name": "db"})
            b = await second.modern("tools/call", {"name": "db"})
        assert events == ["start"]
    assert events == ["start", "stop"]
    assert a["content"][0]["text"] == b["content"][0]["text"] == "connected"


def test_header_annotations_are_checked_at_registration() -> None:
    server = Server("headers")

    @server.tool
    def ok(region: Annotated[str, Header("Region")]) -> str:
        return region

    assert server._tools["ok"].definition["inputSchema"]["properties"]["region"] == {
        "type": "string",
        "x-mcp-header": "Region",
    }
    with pytest.raises(UsageError, match="x-mcp-header"):

        @server.tool
        def bad(weight: Annotated[float, Header("Weight")]) -> str:  # numbers are not allowed
            return str(weight)

    with pytest.raises(UsageError, match="x-mcp-header"):

        @server.tool
        def clash(a: Annotated[str, Header("Zone")], b: Annotated[str, Header("zone")]) -> str:
            return a + b

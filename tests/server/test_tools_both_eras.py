"""Tools over real (schema-validated) messages, in both eras."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from typing import Annotated, Any, Literal

import pytest
from _server_harness import connect

from mcpkit.protocol.errors import InvalidParams, InvalidRequest, MethodNotFound, UsageError
from mcpkit.server import (
    Context,
    Header,
    RequestView,
    Server,
    ToolError,
    ToolResult,
    content,
)


@dataclasses.dataclass
class Product:
    name: str
    price: float


def build() -> Server:
    server = Server("tools-test", "1.2.3", instructions="Use add for sums.")

    @server.tool(read_only=True, title="Adder")
    def add(a: int, b: Annotated[int, "the second addend"] = 1) -> int:
        """Add two numbers.

        Args:
            a: the first addend
        """
        return a + b

    @server.tool
    def where() -> str:
        return threading.current_thread().name

    @server.tool
    async def where_async() -> str:
        return threading.current_thread().name

    @server.tool
    def find(kind: Literal["shoe", "shirt"]) -> list[Product]:
        return [Product(f"{kind} one", 899.0)]

    @server.tool
    def boom() -> str:
        raise RuntimeError("the database is down")

    @server.tool
    def refuse() -> str:
        raise ToolError("quota exceeded: try again tomorrow")

    @server.tool(timeout=0.05)
    async def forever() -> str:
        await asyncio.Event().wait()
        return "never"

    @server.tool
    def picture() -> list[dict[str, Any]]:
        return [content.text("a pixel"), content.image(b"\x89PNG\r\n", "image/png")]

    @server.tool
    def custom() -> ToolResult:
        return ToolResult(content=[content.text("partial")], is_error=True)

    @server.tool
    async def slow_progress(ctx: Context) -> str:
        for step in (0, 50, 100):
            await ctx.report_progress(step, 100, f"step {step}")
        return "done"

    return server


async def test_discover_describes_the_server() -> None:
    async with connect(build()) as peer:
        result = await peer.modern("server/discover")
    assert "2026-07-28" in result["supportedVersions"]
    assert "2025-11-25" in result["supportedVersions"]
    assert result["capabilities"]["tools"] == {"listChanged": True}
    assert result["instructions"] == "Use add for sums."
    assert result["resultType"] == "complete"
    assert isinstance(result["ttlMs"], int) and result["cacheScope"] in ("public", "private")
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"] == "1.2.3"


async def test_tool_schema_comes_from_the_signature() -> None:
    async with connect(build()) as peer:
        tools = {t["name"]: t for t in (await peer.modern("tools/list"))["tools"]}
    add = tools["add"]
    assert add["title"] == "Adder"
    assert add["description"] == "Add two numbers."
    assert add["annotations"] == {"readOnlyHint": True}
    props = add["inputSchema"]["properties"]
    assert props["a"] == {"type": "integer", "description": "the first addend"}
    assert props["b"]["description"] == "the second addend"
    assert props["b"]["default"] == 1
    assert add["inputSchema"]["required"] == ["a"]
    assert sorted(tools["find"]["inputSchema"]["properties"]["kind"]["enum"]) == ["shirt", "shoe"]
    assert "outputSchema" in tools["find"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_call_returns_structured_content_and_text(era: str) -> None:
    async with connect(build()) as peer:
        if era == "legacy":
            await peer.initialize()
            result = await peer.legacy("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
        else:
            result = await peer.modern("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
    assert result["structuredContent"] == {"result": 5}
    assert result["content"] == [{"type": "text", "text": "5"}]
    assert not result.get("isError")


async def test_dataclass_output_is_structured() -> None:
    async with connect(build()) as peer:
        result = await peer.modern("tools/call", {"name": "find", "arguments": {"kind": "shoe"}})
    assert result["structuredContent"] == {"result": [{"name": "shoe one", "price": 899.0}]}


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"a": "two"}, "`a`"),
        ({}, "`a`"),
        ({"a": 1, "zzz": 2}, "zzz"),
    ],
)
async def test_bad_arguments_are_tool_errors_naming_the_field(
    arguments: dict[str, Any], needle: str
) -> None:
    async with connect(build()) as peer:
        result = await peer.modern("tools/call", {"name": "add", "arguments": arguments})
        again = await peer.modern("tools/call", {"name": "add", "arguments": {"a": 1}})
    assert result["isError"] is True
    assert needle in result["content"][0]["text"]
    assert again["structuredContent"] == {"result": 2}  # the server keeps serving


async def test_unknown_tool_is_a_protocol_error() -> None:
    async with connect(build()) as peer:
        with pytest.raises(InvalidParams, match="Unknown tool: nope"):
            await peer.modern("tools/call", {"name": "nope"})


async def test_exceptions_timeouts_and_tool_errors_become_is_error_results() -> None:
    async with connect(build()) as peer:
        boom = await peer.modern("tools/call", {"name": "boom"})
        refuse = await peer.modern("tools/call", {"name": "refuse"})
        forever = await peer.modern("tools/call", {"name": "forever"})
        custom = await peer.modern("tools/call", {"name": "custom"})
    assert boom["isError"] and "the database is down" in boom["content"][0]["text"]
    assert refuse["content"][0]["text"] == "quota exceeded: try again tomorrow"
    assert forever["isError"] and "timed out" in forever["content"][0]["text"]
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


async def test_content_helpers() -> None:
    async with connect(build()) as peer:
        result = await peer.modern("tools/call", {"name": "picture"})
    kinds = [block["type"] for block in result["content"]]
    assert kinds == ["text", "image"]
    assert result["content"][1]["mimeType"] == "image/png"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_progress_is_sent_when_asked_for(era: str) -> None:
    async with connect(build()) as peer:
        seen: list[float] = []

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        if era == "legacy":
            await peer.initialize()
            result = await peer.session.send_request(
                "tools/call", {"name": "slow_progress"}, progress_callback=on_progress
            )
        else:
            result = await peer.modern(
                "tools/call", {"name": "slow_progress"}, progress_callback=on_progress
            )
    assert result["content"][0]["text"] == "done"
    assert seen == [0, 50, 100]


async def test_legacy_requests_before_initialize_are_refused_and_the_connection_survives() -> None:
    async with connect(build()) as peer:
        with pytest.raises(InvalidRequest, match="before initialize"):
            await peer.legacy("tools/list")
        assert await peer.legacy("ping") == {}
        init = await peer.initialize()
        assert init["protocolVersion"] == "2025-11-25"
        assert init["serverInfo"]["name"] == "tools-test"
        assert len((await peer.legacy("tools/list"))["tools"]) == 10


async def test_legacy_version_counter_offer() -> None:
    async with connect(build()) as peer:
        init = await peer.initialize(version="1999-01-01")
    assert init["protocolVersion"] == "2025-11-25"


async def test_unknown_methods_and_modern_versions() -> None:
    from mcpkit.protocol.errors import UnsupportedProtocolVersion

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


async def test_add_and_remove_tools_announce_list_changed() -> None:
    server = build()
    async with connect(server) as peer:
        await peer.initialize()

        @server.tool
        def late() -> str:
            return "late"

        await peer.wait_for("notifications/tools/list_changed")
        names = [t["name"] for t in (await peer.legacy("tools/list"))["tools"]]
        assert "late" in names
        server.remove_tool("late")
        await peer.wait_for("notifications/tools/list_changed", 2)
        names = [t["name"] for t in (await peer.legacy("tools/list"))["tools"]]
        assert "late" not in names


async def test_pagination_with_opaque_cursors() -> None:
    server = Server("paged", page_size=4)
    for i in range(10):
        server.tool(name=f"t{i}")(lambda: "x")
    async with connect(server) as peer:
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            params = {"cursor": cursor} if cursor is not None else {}
            page = await peer.modern("tools/list", params)
            names += [t["name"] for t in page["tools"]]
            pages += 1
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert names == [f"t{i}" for i in range(10)]
        assert pages == 3
        with pytest.raises(InvalidParams, match="cursor"):
            await peer.modern("tools/list", {"cursor": "not-a-cursor"})


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


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_middleware_reads_the_method_and_version_from_info(era: str) -> None:
    """docs/server.md's middleware example uses ``info.method`` and ``info.protocol_version``."""
    server = build()
    seen: list[tuple[str, str, str]] = []

    async def record(info: RequestView, call_next: Any) -> dict[str, Any]:
        seen.append((info.method, info.protocol_version, str(info.era)))
        return await call_next()

    server.add_middleware(record)
    async with connect(server) as peer:
        if era == "legacy":
            await peer.initialize()
            await peer.legacy("tools/call", {"name": "add", "arguments": {"a": 1}})
        else:
            await peer.modern("tools/call", {"name": "add", "arguments": {"a": 1}})
    calls = [entry for entry in seen if entry[0] == "tools/call"]
    assert len(calls) == 1, seen
    _, version, seen_era = calls[0]
    assert version == ("2026-07-28" if era == "modern" else "2025-11-25")
    assert era in seen_era.lower()


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

"""Spans and metrics of requests served and sent in one process (the in-memory transport).

Each era: a tool call that succeeds, one whose tool fails (``isError``), and JSON-RPC errors
(an unknown tool, a missing resource: -32002 in legacy sessions, -32602 in 2026-07-28); the
server span is the client span's child through ``params._meta`` alone (marked remote).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from mcpkit import Client, Server
from mcpkit.client import Host
from mcpkit.contrib.otel import instrument, uninstrument
from mcpkit.protocol._errors import InvalidParams, JSONRPCError
from mcpkit.server import ToolError

from ._recorder import Recorder

ERAS = [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")]


def build() -> Server:
    server = Server("traced", "1.0.0")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    def fail() -> str:
        """Always fails."""
        raise ToolError("failed on purpose")

    @server.resource("note://one")
    def one() -> str:
        return "one"

    return server


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_tool_call_is_a_client_span_and_its_remote_child(
    otel: Recorder, mode: str, version: str
) -> None:
    server = build()
    instrument(server, **otel.providers)
    async with Client(server, mode=mode) as client:
        instrument(client, **otel.providers)
        result = await client.call_tool("add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}

    sent = otel.one("tools/call add", SpanKind.CLIENT)
    served = otel.one("tools/call add", SpanKind.SERVER)
    assert served.context.trace_id == sent.context.trace_id
    assert served.parent is not None and served.parent.span_id == sent.context.span_id
    assert served.parent.is_remote  # it came through params._meta, not this task's context
    era = "legacy" if mode == "legacy" else "modern"
    expected = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": version,
        "mcpkit.era": era,
    }
    for span in (sent, served):
        attributes = dict(span.attributes or {})
        assert {k: attributes.get(k) for k in expected} == expected
        assert "error.type" not in attributes
        assert span.status.status_code is StatusCode.UNSET
    assert dict(served.attributes or {})["jsonrpc.request.id"].isdigit()
    assert dict(sent.attributes or {})["mcpkit.server.name"] == client.name


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_failing_tool_is_a_tool_error_on_both_spans(
    otel: Recorder, mode: str, version: str
) -> None:
    server = build()
    instrument(server, **otel.providers)
    async with Client(server, mode=mode) as client:
        instrument(client, **otel.providers)
        result = await client.call_tool("fail", {})
    assert result.is_error
    for kind in (SpanKind.CLIENT, SpanKind.SERVER):
        span = otel.one("tools/call fail", kind)
        assert dict(span.attributes or {})["error.type"] == "tool_error"
        assert span.status.status_code is StatusCode.ERROR


@pytest.mark.parametrize(("mode", "missing_code"), [("legacy", -32002), ("2026-07-28", -32602)])
async def test_json_rpc_errors_carry_their_code(
    otel: Recorder, mode: str, missing_code: int
) -> None:
    server = build()
    instrument(server, **otel.providers)
    async with Client(server, mode=mode) as client:
        instrument(client, **otel.providers)
        with pytest.raises(InvalidParams) as unknown:
            await client.call_tool("nope", {})
        with pytest.raises(JSONRPCError):
            await client.read_resource("note://missing")
    # the spans carry the server's own words; the client's error adds the tools it does list
    assert unknown.value.message.startswith("Unknown tool: nope; known tools: ")
    for name, code, message in (
        ("tools/call nope", -32602, "Unknown tool: nope"),
        ("resources/read", missing_code, None),
    ):
        for kind in (SpanKind.CLIENT, SpanKind.SERVER):
            span = otel.one(name, kind)
            attributes = dict(span.attributes or {})
            assert attributes["error.type"] == str(code), (name, kind)
            assert attributes["rpc.response.status_code"] == str(code)
            assert span.status.status_code is StatusCode.ERROR
            if message is not None:
                assert span.status.description == message
    read = otel.one("resources/read", SpanKind.SERVER)
    assert dict(read.attributes or {})["mcp.resource.uri"] == "note://missing"


async def test_a_request_refused_before_any_handler_still_has_its_span(otel: Recorder) -> None:
    """An unsupported 2026 version is refused by the era checks (-32022), outside middleware."""
    server = build()
    instrument(server, **otel.providers)
    async with Client(server, mode="2026-07-28") as client:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        with pytest.raises(JSONRPCError) as refused:
            await client._require_channel().request(
                "tools/list", {"_meta": meta}, protocol_version="2026-07-28"
            )
    span = otel.one("tools/list", SpanKind.SERVER)
    attributes = dict(span.attributes or {})
    assert attributes["error.type"] == str(refused.value.code)
    assert attributes["mcp.protocol.version"] == "2099-01-01"


async def test_trace_context_from_any_client_is_the_parent(otel: Recorder) -> None:
    """A traceparent another implementation put in _meta is honoured; a broken one is not
    fatal (a new trace starts and the call succeeds)."""
    server = build()
    instrument(server, **otel.providers)
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent_id = "00f067aa0ba902b7"
    async with Client(server, mode="2026-07-28") as client:
        good = {"traceparent": f"00-{trace_id}-{parent_id}-01", "tracestate": "k=v"}
        await client.call_tool("add", {"a": 1, "b": 1}, meta=good)
        broken = {"traceparent": 12}
        result = await client.call_tool("add", {"a": 1, "b": 2}, meta=broken)
        assert result.structured_content == {"result": 3}
    first, second = otel.spans("tools/call add", SpanKind.SERVER)
    assert first.context.trace_id == int(trace_id, 16)
    assert first.parent is not None and first.parent.span_id == int(parent_id, 16)
    assert first.context.trace_state.get("k") == "v"
    assert second.context.trace_id != int(trace_id, 16)
    assert second.parent is None


async def test_metrics_count_time_and_in_flight_by_method_and_outcome(otel: Recorder) -> None:
    server = build()
    started = asyncio.Event()
    release = asyncio.Event()

    @server.tool
    async def wait() -> str:
        """Holds the call open until the test lets it go."""
        started.set()
        await release.wait()
        return "done"

    instrument(server, **otel.providers)
    async with Client(server, mode="2026-07-28") as client:
        instrument(client, **otel.providers)
        await client.call_tool("add", {"a": 1, "b": 1})
        await client.call_tool("add", {"a": 1, "b": 2})
        await client.call_tool("fail", {})
        pending = asyncio.ensure_future(client.call_tool("wait", {}))
        await asyncio.wait_for(started.wait(), 10)
        during = {
            (side, attrs["mcp.method.name"]): point.value
            for side in ("server", "client")
            for attrs, point in otel.points(f"mcpkit.{side}.active_requests")
        }
        release.set()
        await pending
    assert during[("server", "tools/call")] == 1
    assert during[("client", "tools/call")] == 1
    after = [point.value for _, point in otel.points("mcpkit.server.active_requests")]
    assert after and all(value == 0 for value in after)

    durations: dict[tuple[Any, ...], Any] = {
        (attrs.get("gen_ai.tool.name"), attrs.get("error.type")): point
        for attrs, point in otel.points("mcp.server.operation.duration")
        if attrs["mcp.method.name"] == "tools/call"
    }
    assert durations[("add", None)].count == 2
    assert durations[("fail", "tool_error")].count == 1
    assert durations[("wait", None)].count == 1
    assert durations[("add", None)].sum > 0
    client_side = {
        attrs.get("gen_ai.tool.name"): point.count
        for attrs, point in otel.points("mcp.client.operation.duration")
    }
    assert client_side["add"] == 2
    for attrs, _ in otel.points("mcp.server.operation.duration"):
        assert "mcp.session.id" not in attrs and "jsonrpc.request.id" not in attrs


async def test_instrument_without_target_covers_every_object_until_uninstrument(
    otel: Recorder,
) -> None:
    server = build()  # made before instrument(): the class-level hook covers it too
    instrument(**otel.providers)
    async with Client(server, mode="2026-07-28") as client:
        await client.call_tool("add", {"a": 1, "b": 1})
    assert [k for n, k in otel.names() if n == "tools/call add"] == ["SERVER", "CLIENT"]
    uninstrument()
    assert Server.request_hook is None and Client.request_hook is None
    otel.exporter.clear()
    async with Client(server, mode="2026-07-28") as client:
        await client.call_tool("add", {"a": 1, "b": 1})
    assert otel.names() == []


async def test_a_host_has_a_span_per_routed_call_named_after_the_server(otel: Recorder) -> None:
    host = Host({"left": build(), "right": build()}, namespacing="always")
    instrument(host, **otel.providers)
    async with host:
        await host.call_tool("left__add", {"a": 1, "b": 2})
        await host.call_tool("right__add", {"a": 3, "b": 4})
    routed = otel.spans("tools/call add", SpanKind.CLIENT)
    assert sorted(dict(s.attributes or {})["mcpkit.server.name"] for s in routed) == [
        "left",
        "right",
    ]


def test_mcpkit_never_imports_opentelemetry_by_itself() -> None:
    code = (
        "import asyncio, sys\n"
        "from mcpkit import Client, Server\n"
        "server = Server('s')\n"
        "server.tool(name='t')(lambda: 'x')\n"
        "async def main():\n"
        "    async with Client(server) as client:\n"
        "        await client.call_tool('t', {})\n"
        "asyncio.run(main())\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('opentelemetry'))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

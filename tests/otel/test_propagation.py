"""One trace across processes: the client's span is the parent of the server's span in another
process, over stdio and over Streamable HTTP on loopback, in both eras; and across three
processes (client → a server whose tool calls another server → that server).

The servers are ``peers/traced_server.py`` processes writing their spans as JSON lines; the
test's own client records with the SDK's in-memory exporter.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from opentelemetry.trace import SpanKind

from mcpkit import Client
from mcpkit.contrib.otel import instrument
from mcpkit.protocol._errors import InvalidParams

from ._peer import PEER, http_peer, served
from ._recorder import Recorder, read_spans

ERAS = [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")]


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_stdio_server_span_is_the_child_of_the_client_span(
    otel: Recorder, tmp_path: Path, mode: str, version: str
) -> None:
    spans = tmp_path / "server.jsonl"
    async with Client([sys.executable, str(PEER), str(spans)], mode=mode) as client:
        instrument(client, **otel.providers)
        result = await client.call_tool("add", {"a": 20, "b": 22})
        failed = await client.call_tool("fail", {})
    assert result.structured_content == {"result": 42}
    assert failed.is_error
    sent = otel.one("tools/call add", SpanKind.CLIENT)
    child = served(read_spans(spans), "tools/call add")
    assert child["trace_id"] == sent.context.trace_id
    assert child["parent_id"] == sent.context.span_id
    assert child["parent_remote"] is True
    assert child["attributes"]["mcp.protocol.version"] == version
    assert "mcp.session.id" not in child["attributes"]  # stdio has no session id
    failing = served(read_spans(spans), "tools/call fail")
    assert failing["attributes"]["error.type"] == "tool_error"
    assert failing["status"] == "ERROR"
    assert failing["trace_id"] == otel.one("tools/call fail", SpanKind.CLIENT).context.trace_id


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_http_server_span_is_the_child_of_the_client_span(
    otel: Recorder, tmp_path: Path, mode: str, version: str
) -> None:
    spans = tmp_path / "server.jsonl"
    async with http_peer(spans) as url, Client(url, mode=mode) as client:
        instrument(client, **otel.providers)
        await client.call_tool("add", {"a": 1, "b": 2})
        failed = await client.call_tool("fail", {})
        with pytest.raises(InvalidParams):
            await client.call_tool("missing", {})
        session_id = client.negotiated.session_id
    assert failed.is_error
    recorded = read_spans(spans)
    for name, error in (("tools/call fail", "tool_error"), ("tools/call missing", "-32602")):
        remote = served(recorded, name)
        local = otel.one(name, SpanKind.CLIENT)
        assert remote["attributes"]["error.type"] == error
        assert remote["status"] == "ERROR"
        assert dict(local.attributes or {})["error.type"] == error
        assert remote["parent_id"] == local.context.span_id
    sent = otel.one("tools/call add", SpanKind.CLIENT)
    child = served(recorded, "tools/call add")
    assert child["trace_id"] == sent.context.trace_id
    assert child["parent_id"] == sent.context.span_id
    assert child["attributes"]["mcp.protocol.version"] == version
    if mode == "legacy":
        assert session_id and child["attributes"]["mcp.session.id"] == session_id
        assert dict(sent.attributes or {})["mcp.session.id"] == session_id
    else:
        assert session_id is None and "mcp.session.id" not in child["attributes"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_one_trace_spans_client_middle_server_and_backend(
    otel: Recorder, tmp_path: Path, mode: str
) -> None:
    """The middle server's tool calls the backend with an (instrumented) client: its client
    span is the child of its server span, and the backend's span the child of that."""
    backend_spans = tmp_path / "backend.jsonl"
    middle_spans = tmp_path / "middle.jsonl"
    async with (
        http_peer(backend_spans) as backend,
        http_peer(middle_spans, "--backend", backend) as middle,
        Client(middle, mode=mode) as client,
    ):
        instrument(client, **otel.providers)
        result = await client.call_tool("relay", {"a": 4, "b": 5})
    assert result.structured_content == {"result": 9}
    root = otel.one("tools/call relay", SpanKind.CLIENT)
    middle_server = served(read_spans(middle_spans), "tools/call relay")
    middle_client = [
        s
        for s in read_spans(middle_spans)
        if s["name"] == "tools/call add" and s["kind"] == "CLIENT"
    ]
    assert len(middle_client) == 1
    backend_server = served(read_spans(backend_spans), "tools/call add")
    assert root.parent is None
    assert middle_server["parent_id"] == root.context.span_id
    assert middle_client[0]["parent_id"] == middle_server["span_id"]
    assert backend_server["parent_id"] == middle_client[0]["span_id"]
    trace_ids = {root.context.trace_id, middle_server["trace_id"], backend_server["trace_id"]}
    assert trace_ids == {root.context.trace_id}

"""One trace through the gateway: client → gateway (its front server and its backend client)
→ backend, over real HTTP hops, with the front in either era.

The gateway runs in this process (uvicorn on loopback, instrumented with ``instrument(
gateway.server)`` and ``instrument(gateway.host)``); the backend is a traced server process that
writes its spans to a file. Every hop's span is the child of the previous one, one trace id.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.trace import SpanKind

from _loopback import serving
from mcpkit import Client
from mcpkit.contrib.otel import instrument
from mcpkit.gateway import Gateway

from ._peer import http_peer, served
from ._recorder import Recorder, read_spans


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_client_gateway_and_backend_share_one_trace(
    otel: Recorder, tmp_path: Path, mode: str
) -> None:
    backend_spans = tmp_path / "backend.jsonl"
    async with http_peer(backend_spans) as backend:
        gateway = Gateway({"traced": {"url": backend}})
        instrument(gateway.server, **otel.providers)
        instrument(gateway.host, **otel.providers)
        async with serving(gateway.http_app()) as base, Client(f"{base}/mcp", mode=mode) as client:
            instrument(client, **otel.providers)
            result = await client.call_tool("traced__add", {"a": 20, "b": 22})
    assert result.structured_content == {"result": 42}

    sent = otel.one("tools/call traced__add", SpanKind.CLIENT)
    front = otel.one("tools/call traced__add", SpanKind.SERVER)
    routed = otel.one("tools/call add", SpanKind.CLIENT)
    behind = served(read_spans(backend_spans), "tools/call add")
    assert front.parent is not None and front.parent.is_remote
    assert front.parent.span_id == sent.context.span_id
    assert routed.parent is not None and routed.parent.span_id == front.context.span_id
    assert dict(routed.attributes or {})["mcpkit.server.name"] == "traced"
    assert behind["parent_id"] == routed.context.span_id
    trace_ids = {sent.context.trace_id, front.context.trace_id, routed.context.trace_id}
    assert trace_ids == {behind["trace_id"]}

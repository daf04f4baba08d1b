"""One trace from the client, through the gateway, to the backend: the gateway's server span is
the child of the client's span, its span for the backend call the child of that, and the
backend's server span (in its own process) the child of the gateway's client span; W3C trace
context crosses both hops in ``params._meta``. Both eras of the front client."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.trace import SpanKind

from mcpkit import Client
from mcpkit.contrib.otel import instrument, uninstrument
from mcpkit.gateway import Gateway
from otel._recorder import Recorder, read_spans
from otel.test_propagation import http_peer, served
from transports.http_client._harness import running


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_one_trace_spans_client_gateway_and_backend(tmp_path: Path, mode: str) -> None:
    recorder = Recorder()
    backend_spans = tmp_path / "backend.jsonl"
    async with http_peer(backend_spans) as backend:
        gateway = Gateway({"calc": {"url": backend}})
        try:
            instrument(gateway.server, **recorder.providers)
            instrument(gateway.host, **recorder.providers)
            async with (
                running(gateway.http_app(), lifespan="on") as base,
                Client(f"{base}/mcp", mode=mode) as client,
            ):
                instrument(client, **recorder.providers)
                result = await client.call_tool("calc__add", {"a": 2, "b": 3})
        finally:
            uninstrument(gateway.server)
            uninstrument(gateway.host)
    assert result.structured_content == {"result": 5}
    root = recorder.one("tools/call calc__add", SpanKind.CLIENT)
    at_gateway = recorder.one("tools/call calc__add", SpanKind.SERVER)
    to_backend = recorder.one("tools/call add", SpanKind.CLIENT)
    at_backend = served(read_spans(backend_spans), "tools/call add")
    assert root.parent is None
    assert at_gateway.parent is not None and at_gateway.parent.span_id == root.context.span_id
    assert to_backend.parent is not None
    assert to_backend.parent.span_id == at_gateway.context.span_id
    assert at_backend["parent_id"] == to_backend.context.span_id
    assert at_backend["trace_id"] == root.context.trace_id == to_backend.context.trace_id

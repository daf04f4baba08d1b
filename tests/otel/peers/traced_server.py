"""An instrumented mcpkit server in a process of its own, writing its spans as JSON lines.

The tests read the lines to check that the server's span is the child of the client's span in
another process (the trace context crossed the wire in ``params._meta``)::

    python traced_server.py SPANS.jsonl            # stdio
    python traced_server.py SPANS.jsonl --http     # Streamable HTTP; prints "PORT <n>"
    python traced_server.py SPANS.jsonl --http --backend URL
        # a middle hop: its tool "relay" calls "add" on the server at URL (instrumented client)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from mcpkit import Client, Server
from mcpkit.contrib.otel import instrument
from mcpkit.server import ToolError


class JsonLines(SpanExporter):
    """One JSON object per finished span, flushed at once (the test reads it after a call)."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        for span in spans:
            parent = span.parent
            record = {
                "name": span.name,
                "kind": span.kind.name,
                "trace_id": span.context.trace_id if span.context else None,
                "span_id": span.context.span_id if span.context else None,
                "parent_id": parent.span_id if parent else None,
                "parent_remote": parent.is_remote if parent else None,
                "attributes": dict(span.attributes or {}),
                "status": span.status.status_code.name,
            }
            self._out.write(json.dumps(record) + "\n")
        self._out.flush()
        return SpanExportResult.SUCCESS


def build(backend: str | None) -> Server:
    server = Server("traced", "1.0.0")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    def fail() -> str:
        """Always fails (an isError result)."""
        raise ToolError("failed on purpose")

    if backend is not None:

        @server.tool
        async def relay(a: int, b: int) -> int:
            """Ask the backend to add (a client call inside this server's span)."""
            async with Client(backend) as client:
                result = await client.call_tool("add", {"a": a, "b": b})
            value: Any = (result.structured_content or {}).get("result")
            return int(value)

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spans")
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--backend", default=None)
    args = parser.parse_args()

    out = open(args.spans, "a", encoding="utf-8")  # noqa: SIM115  (open for the process's life)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLines(out)))
    instrument(tracer_provider=provider)  # servers and clients of this process
    server = build(args.backend)
    if not args.http:
        server.run()
        return

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.http_app(), log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())

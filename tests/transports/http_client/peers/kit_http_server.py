"""mcpkit's own Server over Streamable HTTP, as a process the tests can kill and restart.

Run with the project's interpreter. It binds its socket before uvicorn starts, prints
``PORT <n>``, and prints ``STREAM-CLOSED`` each time the event store records the end of a
stream (the final response is stored by then), so a test can kill it at exactly that point
(tools print ``SLOW-STARTED`` and ``DETACHED-DONE`` too)::

    python kit_http_server.py [--port N] [--event-store PATH] [--legacy-only] [--stateless]
        [--json] [--retry-ms MS] [--legacy-sse]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from typing import Annotated, Any

import uvicorn

from mcpkit.server import Context, Header, Server
from mcpkit.transports.http import SQLiteEventStore
from mcpkit.types._versions import LEGACY_VERSIONS


class AnnouncingStore(SQLiteEventStore):
    """A SQLite event store that says on stdout when a stream is complete."""

    async def close_stream(self, session_id: str, stream_id: str) -> None:
        await super().close_stream(session_id, stream_id)
        print("STREAM-CLOSED", flush=True)


def build(**options: Any) -> Server:
    server = Server("kit-http", "1.0.0", **options)

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def progress(ctx: Context, steps: int = 3) -> str:
        """Report progress ``steps`` times."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"{steps} steps"

    @server.tool
    async def slow(ctx: Context, seconds: float) -> str:
        """Say so on stdout and in a progress notification (so the answer is an SSE stream),
        then sleep."""
        print("SLOW-STARTED", flush=True)
        await ctx.report_progress(0, None, "sleeping")
        await asyncio.sleep(seconds)
        return "slept"

    @server.tool(read_only=True)
    def weather(region: Annotated[str, Header("Region")]) -> str:
        """Weather for a region (mirrored into Mcp-Param-Region)."""
        return f"sunny in {region}"

    @server.tool
    async def detach(ctx: Context, steps: int = 3, retry_ms: int = 1000) -> str:
        """Close this call's stream (polling), then finish while the client is away."""
        closed = await ctx.close_stream(retry_ms=retry_ms)
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"detached {step}")
        print("DETACHED-DONE", flush=True)  # the answer is stored next (then STREAM-CLOSED)
        return f"closed={closed}"

    @server.tool
    async def change() -> str:
        """Add or remove a tool (notifications/tools/list_changed)."""
        if server.tool_input_schema("extra") is None:
            server.tool(name="extra", description="Comes and goes")(lambda: "extra")
        else:
            server.remove_tool("extra")
        return "changed"

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--event-store", default=None)
    parser.add_argument("--legacy-only", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--retry-ms", type=int, default=None)
    parser.add_argument("--legacy-sse", action="store_true")
    args = parser.parse_args()

    server_options: dict[str, Any] = {}
    if args.legacy_only:
        server_options["supported_versions"] = LEGACY_VERSIONS
    http_options: dict[str, Any] = {
        "stateless": args.stateless,
        "json_response": args.json,
        "legacy_sse": args.legacy_sse,
    }
    if args.event_store:
        http_options["event_store"] = AnnouncingStore(args.event_store)
    if args.retry_ms is not None:
        http_options["retry_ms"] = args.retry_ms
    app = build(**server_options).http_app(**http_options)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())

"""The mcpkit servers the HTTP server tests talk to, with probes into what the tools saw.

Also runnable as a process (``python _asgi_servers.py --port N [--event-store PATH] ...``) for
the tests that need to kill and restart a real server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcpkit.server import Context, Header, Server


@dataclass
class Probe:
    """What the tools report back to the test (events instead of sleeps)."""

    hold_started: asyncio.Event = field(default_factory=asyncio.Event)
    hold_cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    poll_closed: asyncio.Event = field(default_factory=asyncio.Event)
    answers: list[Any] = field(default_factory=list)


def build_server(probe: Probe | None = None, *, name: str = "asgi-tests", **options: Any) -> Server:
    probe = probe or Probe()
    server = Server(name, "1.0.0", **options)

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def progress(ctx: Context, steps: int = 3) -> str:
        """Report progress ``steps`` times, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps)
        return f"{steps} steps"

    @server.tool
    async def hold(ctx: Context) -> str:
        """Block until released (or cancelled: the probe records it)."""
        probe.hold_started.set()
        try:
            await probe.release.wait()
        except asyncio.CancelledError:
            probe.hold_cancelled.set()
            raise
        return "released"

    @server.tool
    async def ask(ctx: Context) -> str:
        """Ask the user a question (a request on the stream, or MRTR in 2026)."""
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        probe.answers.append(answer)
        return f"hello {(answer.content or {}).get('name')}"

    @server.tool
    async def poll(ctx: Context, steps: int = 3, retry_ms: int = 50) -> str:
        """Close the SSE connection (polling), then keep sending on the stream."""
        closed = await ctx.close_stream(retry_ms=retry_ms)
        probe.poll_closed.set()
        await probe.release.wait()
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps)
        return f"closed={closed}"

    @server.tool
    def region(region: Annotated[str, Header("Region")], size: int = 1) -> str:
        """Mirror ``region`` into the Mcp-Param-Region header."""
        return f"{region}/{size}"

    @server.tool
    async def change() -> str:
        """Add or remove a tool (tools/list_changed)."""
        if server.tool_input_schema("extra") is None:
            server.tool(name="extra", description="Comes and goes")(lambda: "extra")
        else:
            server.remove_tool("extra")
        return "changed"

    @server.tool
    async def touch(uri: str) -> str:
        """Announce that a resource changed (resources/updated)."""
        await server.notify_resource_updated(uri)
        return "touched"

    @server.resource("test://static", mime_type="text/plain")
    def static() -> str:
        return "static text"

    return server


def _process_server() -> Server:
    server = build_server()

    @server.tool
    async def burst(ctx: Context, count: int = 20) -> str:
        """Send ``count`` progress events as fast as possible, then answer."""
        for step in range(1, count + 1):
            await ctx.report_progress(step, count, f"event {step}")
        return f"burst of {count}"

    @server.tool
    async def polled_burst(ctx: Context, count: int = 20, retry_ms: int = 1500) -> str:
        """Close the connection (the client waits ``retry_ms``), then send ``count`` progress
        events and answer while nobody is connected: all of it goes to the event store."""
        await ctx.close_stream(retry_ms=retry_ms)
        for step in range(1, count + 1):
            await ctx.report_progress(step, count, f"event {step}")
        return f"polled burst of {count}"

    @server.tool
    async def tasks() -> int:
        """How many asyncio tasks this process has (the abandoned-question tests bound it)."""
        return len(asyncio.all_tasks())

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--event-store", default=None)
    parser.add_argument("--header-timeout", type=float, default=None)
    parser.add_argument(
        "--uvicorn", action="append", default=[], help="NAME=JSON, a serve option (repeatable)"
    )
    args = parser.parse_args()
    options: dict[str, Any] = {}
    if args.event_store:
        options["event_store"] = args.event_store
    serve_options: dict[str, Any] = {}
    if args.header_timeout is not None:
        serve_options["header_timeout"] = args.header_timeout
    for item in args.uvicorn:
        name, _, value = item.partition("=")
        serve_options[name] = json.loads(value)
    if serve_options:
        options["uvicorn_options"] = serve_options
    _process_server().run("http", port=args.port, log_level="info", **options)


if __name__ == "__main__":
    main()

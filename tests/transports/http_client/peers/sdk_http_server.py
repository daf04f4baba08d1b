"""A Streamable HTTP (or 2024-11-05 HTTP+SSE) server built with the official SDK (mcp 2.3.0).

Run with the peer venv's interpreter. It binds its socket before starting uvicorn and prints
``PORT <n>`` on stdout, so the test can connect at once (connections wait in the backlog):

    .peers/mcp-venv/bin/python sdk_http_server.py [--port N] [--stateless] [--json]
        [--event-store] [--retry-ms MS] [--sse]
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Annotated, Any

import anyio
import uvicorn
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from pydantic import BaseModel, Field

mcp = MCPServer("sdk-http", version="2.3.0-peer", instructions="SDK peer for HTTP client tests.")
stats = {"deletes": 0}


class MemoryEvents(EventStore):
    """The smallest event store that resumes: every event of every stream, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        found = [i for i, (eid, _, _) in enumerate(self.events) if eid == last_event_id]
        if not found:
            return None
        stream_id = self.events[found[0]][1]
        for eid, sid, message in self.events[found[0] + 1 :]:
            if sid == stream_id and message is not None:
                await send_callback(EventMessage(message, eid))
        return stream_id


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report progress ``steps`` times, logging each step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
        await ctx.info(f"step {i} of {steps}")
    return "done"


@mcp.tool()
def weather(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """Weather for a region (mirrored into Mcp-Param-Region)."""
    return f"sunny in {region}"


@mcp.tool()
async def slow(seconds: float) -> str:
    """Say so on stdout (the test waits for it), then sleep."""
    print("SLOW-STARTED", flush=True)
    await anyio.sleep(seconds)
    return "slept"


@mcp.tool()
async def reconnect(ctx: Context) -> str:
    """Close this call's SSE stream mid-call (needs --event-store); answer after a pause."""
    await ctx.info("before the break")
    await ctx.close_sse_stream()
    await anyio.sleep(0.2)
    await ctx.info("after the break")
    return "resumed"


@mcp.tool()
async def announce(ctx: Context) -> str:
    """Send tools/list_changed outside any request's stream (the legacy GET stream)."""
    await ctx.session.send_tool_list_changed()
    return "announced"


class Profile(BaseModel):
    name: str = "Ada"


def ask_profile() -> Elicit[Profile]:
    return Elicit("Who are you?", Profile)


@mcp.tool()
def whoami(profile: Annotated[ElicitationResult[Profile], Resolve(ask_profile)]) -> str:
    """Elicit a name (a server->client request on legacy sessions)."""
    if isinstance(profile, AcceptedElicitation):
        return f"hello {profile.data.name}"
    return f"no profile: {profile.action}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--event-store", action="store_true")
    parser.add_argument("--retry-ms", type=int, default=None)
    parser.add_argument("--sse", action="store_true", help="the 2024-11-05 HTTP+SSE transport")
    args = parser.parse_args()

    if args.sse:
        app = mcp.sse_app(sse_path="/sse", message_path="/messages/")
    else:
        app = mcp.streamable_http_app(
            streamable_http_path="/mcp",
            json_response=args.json,
            stateless_http=args.stateless,
            event_store=MemoryEvents() if args.event_store else None,
            retry_interval=args.retry_ms,
        )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    anyio.run(lambda: server.serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())

"""A gateway backend built with the official SDK (mcp 2.3.0), over Streamable HTTP.

Run with the peer venv's interpreter; it binds a free port and prints ``PORT <n>``. The gateway
talks to it in the handshake era (``"mode": "legacy"`` in its config entry).
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Annotated

import anyio
import uvicorn
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel

mcp = MCPServer("sdk-weather", version="2.3.0-peer")


@mcp.tool()
def forecast(city: str) -> str:
    """The forecast for a city."""
    return f"sunny in {city}"


@mcp.tool()
async def steps(n: int, ctx: Context) -> str:
    """Report progress ``n`` times."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"{n} steps"


class Profile(BaseModel):
    name: str = "Ada"


def ask_profile() -> Elicit[Profile]:
    return Elicit("Who are you?", Profile)


@mcp.tool()
def whoami(profile: Annotated[ElicitationResult[Profile], Resolve(ask_profile)]) -> str:
    """Elicit a name."""
    if isinstance(profile, AcceptedElicitation):
        return f"hello {profile.data.name}"
    return f"no profile: {profile.action}"


@mcp.resource("weather://today")
def today() -> str:
    """Today's weather."""
    return "Sunny, 21 C"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    app = mcp.streamable_http_app(streamable_http_path="/mcp")
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

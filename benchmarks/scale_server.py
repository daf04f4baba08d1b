"""The server benchmarks/scale.py runs as each worker: mcpkit's own serve path.

``python scale_server.py [--stack speed|default] [--json | --sse] [--redis URL --prefix P |
--event-store PATH]`` serves the
benchmark tools with ``server.run("http", port=0)`` and prints mcpkit's usual
``mcpkit: serving NAME at URL`` line. ``--stack default`` pins uvicorn's pure-Python pieces (h11,
the asyncio loop), ``speed`` takes httptools and uvloop (``mcpkit[speed]``, what ``serve`` picks
when they are installed). A listening socket handed down in ``MCPKIT_LISTEN_FD`` is served
instead of a new port: that is how several workers share one port (``mcpkit run --workers``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from toolset import BASIC_TOOLS

from mcpkit.server import Server

STACKS = {
    "default": {"http": "h11", "loop": "asyncio"},
    "speed": {"http": "httptools", "loop": "uvloop"},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stack", choices=sorted(STACKS), default="speed")
    parser.add_argument("--json", action="store_true", help="legacy answers as application/json")
    parser.add_argument("--redis", default=None, help="share state on this Redis (RedisState)")
    parser.add_argument("--prefix", default="mcpkit-bench:")
    parser.add_argument("--sse", action="store_true", help="every answer as SSE (sse_after=0)")
    parser.add_argument("--event-store", default=None, help="a SQLite event store at this path")
    args = parser.parse_args()
    server = Server("bench-scale", version="0.1.0")
    for fn, description in BASIC_TOOLS:
        server.tool(fn, description=description)
    options: dict[str, Any] = {"json_response": args.json}
    if args.sse:
        options["sse_after"] = 0.0
    if args.event_store:
        options["event_store"] = args.event_store
    if args.redis:
        from mcpkit.contrib.redis import RedisState

        options["state"] = RedisState(args.redis, prefix=args.prefix)
    uvicorn_options = {**STACKS[args.stack], "access_log": False}
    server.run("http", port=0, log_level="warning", uvicorn_options=uvicorn_options, **options)


if __name__ == "__main__":
    main()

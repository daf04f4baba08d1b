"""Benchmark peer: FastMCP 4.2.x (run from .peers/fastmcp-venv).

The tools of benchmarks/toolset.py; the command line of benchmarks/httpserve.ServerArgs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastmcp import FastMCP
from httpserve import PATH, ServerArgs, run_uvicorn
from toolset import BASIC_TOOLS, many_tools, sync_echo

args = ServerArgs(sys.argv)
app = FastMCP("bench-fastmcp")
for fn, description in [
    *BASIC_TOOLS,
    (sync_echo, "Echo on a worker thread."),
    *many_tools(args.tools),
]:
    app.tool(fn, description=description)

if __name__ == "__main__":
    if args.http:
        asgi = app.http_app(path=PATH, json_response=args.json, stateless_http=args.stateless)
        run_uvicorn(asgi, args.port)
    else:
        app.run("stdio", show_banner=False)

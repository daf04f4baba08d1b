"""Benchmark peer: the official Python SDK (mcp==2.3.0, run from .peers/mcp-venv).

The tools of benchmarks/toolset.py; the command line of benchmarks/httpserve.ServerArgs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from httpserve import ServerArgs, run_uvicorn
from mcp.server.mcpserver import MCPServer
from toolset import BASIC_TOOLS, many_tools, sync_echo

args = ServerArgs(sys.argv)
app = MCPServer("bench-mcp", version="2.3.0")
for fn, description in [
    *BASIC_TOOLS,
    (sync_echo, "Echo on a worker thread."),
    *many_tools(args.tools),
]:
    app.add_tool(fn, description=description)

if __name__ == "__main__":
    if args.http:
        asgi = app.streamable_http_app(json_response=args.json, stateless_http=args.stateless)
        run_uvicorn(asgi, args.port)
    else:
        app.run("stdio")

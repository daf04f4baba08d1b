"""Benchmark server: mcpkit (run from the project's .venv).

The tools of benchmarks/toolset.py; the command line of benchmarks/httpserve.ServerArgs.
stdio goes through ``Server.run()``, exactly as a user's server would.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from httpserve import ServerArgs, run_uvicorn
from toolset import BASIC_TOOLS, many_tools, sync_echo

from mcpkit.server import Server

args = ServerArgs(sys.argv)
app = Server("bench-mcpkit", version="0.1.0")
for fn, description in [
    *BASIC_TOOLS,
    (sync_echo, "Echo on a worker thread."),
    *many_tools(args.tools),
]:
    app.tool(fn, description=description)

if __name__ == "__main__":
    if args.http:
        from mcpkit.server._http_entry import asgi_app

        # mcpkit answers a result that is ready at once as JSON even in SSE mode (the spec lets
        # the server choose); sse_after=0 forces the SSE path so "legacy-sse" measures SSE.
        options = {"json_response": True} if args.json else {"sse_after": 0.0}
        run_uvicorn(asgi_app(app, stateless=args.stateless, **options), args.port)
    else:
        app.run()

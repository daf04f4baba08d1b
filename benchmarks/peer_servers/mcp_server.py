"""Benchmark peer: the official Python SDK (mcp==2.3.0, run from .peers/mcp-venv).

Exposes the same two tools as the raw floor and mcpkit's benchmark server: `echo(text)` and
`add(a, b)`. stdio by default; `--http --port N` serves Streamable HTTP on 127.0.0.1:N/mcp.
"""

from __future__ import annotations

import argparse

from mcp.server.mcpserver import MCPServer

app = MCPServer("bench-mcp", version="2.3.0")


@app.tool(description="Return the given text unchanged.")
def echo(text: str) -> str:
    return text


@app.tool(description="Add two integers.")
def add(a: int, b: int) -> int:
    return a + b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP, not stdio")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    if args.http:
        app.run("streamable-http", host="127.0.0.1", port=args.port)
    else:
        app.run("stdio")


if __name__ == "__main__":
    main()

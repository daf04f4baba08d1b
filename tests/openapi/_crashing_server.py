"""A stdio MCP server whose ``crash`` tool ends its own process mid-call (for the facade's 502)."""

from __future__ import annotations

import os

from mcpkit.server import Server

server = Server("crashing")


@server.tool
def crash() -> str:
    """Exit the server process without answering."""
    os._exit(3)


@server.tool
def ok() -> str:
    return "fine"


if __name__ == "__main__":
    server.run()

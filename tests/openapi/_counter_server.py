"""An MCP server whose tool leaves a trace: the REST guard tests check a refused request ran
nothing (stdio when run)."""

from __future__ import annotations

from mcpkit.server import Server

server = Server("counter", "1.0.0")
CALLS = [0]


@server.tool
def bump() -> int:
    """Count one call; answer the count."""
    CALLS[0] += 1
    return CALLS[0]


@server.tool
def calls() -> int:
    """How many times ``bump`` ran."""
    return CALLS[0]


if __name__ == "__main__":
    server.run()

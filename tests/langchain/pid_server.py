"""A stdio server that says which process answers (to see connections being reused)."""

from __future__ import annotations

import os

from mcpkit.server import Server

server = Server("pid", "1.0.0")


@server.tool(read_only=True)
def whoami() -> int:
    """The server process's id."""
    return os.getpid()


@server.tool(destructive=True)
def wipe() -> str:
    """A tool the host filters out."""
    return "wiped"


if __name__ == "__main__":
    server.run()

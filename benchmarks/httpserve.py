"""Serve an ASGI app the same way for every implementation: uvicorn, h11, the asyncio loop.

The project venv also has httptools and uvloop, the peers' venvs do not; uvicorn would pick the
faster ones where it finds them. Pinning them here keeps "the same HTTP server" true. Access
logs are off everywhere (a deployment choice, not a library cost).
"""

from __future__ import annotations

from typing import Any

HOST = "127.0.0.1"
PATH = "/mcp"


def run_uvicorn(app: Any, port: int) -> None:
    import uvicorn

    uvicorn.run(
        app,
        host=HOST,
        port=port,
        http="h11",
        loop="asyncio",
        lifespan="on",
        log_level="warning",
        access_log=False,
    )


class ServerArgs:
    """The command line every benchmark server accepts.

    ``--http --port N`` serves Streamable HTTP on 127.0.0.1:N/mcp (default: stdio); ``--json``
    answers POSTs with application/json instead of an SSE stream; ``--stateless`` turns legacy
    sessions off where a library needs that for 2026-07-28 stateless requests; ``--tools N``
    adds N generated tools (for tools/list).
    """

    def __init__(self, argv: list[str]) -> None:
        self.http = "--http" in argv
        self.port = int(argv[argv.index("--port") + 1]) if "--port" in argv else 8000
        self.json = "--json" in argv
        self.stateless = "--stateless" in argv
        self.tools = int(argv[argv.index("--tools") + 1]) if "--tools" in argv else 0

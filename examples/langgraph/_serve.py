"""How the example servers run: stdio by default, or Streamable HTTP on loopback.

    python profile_server.py                    # stdio, both protocol eras
    python inventory_server.py --http --port 0  # HTTP on 127.0.0.1, prints "PORT <n>" when bound
    python ranking_server.py --legacy-only      # only the handshake era (2024-11-05 … 2025-11-25)

The HTTP socket is bound before uvicorn starts and its port printed, so a client may connect as
soon as it has read that line.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from collections.abc import Callable

from mcpkit.server import Server
from mcpkit.types._versions import ALL_VERSIONS, LEGACY_VERSIONS

__all__ = ["main", "versions"]


def versions(legacy_only: bool) -> tuple[str, ...]:
    return tuple(LEGACY_VERSIONS) if legacy_only else tuple(ALL_VERSIONS)


def main(build: Callable[[bool], Server]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP")
    parser.add_argument("--port", type=int, default=0, help="HTTP port (0: any free port)")
    parser.add_argument("--legacy-only", action="store_true", help="only the handshake era")
    args = parser.parse_args()
    server = build(args.legacy_only)
    if not args.http:
        server.run()
        return
    import uvicorn

    from mcpkit.transports.http._server.serve import uvicorn_config

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn_config(server.http_app(), log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))

"""A gateway backend: mcpkit's own server over Streamable HTTP (both eras).

Run with the project's interpreter; it binds a free port and prints ``PORT <n>``. With
``--require-token T`` every request must carry ``Authorization: Bearer T`` (the gateway's
credential for it), and it records the tokens it saw in the ``whoami`` tool's answer.
"""

from __future__ import annotations

import argparse
import socket
import sys

import uvicorn

from mcpkit.server import Context, Server

server = Server("crm", "2.0.0")
CUSTOMERS = ["Ada Lovelace", "Alan Turing", "Grace Hopper"]


@server.tool(read_only=True)
def search_customers(query: str) -> list[str]:
    """Customers whose name contains ``query``."""
    return [c for c in CUSTOMERS if query.lower() in c.lower()]


@server.tool
async def whoami(ctx: Context) -> str:
    """Which client this backend sees (the gateway's identity, not the front client's)."""
    info = ctx.client_info or {}
    return f"{info.get('name')}"


@server.prompt
def greeting(name: str) -> str:
    """A greeting."""
    return f"Hello {name}!"


class RequireToken:
    def __init__(self, app, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.lifespan = getattr(app, "lifespan", None)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            values = [v for k, v in scope["headers"] if k == b"authorization"]
            if values != [self.expected]:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--require-token")
    args = parser.parse_args()
    app = server.http_app()
    outer = RequireToken(app, args.require_token) if args.require_token else app
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(outer, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())

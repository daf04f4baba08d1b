"""One worker of the deployment under test: ``python worker.py [--redis URL --prefix P]``.

Run by :mod:`_deployment` three times behind HAProxy. It is the real serve path
(``server.run("http")`` on uvicorn, port 0); the test reads the port from the line
``mcpkit: serving ... at URL`` on stderr. With ``--redis`` the workers share their state through
``RedisState`` (sessions, event logs, the key ring, tasks, fan-out). Every tool answers with this
process's pid, so the tests can see which worker served what.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from mcpkit.server import Context, Server
from mcpkit.server.tasks import set_status_message

LEASE_SECONDS = 2.0
"""The Redis worker lease: short, so a killed worker's task is declared failed quickly."""


def build_server() -> Server:
    server = Server("deploy-tests", "1.0.0", tasks=True)

    @server.tool
    def whoami() -> str:
        """The pid of the worker that served this call."""
        return str(os.getpid())

    @server.tool
    async def ask(ctx: Context) -> str:
        """Ask for a name; say which worker asked and which one finished.

        In 2026 the body runs once per round: ``memo`` carries the first round's pid to the last
        one inside the sealed ``requestState``. In a legacy session one body asks and finishes.
        """
        asked_on = await ctx.memo("asked_on", os.getpid)
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        name = (answer.content or {}).get("name")
        return f"{name} asked_on={asked_on} finished_on={os.getpid()}"

    @server.tool
    async def touch(uri: str) -> str:
        """Announce that ``uri`` changed (to subscribers on every worker)."""
        await server.notify_resource_updated(uri)
        return str(os.getpid())

    @server.tool(task_support="optional")
    async def crunch(ctx: Context, hold: bool = False) -> str:
        """A task: says where it runs in its status message; ``hold`` keeps it running forever
        (until cancelled or its worker dies)."""
        await set_status_message(ctx, f"running on {os.getpid()}")
        if hold:
            await asyncio.Event().wait()
        return f"crunched on {os.getpid()}"

    @server.tool
    async def stall(ctx: Context) -> str:
        """Report progress once (its message is this worker's pid), then never answer: the
        request is answered only if its worker dies (or it is cancelled)."""
        await ctx.report_progress(1, 2, str(os.getpid()))
        await asyncio.Event().wait()
        return "unreachable"

    @server.resource("test://feed/{n}", mime_type="text/plain")
    def feed(n: str) -> str:
        return f"item {n}"

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--redis", default=None, help="share state on this Redis URL")
    parser.add_argument("--prefix", default="mcpkit-deploy-tests:")
    parser.add_argument("--forwarded-allow-ips", default=None)
    parser.add_argument("--max-connections-per-peer", type=int, default=None)
    args = parser.parse_args()
    options: dict[str, Any] = {"forwarded_allow_ips": args.forwarded_allow_ips}
    if args.max_connections_per_peer is not None:
        options["max_connections_per_peer"] = args.max_connections_per_peer
    if args.redis:
        from mcpkit.contrib.redis import RedisState

        options["state"] = RedisState(args.redis, prefix=args.prefix, worker_lease=LEASE_SECONDS)
    build_server().run("http", port=0, log_level=args.log_level, **options)


if __name__ == "__main__":
    main()

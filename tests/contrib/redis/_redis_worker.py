"""One worker of a multi-worker deployment, run as its own process by the Redis tests.

``python _redis_worker.py --port N --redis-url URL --prefix P [--lease S] [--sse-after S]``
serves the tools below with ``server.run("http", state=RedisState(...))``: the path users run.
Every tool result names the worker's pid, so a test can tell which worker served what.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from mcpkit.contrib.redis import RedisState
from mcpkit.server import Context, Server

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build() -> Server:
    server = Server("redis-workers", "1.0.0", tasks=True)
    pid = os.getpid()

    @server.tool
    def whoami() -> int:
        """This worker's process id."""
        return pid

    @server.tool
    async def whoami_now() -> int:
        """This worker's process id, answered without waiting (with ``sse_after=0``: one SSE body
        whose every event is known at once)."""
        return pid

    @server.tool
    async def ask(ctx: Context) -> str:
        """Ask the user for a name (a server request in legacy sessions, MRTR in 2026)."""
        answer = await ctx.elicit("Your name?", NAME, key="who")
        return f"hello {(answer.content or {}).get('name')} from {pid}"

    @server.tool(task_support="optional")
    async def ask_task(ctx: Context) -> str:
        """The same question, run as a task when the client asks for one."""
        answer = await ctx.elicit("Your name?", NAME, key="who")
        return f"task says hello {(answer.content or {}).get('name')}"

    @server.tool(task_support="optional")
    async def long_job() -> str:
        """Runs until cancelled (or its worker dies)."""
        await asyncio.Event().wait()
        return "never"

    @server.tool
    async def hold() -> str:
        """Runs until cancelled."""
        await asyncio.Event().wait()
        return "never"

    @server.tool
    async def drip(ctx: Context, count: int = 10, every: float = 0.1) -> str:
        """Report progress ``count`` times, ``every`` seconds apart, then answer."""
        for step in range(1, count + 1):
            await ctx.report_progress(step, count, f"step {step}")
            await asyncio.sleep(every)  # a slow job: the client may leave and resume meanwhile
        return f"dripped {count} on {pid}"

    @server.tool
    async def touch(uri: str) -> int:
        """Announce that ``uri`` changed (to every subscriber, on every worker)."""
        await server.notify_resource_updated(uri)
        return pid

    @server.tool
    async def change() -> int:
        """Announce that the tool list changed."""
        await server.notify_list_changed("tools")
        return pid

    @server.resource("test://watched", mime_type="text/plain")
    def watched() -> str:
        return "watched"

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--lease", type=float, default=10.0)
    parser.add_argument("--sse-after", type=float, default=0.05)
    args = parser.parse_args()
    state = RedisState(args.redis_url, prefix=args.prefix, worker_lease=args.lease)
    build().run("http", port=args.port, log_level="warning", state=state, sse_after=args.sse_after)


if __name__ == "__main__":
    main()

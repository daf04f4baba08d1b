"""The server the soak run talks to: ``soak_server.py stdio`` or ``soak_server.py http PORT``.

Tools: ``echo(seq)`` answers its argument (so the driver can prove no answer is lost or
mixed up), ``chatty(seq)`` sends progress first (an SSE answer over HTTP), ``pid()`` names the
process (so the driver can kill it mid-call), ``block()`` waits until cancelled (an in-flight
call at the moment of a kill), ``held()`` says it runs and then waits (a stream the driver
cuts), ``ask()`` asks a question the driver hangs up on. Over HTTP it is served on the default path
(``mcpkit.transports.http.serve``, uvicorn) with short session timeouts, and ``GET /soak-stats``
reports what the soak compares with its baseline: RSS, open file descriptors, asyncio tasks and
legacy sessions.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from mcpkit.server import Context, Server


def build() -> Server:
    server = Server("soak", "1.0.0")

    @server.tool
    def echo(seq: int, pad: str = "") -> dict[str, Any]:
        """Return ``seq`` (and the padding, to move some bytes)."""
        return {"seq": seq, "pad": pad}

    @server.tool
    async def chatty(ctx: Context, seq: int) -> dict[str, Any]:
        """Report progress twice, then return ``seq``."""
        await ctx.report_progress(1, 2)
        await ctx.report_progress(2, 2)
        return {"seq": seq}

    @server.tool
    def pid() -> int:
        """This server's process id."""
        return os.getpid()

    @server.tool
    async def block() -> str:
        """Wait until cancelled (or killed)."""
        await asyncio.Event().wait()
        return "unreachable"

    @server.tool
    async def held(ctx: Context) -> str:
        """Report progress (the caller knows the call runs), then wait until cancelled."""
        await ctx.report_progress(1, None, "holding")
        await asyncio.Event().wait()
        return "unreachable"

    @server.tool
    async def ask(ctx: Context) -> str:
        """Ask the user a question (elicitation) and wait for the answer."""
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"hello {(answer.content or {}).get('name')}"

    return server


def rss_bytes(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def fd_count(pid: int | str = "self") -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class StatsApp:
    """``GET /soak-stats`` in front of the MCP app; everything else (lifespan too) passes on."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/soak-stats":
            body = json.dumps(
                {
                    "rss": rss_bytes(),
                    "fds": fd_count(),
                    "tasks": len(asyncio.all_tasks()),
                    "app_tasks": self.inner.task_count,
                    "sessions": self.inner.session_count,
                }
            ).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.inner(scope, receive, send)


def make_noisy(server: Server) -> None:
    """``soak_server.py noisy``: a gateway backend that turns slow and noisy on
    ``start_noise()``: its ``tools/list`` never answers from then on, and it announces a tools
    ``list_changed`` 20 times a second (the gateway must neither stall nor pile up work)."""
    from mcpkit.server.middleware import CallNext, RequestView

    noisy = asyncio.Event()
    tasks: set[asyncio.Task[Any]] = set()

    async def slow_lists(request: RequestView, call_next: CallNext) -> Any:
        if request.method == "tools/list" and noisy.is_set():
            await asyncio.Event().wait()
        return await call_next()

    async def announce() -> None:
        while True:
            await server.notify_list_changed("tools")
            await asyncio.sleep(0.05)

    @server.tool
    async def start_noise() -> str:
        """From now on: listings hang, list_changed 20 times a second."""
        if not noisy.is_set():
            noisy.set()
            task = asyncio.get_running_loop().create_task(announce())
            tasks.add(task)
        return "noisy"

    server.add_middleware(slow_lists)


def main() -> None:
    server = build()
    if sys.argv[1] in ("stdio", "noisy"):
        if sys.argv[1] == "noisy":
            make_noisy(server)
        server.run("stdio")
        return
    from mcpkit.transports.http._server.serve import serve

    port = int(sys.argv[2])
    app = server.http_app(session_idle_timeout=1.0, reap_interval=0.2)
    serve(StatsApp(app), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()

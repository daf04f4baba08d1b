"""One worker of the deployment under test: ``python worker.py [--state-keys]``.

Run by :mod:`_deployment` three times behind HAProxy. It is the real serve path
(``server.run("http")`` on uvicorn, port 0); the test reads the port from the line
``mcpkit: serving ... at URL`` on stderr. Every tool answers with this process's pid, so the tests
can see which worker served what.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from mcpkit.server import Context, Server


def build_server() -> Server:
    server = Server("deploy-tests", "1.0.0")

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

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()
    options: dict[str, Any] = {}
    build_server().run("http", port=0, log_level=args.log_level, **options)


if __name__ == "__main__":
    main()

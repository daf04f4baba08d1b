"""A fixture server built with mcpkit's own ``Server``: stdio (both eras) or in-process.

``build()`` returns a fresh server (for ``Client(server)``); running the file serves it on stdio.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit.server import Context, Server
from mcpkit.server._prompts import Message

PAGE_SIZE = 2
TOOLS_TTL_MS = 60_000


def build() -> Server:
    server = Server(
        "kit-everything",
        "2.0.0",
        instructions="mcpkit's own fixture for the client tests.",
        page_size=PAGE_SIZE,
        cache_policy={"tools/list": (TOOLS_TTL_MS, "public")},
    )
    cancelled = asyncio.Event()

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool(read_only=True)
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    @server.tool
    def shout(text: str) -> str:
        """Upper-case the text (not read-only)."""
        return text.upper()

    @server.tool
    async def book(city: str, ctx: Context) -> str:
        """Ask for the number of nights (elicitation with a default)."""
        answer = await ctx.elicit(
            "How many nights?",
            {"type": "object", "properties": {"nights": {"type": "integer", "default": 2}}},
        )
        if not answer.accepted:
            return "cancelled"
        return f"{answer.content['nights']} nights in {city}"

    @server.tool
    async def slow(seconds: float) -> str:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "slept"

    @server.tool
    async def was_cancelled(wait: float) -> bool:
        try:
            await asyncio.wait_for(cancelled.wait(), wait)
        except TimeoutError:
            pass
        return cancelled.is_set()

    @server.tool
    async def progress(steps: int, ctx: Context) -> str:
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps, f"step {i}")
        return "done"

    @server.tool
    async def change_tools() -> str:
        """Announce a change of the tool list."""
        await server.notify_list_changed("tools")
        return "changed"

    @server.tool
    async def touch(uri: str) -> str:
        await server.notify_resource_updated(uri)
        return "touched"

    @server.resource("test://static", mime_type="text/plain")
    def static() -> str:
        return "static text"

    @server.prompt
    def greet(name: str) -> list[Any]:
        return [Message(f"Hello, {name}!")]

    return server


if __name__ == "__main__":
    build().run()

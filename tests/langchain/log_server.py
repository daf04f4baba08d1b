"""A stdio server whose ``hold`` calls log and report progress while several are open.

``hold(tag, n)`` logs ``"<tag> started"``, waits until ``n`` calls have started in this process
(so they are open together, without sleeping), reports progress, logs ``"<tag> done"``.
"""

from __future__ import annotations

import asyncio

from mcpkit.server import Context, Server

server = Server("logs", "1.0.0")
started: list[str] = []
changed = asyncio.Condition()


@server.tool
async def hold(tag: str, n: int, ctx: Context) -> str:
    """Logs, waits for ``n`` open calls, reports progress, logs again."""
    await ctx.info(f"{tag} started")
    async with changed:
        started.append(tag)
        changed.notify_all()
        await changed.wait_for(lambda: len(started) >= n)
    await ctx.report_progress(1, 1, tag)
    await ctx.info(f"{tag} done")
    return tag


if __name__ == "__main__":
    server.run()

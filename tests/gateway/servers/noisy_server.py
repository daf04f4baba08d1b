"""A gateway backend that is slow and noisy on demand: after ``start_noise``, every
``tools/list`` it gets never answers, and it announces a tools ``list_changed`` every 0.05 s.

Run with the project's interpreter: ``python noisy_server.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit.server import Server
from mcpkit.server.middleware import CallNext, RequestView

server = Server("noisy", "1.0.0")
NOISY = asyncio.Event()
LISTS_WHILE_NOISY = [0]
NOTES_SENT = [0]
_tasks: set[asyncio.Task[Any]] = set()


async def slow_lists(request: RequestView, call_next: CallNext) -> Any:
    if request.method == "tools/list" and NOISY.is_set():
        LISTS_WHILE_NOISY[0] += 1
        await asyncio.Event().wait()  # a listing that never ends
    return await call_next()


server.add_middleware(slow_lists)


async def _announce() -> None:
    while True:
        await server.notify_list_changed("tools")
        NOTES_SENT[0] += 1
        await asyncio.sleep(0.05)


@server.tool
async def start_noise() -> str:
    """From now on: listings hang, list_changed 20 times a second."""
    NOISY.set()
    task = asyncio.get_running_loop().create_task(_announce())
    _tasks.add(task)
    return "noisy"


@server.tool
async def noise() -> dict[str, int]:
    """How many list_changed were sent and listings received since the noise started."""
    return {"notes": NOTES_SENT[0], "lists": LISTS_WHILE_NOISY[0]}


if __name__ == "__main__":
    server.run()

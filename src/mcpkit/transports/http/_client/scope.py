"""HTTP work that stops when its owner closes, whoever's task is doing it.

A request's HTTP exchange runs in the caller's task (so cancelling the caller closes the
connection: the 2026 cancel signal) but must also end when the transport or session is closed
from elsewhere — otherwise a caller blocked on a silent server would outlive its client, and the
connection pool would be closed under it. :meth:`WorkScope.run` runs the work as a child task
that either end can stop: the caller's cancellation propagates into it, and :meth:`aclose`
cancels it, in which case the caller gets :class:`~mcpkit.protocol._errors.ConnectionClosed`.
Background readers (the GET stream, the 2024-11-05 event stream) are spawned here too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Final, TypeVar

from mcpkit.protocol._errors import ConnectionClosed

__all__ = ["CLOSE_WAIT", "WorkScope"]

logger = logging.getLogger("mcpkit.http.client")

CLOSE_WAIT: Final = 5.0
"""Seconds closing waits for cancelled work (a task that ignores cancellation is reported)."""

T = TypeVar("T")


class WorkScope:
    __slots__ = ("_closed", "_tasks", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self._closed = False
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def closed(self) -> bool:
        return self._closed

    def closed_error(self) -> ConnectionClosed:
        return ConnectionClosed(f"{self.what} was closed")

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Await ``work`` in a child task; ``ConnectionClosed`` if the scope closes first."""
        if self._closed:
            work.close()
            raise self.closed_error()
        task = asyncio.ensure_future(work)
        self._track(task)
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._closed and current is not None and current.cancelling() == 0:
                raise self.closed_error() from None  # stopped by aclose, not by our caller
            raise

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Start a background task owned by the scope (cancelled by :meth:`aclose`)."""
        if self._closed:
            work.close()
            raise self.closed_error()
        task = asyncio.ensure_future(work)
        task.set_name(name)
        self._track(task)
        task.add_done_callback(_report)
        return task

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Stop all work and wait for it (bounded by :data:`CLOSE_WAIT`). Idempotent."""
        self._closed = True
        current = asyncio.current_task()
        tasks = [task for task in self._tasks if task is not current]
        for task in tasks:
            task.cancel()
        if not tasks:
            return
        _, stuck = await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        if stuck:
            logger.error(
                "%s: %d task(s) ignored cancellation and were left running", self.what, len(stuck)
            )


def _report(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:  # readers catch; this is a bug
        logger.error("%s failed", task.get_name(), exc_info=task.exception())

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

from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._errors import ConnectionClosed

__all__ = ["CLOSE_WAIT", "WorkScope"]

logger = logging.getLogger("mcpkit.http.client")

CLOSE_WAIT: Final = 5.0
"""Seconds closing waits for cancelled work (a task that ignores cancellation is reported)."""

T = TypeVar("T")


class WorkScope:
    """A :class:`~mcpkit._runtime.tasks.TaskSet` that refuses work once closed; see the module
    docstring. The set is made on first use (a transport may be built outside any loop)."""

    __slots__ = ("_closed", "_tasks", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self._closed = False
        self._tasks: TaskSet | None = None

    def _owner(self) -> TaskSet:
        if self._tasks is None:
            self._tasks = TaskSet(asyncio.get_running_loop(), self.what, logger)
        return self._tasks

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
        owner = self._owner()
        task = owner.start(work)  # its outcome is our caller's: not logged as a stray failure
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._closed and current is not None and current.cancelling() == 0:
                raise self.closed_error() from None  # stopped by aclose, not by our caller
            raise
        finally:
            owner.forget(task)

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Start a background task owned by the scope (cancelled by :meth:`aclose`)."""
        if self._closed:
            work.close()
            raise self.closed_error()
        return self._owner().spawn(work, name=name)  # a failure is logged: readers catch

    async def aclose(self) -> None:
        """Stop all work and wait for it (bounded by :data:`CLOSE_WAIT`). Idempotent."""
        self._closed = True
        if self._tasks is not None:
            await self._tasks.aclose(timeout=CLOSE_WAIT)

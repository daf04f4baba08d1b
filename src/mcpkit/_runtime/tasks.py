"""The tasks one session owns: started by it, cancelled and awaited when it closes; and
:class:`Slots`, the limit on how many of the peer's requests it serves at once.

This is the session's structured-concurrency scope. It is not an :class:`asyncio.TaskGroup`
on purpose: a TaskGroup turns a child's failure into an ``ExceptionGroup`` for its owner and
cancels the task that opened it, while a session must never surface either (a failing handler is
an error *response*); it also cannot cancel its children on demand, which closing needs. Here a
child's unexpected exception is logged, and :meth:`TaskSet.aclose` cancels everything and waits,
bounded by :data:`CLOSE_WAIT_SECONDS`.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, Final, TypeVar

__all__ = ["CLOSE_WAIT_SECONDS", "Slots", "TaskSet"]

CLOSE_WAIT_SECONDS: Final = 5.0
"""How long closing waits for cancelled tasks to finish (a task that ignores cancellation is
reported and left behind rather than hanging the close)."""

T = TypeVar("T")


class TaskSet:
    """Tasks started on behalf of one owner; see the module docstring."""

    __slots__ = ("_empty", "_loop", "_name", "_tasks", "_timers", "logger")

    def __init__(self, loop: asyncio.AbstractEventLoop, name: str, logger: logging.Logger) -> None:
        self._loop = loop
        self._name = name
        self._tasks: set[asyncio.Task[Any]] = set()
        # the loop holds a pending timer; once it fired or was cancelled and dropped, it goes
        self._timers: weakref.WeakSet[asyncio.TimerHandle] = weakref.WeakSet()
        self.logger = logger
        self._empty: asyncio.Event | None = None
        """Set when the last task ends while someone waits in :meth:`wait_empty`."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop the children run on (an owner used from several loops keeps one per loop)."""
        return self._loop

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task[Any]:
        task = self._loop.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def timer(
        self, delay: float, callback: Callable[..., object], *args: Any
    ) -> asyncio.TimerHandle:
        """``loop.call_later``, owned: :meth:`aclose` cancels the timer if it has not fired."""
        handle = self._loop.call_later(delay, callback, *args)
        self._timers.add(handle)
        return handle

    def start(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Like :meth:`spawn`, for a coroutine that calls :meth:`forget` on its own task when
        it ends and logs its own failures (the session's request handlers), or whose outcome
        someone awaits (then that someone forgets it: a failure is theirs, not a bug to log).

        No done callback is added: a callback is scheduled with ``call_soon`` when the task
        ends, which costs a whole event-loop iteration (a ``select``, the ready queue) per
        request that finishes within one step. The owner must also forget a task cancelled
        before its first step, whose coroutine never runs (see ``Session._cancel_handler``).
        """
        task = self._loop.create_task(coro)
        self._tasks.add(task)
        return task

    def adopt(self, task: asyncio.Task[Any]) -> None:
        """Track a task made elsewhere (``step.start_eagerly``) as if :meth:`start` had made it."""
        self._tasks.add(task)

    def forget(self, task: asyncio.Task[Any] | None) -> None:
        """Stop tracking a task that :meth:`start` started (it is ending)."""
        self._tasks.discard(task)
        if not self._tasks and self._empty is not None:
            self._empty.set()

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not self._tasks and self._empty is not None:
            self._empty.set()
        if not task.cancelled() and task.exception() is not None:  # a bug: children catch
            self.logger.error(
                "%s: task %s failed", self._name, task.get_name(), exc_info=task.exception()
            )

    def __len__(self) -> int:
        return len(self._tasks)

    async def wait_empty(self) -> None:
        """Return once no task of this owner is running (graceful drains, tests). Timers do not
        count. Bound it with :func:`~mcpkit._runtime.concurrency.race` for a drain deadline."""
        while self._tasks:
            if self._empty is None:
                self._empty = asyncio.Event()
            self._empty.clear()
            await self._empty.wait()

    async def aclose(self, timeout: float = CLOSE_WAIT_SECONDS) -> None:
        """Cancel every timer and task (except the caller's own) and wait for the tasks to end.

        The wait is bounded by ``timeout`` (a task that ignores cancellation is logged and left
        behind). A cancellation of the caller while it waits propagates: it is the caller's.
        """
        for handle in list(self._timers):
            handle.cancel()
        self._timers.clear()
        current = asyncio.current_task()
        tasks = [task for task in self._tasks if task is not current]
        for task in tasks:
            task.cancel()
        if not tasks:
            return
        _, stuck = await asyncio.wait(tasks, timeout=timeout)
        if stuck:
            self.logger.error(
                "%s: %d task(s) ignored cancellation and were left running: %s",
                self._name,
                len(stuck),
                ", ".join(sorted(task.get_name() for task in stuck)),
            )


# -- how many run at once ------------------------------------------------------------------------
# An asyncio.Semaphore does this, but ``async with`` on one costs five Python-level calls per
# request (``__aenter__``, ``acquire``, ``locked``, ``release``, ``__aexit__``; ``locked`` scans
# the waiters with a generator) on the path every request takes: ~9 k instructions per call.
# Slots takes a free slot with one synchronous call and builds a future only to wait.


class Slots:
    """``count`` slots, handed out first come, first served.

    Use as ``if not slots.take(): await slots.wait()``, then ``slots.give()`` when done (in a
    ``finally``). A free slot is never taken past someone already waiting.
    """

    __slots__ = ("_free", "_waiters")

    def __init__(self, count: int) -> None:
        self._free = count
        self._waiters: deque[asyncio.Future[None]] = deque()

    def take(self) -> bool:
        """Take a slot now if one is free and nobody waits for one; ``False`` otherwise."""
        if self._free and not self._waiters:
            self._free -= 1
            return True
        return False

    async def wait(self) -> None:
        """Wait until :meth:`give` hands this caller a slot (in arrival order).

        Cancelled while waiting, the caller holds no slot: one handed over at that very moment
        goes on to the next waiter.
        """
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give()  # it was ours already: pass it on
            elif waiter in self._waiters:  # (give() drops cancelled waiters it meets)
                self._waiters.remove(waiter)
            raise

    def give(self) -> None:
        """Return a slot: to the first caller still waiting, else to the free count."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1

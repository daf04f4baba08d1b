"""The concurrency primitives every layer above the runtime uses instead of bare asyncio calls.

mcpkit's rule (``docs/architecture.md``, "Tasks and cancellation"): every task has an owner that
cancels *and awaits* it, no module outside ``mcpkit._runtime`` calls ``create_task``,
``ensure_future`` or ``call_later`` itself (``tests/runtime/test_task_discipline.py`` enforces
it), and a cancelled caller always sees its own cancellation. The pieces:

* :class:`~mcpkit._runtime.tasks.TaskSet` — the owner: ``spawn`` a child, ``aclose`` cancels and
  waits for all of them. Long-lived objects (a client, a host, an HTTP app) hold one;
* :class:`TaskScope` — the same as an ``async with`` block, for work that lives inside one call;
* :func:`cancel_and_wait` — stop one child and wait until it has stopped, without swallowing a
  cancellation aimed at the caller (the mistake ``with suppress(CancelledError): await child``
  makes: it also eats the caller's own cancel);
* :func:`join` — wait for a child asked to stop some other way (an event it watches) to end on
  its own, again without swallowing the caller's cancellation;
* :func:`race` — wait for the first of several awaitables (optionally with a deadline), cancel
  and await the rest: the one way to "race a wait";
* :meth:`TaskSet.timer` — ``loop.call_later`` with an owner: cancelled when the owner closes
  (a distinct name, so a bare ``call_later`` is easy to find and forbid).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine
from types import TracebackType
from typing import Any, TypeVar

from mcpkit._runtime.tasks import TaskSet

__all__ = ["TaskScope", "cancel_and_wait", "join", "race"]

T = TypeVar("T")

logger = logging.getLogger(__name__)


async def cancel_and_wait(
    task: asyncio.Future[Any] | None, *, timeout: float | None = None
) -> None:
    """Cancel ``task`` (a child of the caller) and wait until it has finished.

    The child's own outcome (its ``CancelledError``, or an exception it raised while unwinding)
    is consumed: the caller asked it to stop. A cancellation aimed at the *caller* while it waits
    is re-raised, never swallowed. ``timeout`` bounds the wait for a child that ignores
    cancellation (it is then left behind and logged).
    """
    if task is None or task is asyncio.current_task():
        return
    if not task.done():
        task.cancel()
        done, _ = await asyncio.wait((task,), timeout=timeout)
        if not done:
            logger.error("a task ignored cancellation and was left running: %r", task)
            return
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log "exception was never retrieved"


async def join(task: asyncio.Future[Any] | None, *, timeout: float | None = None) -> bool:
    """Wait until ``task`` (a child asked to finish by other means) has ended; do not cancel it.

    For an owner that stops a child gracefully (it sets an event the child watches) and must
    then wait for it. The child's outcome is consumed, as in :func:`cancel_and_wait`; a
    cancellation aimed at the caller propagates (the child goes on stopping by itself).
    Returns whether the child ended within ``timeout``.
    """
    if task is None or task is asyncio.current_task():
        return True
    if not task.done():
        done, _ = await asyncio.wait((task,), timeout=timeout)
        if not done:
            return False
    if not task.cancelled():
        task.exception()
    return True


async def race(
    *awaitables: Awaitable[Any], timeout: float | None = None
) -> asyncio.Future[Any] | None:
    """Wait for the first of ``awaitables`` to finish; cancel and await the others.

    Returns the future (or task) that finished first, whose ``result()`` the caller reads, or
    ``None`` when ``timeout`` passed first. Coroutines are wrapped in tasks owned by this call:
    every one of them has ended when ``race`` returns or raises. Futures the caller passes in are
    its own: they are waited on, never cancelled. A cancellation of the caller cancels and awaits
    what ``race`` started, then propagates.
    """
    loop = asyncio.get_running_loop()
    started: list[asyncio.Task[Any]] = []
    futures: list[asyncio.Future[Any]] = []
    for item in awaitables:
        if asyncio.isfuture(item):
            futures.append(item)
        else:
            task = loop.create_task(_await(item))
            started.append(task)
            futures.append(task)
    try:
        done, _ = await asyncio.wait(futures, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in started:
            if not task.done():
                task.cancel()
        if started:
            await asyncio.wait(started)  # each was cancelled: this returns promptly
            for task in started:
                if not task.cancelled() and task.exception() is not None and task not in done:
                    logger.debug("a losing racer failed", exc_info=task.exception())
    if not done:
        return None
    for future in futures:  # the first in argument order among those done, for determinism
        if future in done:
            return future
    return None  # pragma: no cover - done is a subset of futures


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


class TaskScope:
    """``async with TaskScope("name") as scope: scope.spawn(...)``: children live within the block.

    On leaving the block, every child still running is cancelled and awaited (whether the block
    ended normally or by an exception). Unlike :class:`asyncio.TaskGroup`, a child's failure is
    logged rather than cancelling its siblings and the block: a scope holds helpers (a watcher, a
    heartbeat) whose failure must not turn into the caller's ``ExceptionGroup``.
    """

    __slots__ = ("_tasks",)

    def __init__(self, name: str, logger_: logging.Logger | None = None) -> None:
        self._tasks = TaskSet(asyncio.get_running_loop(), name, logger_ or logger)

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task[Any]:
        return self._tasks.spawn(coro, name=name)

    def timer(self, delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        return self._tasks.timer(delay, callback, *args)

    def __len__(self) -> int:
        return len(self._tasks)

    async def __aenter__(self) -> TaskScope:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._tasks.aclose()

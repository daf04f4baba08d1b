"""Run an awaitable as far as it goes without waiting; finish it later only if it had to wait.

Most of what a request awaits is ready: the ASGI server read the small body with the headers,
and most handlers answer without waiting. A deadline (a timer on the loop's heap, and on Python
3.11 a ``getpid`` system call per ``current_task()``/``get_running_loop()``) or a watcher for a
slow handler is only needed when the awaitable actually waits. :func:`step` starts it in the
calling task and says which case this is; :func:`finish` awaits the rest, exactly as if the
awaitable had been awaited whole (``yield from`` semantics: values sent, exceptions thrown and
the close are passed through). Both run in the task that awaits, so ``current_task()``,
cancellation and ``asyncio.timeout`` inside the awaitable see that task, as with ``await``.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Generator
from typing import Any, TypeVar

__all__ = ["Pending", "finish", "step"]

T = TypeVar("T")

Pending = tuple[Generator[Any, Any, Any], Any]
"""An awaitable stopped at its first wait: its iterator and what it yielded to the loop."""


def step(awaitable: Awaitable[T]) -> tuple[Pending | None, T | None]:
    """Start ``awaitable`` in the calling task: ``(None, result)`` when it finished without
    waiting, else ``(pending, None)`` to hand to :func:`finish` (which must then be awaited, or
    the iterator closed). Its exceptions propagate."""
    it = awaitable.__await__()
    try:
        first = next(it)
    except StopIteration as done:
        return None, done.value
    return (it, first), None


@types.coroutine
def finish(pending: Pending) -> Generator[Any, Any, Any]:
    """Await the rest of an awaitable :func:`step` left waiting (``yield from`` by hand)."""
    it, value = pending
    while True:
        try:
            sent = yield value
        except GeneratorExit:
            close = getattr(it, "close", None)  # an awaitable's iterator need not have it
            if close is not None:
                close()
            raise
        except BaseException as exc:
            throw = getattr(it, "throw", None)
            if throw is None:
                raise
            try:
                value = throw(exc)
            except StopIteration as done:
                return done.value
        else:
            try:
                value = next(it) if sent is None else it.send(sent)
            except StopIteration as done:
                return done.value

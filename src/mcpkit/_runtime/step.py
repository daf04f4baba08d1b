"""Run an awaitable as far as it goes without waiting; finish it later only if it had to wait.

Most of what a request awaits is ready: the ASGI server read the small body with the headers,
and most handlers answer without waiting. A deadline (a timer on the loop's heap, and on Python
3.11 a ``getpid`` system call per ``current_task()``/``get_running_loop()``) or a watcher for a
slow handler is only needed when the awaitable actually waits. :func:`step` starts it in the
calling task and says which case this is; :func:`finish` awaits the rest, exactly as if the
awaitable had been awaited whole (``yield from`` semantics: values sent, exceptions thrown and
the close are passed through). Both run in the task that awaits, so ``current_task()``,
cancellation and ``asyncio.timeout`` inside the awaitable see that task, as with ``await``.

This is how the HTTP server drives a request without a task of its own: the ASGI server's task
for the request reads the body (``transports/http/_server/body.py``) and runs the handler
(``transports/http/_server/exchange.py``) through ``step``; see "One runtime model" in
``docs/architecture.md``.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Generator
from typing import Any, TypeVar

__all__ = ["Pending", "finish", "step"]

T = TypeVar("T")

_Coroutine = types.CoroutineType


class Pending:
    """An awaitable stopped at its first wait: its iterator and what it yielded to the loop.
    Hand it to :func:`finish`, which must then be awaited (or :meth:`close` it)."""

    __slots__ = ("first", "it")

    def __init__(self, it: Generator[Any, Any, Any], first: Any) -> None:
        self.it = it
        self.first = first

    def close(self) -> None:
        close = getattr(self.it, "close", None)  # an awaitable's iterator need not have it
        if close is not None:
            close()


def step(awaitable: Awaitable[T]) -> T | Pending:
    """Start ``awaitable`` in the calling task: its result when it finished without waiting,
    else a :class:`Pending` (a result is never one). Its exceptions propagate."""
    # a coroutine is its own iterator (no __await__ wrapper to make)
    it: Any = awaitable if type(awaitable) is _Coroutine else awaitable.__await__()
    try:
        first = it.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    return Pending(it, first)


@types.coroutine
def finish(pending: Pending) -> Generator[Any, Any, Any]:
    """Await the rest of an awaitable :func:`step` left waiting (``yield from`` by hand)."""
    it, value = pending.it, pending.first
    send = getattr(it, "send", None)  # a plain iterator has only __next__
    while True:
        try:
            sent = yield value
        except GeneratorExit:
            pending.close()
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
                value = next(it) if send is None else send(sent)
            except StopIteration as done:
                return done.value

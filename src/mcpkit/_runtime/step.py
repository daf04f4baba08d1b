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

import asyncio
import types
from collections import deque
from collections.abc import Awaitable, Coroutine, Generator
from typing import Any, TypeVar

__all__ = ["Pending", "finish", "resume_now", "start_eagerly", "step"]

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


# -- a task whose first step runs now ------------------------------------------------------------
# A stdio request is read in a protocol callback (``data_received``); a task created there runs
# its first step one event-loop iteration later: another ``epoll_wait`` (with a zero timeout)
# and another pass over the ready queue per request, for a handler that usually answers without
# ever waiting. Python 3.12's ``eager_start`` runs that first step in the caller. This does the
# same on 3.11 and later for the loops whose ready queue it knows (asyncio's own): the task is
# created as usual (named, registered, its own context, its first step scheduled), and that
# scheduled step — the handle the task just appended to the ready queue — is taken off the queue
# and run at once, exactly as the loop would have run it an iteration later. The task's own step
# does everything (entering the task, so ``current_task()``, ``asyncio.timeout`` and
# ``TaskGroup`` inside see it; its result, its cancellation, waiting on a future), so a
# coroutine that waits simply goes on as the ordinary task it is.


def start_eagerly(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any]
) -> asyncio.Task[Any]:
    """A task running ``coro``, whose first step has already run when called outside any task.

    ``task.done()`` then says whether it finished within that step (no loop iteration was spent
    on it). Inside a running task, or on a loop whose ready queue is not asyncio's ``deque`` of
    handles, this is ``loop.create_task``: the first step runs on the next iteration.
    """
    task = loop.create_task(coro)
    ready = getattr(loop, "_ready", None)
    if type(ready) is deque and ready and asyncio.current_task(loop) is None:
        handle = ready[-1]
        if getattr(getattr(handle, "_callback", None), "__self__", None) is task:
            ready.pop()
            handle._run()  # the task's step, as the loop runs it (errors to its handler)
    return task


def resume_now(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any] | None) -> None:
    """Run ``task``'s wake-up now, when it is all the loop's ready queue holds.

    A future resolved in a read callback (the answer to a request, pushed) schedules the
    wake-up of the task awaiting it for the next loop iteration: one more ``epoll_wait`` (zero
    timeout) and pass over the ready queue per answer. When that wake-up is the only handle
    queued, the next iteration would run it first thing (whatever the poll found is queued
    behind it), so running it here changes no order; it runs as the loop runs it (the task's
    own step, in its context, errors to the loop's handler). Only outside any running task,
    and on loops whose ready queue is asyncio's ``deque`` of handles; otherwise nothing happens
    and the loop wakes the task as usual.
    """
    if task is None:
        return
    ready = getattr(loop, "_ready", None)
    if type(ready) is not deque or len(ready) != 1:
        return
    handle = ready[0]
    if getattr(getattr(handle, "_callback", None), "__self__", None) is not task:
        return
    if asyncio.current_task(loop) is not None:
        return
    ready.pop()
    handle._run()

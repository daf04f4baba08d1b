"""Requests pushed from a read callback start at once (``step.start_eagerly``).

A stdio request arrives in the pipe's ``data_received``; its handler's first step now runs right
there instead of one event-loop iteration later, and a handler that answers without waiting has
answered before the callback returns. A handler that waits must not notice: it runs in a real
task from its first line on (``current_task()``, ``asyncio.timeout``, ``TaskGroup``), and
cancelling it works as before.
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest
from _push_stream import PushStream

from mcpkit._runtime.context import RequestContext
from mcpkit._runtime.session import Session
from mcpkit._runtime.step import start_eagerly
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Notification,
    Request,
    Response,
)

WAIT = 10.0
"""Bound on every wait."""

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="outside")


# -- start_eagerly on its own ---------------------------------------------------------------------


async def _in_callback(fn: Any) -> Any:
    """Run ``fn`` in a plain loop callback (no current task), as ``data_received`` runs."""
    loop = asyncio.get_running_loop()
    box: asyncio.Future[Any] = loop.create_future()
    loop.call_soon(lambda: box.set_result(fn()))
    return await asyncio.wait_for(box, WAIT)


async def test_a_coroutine_that_does_not_wait_is_done_when_start_eagerly_returns() -> None:
    seen: list[Any] = []

    async def quick() -> str:
        seen.append(asyncio.current_task())
        VAR.set("inside")  # the task's own context: does not leak to the caller
        return "answer"

    loop = asyncio.get_running_loop()
    task = await _in_callback(lambda: start_eagerly(loop, quick()))
    assert task.done() and task.result() == "answer"
    assert seen == [task]
    assert VAR.get() == "outside"


async def test_a_coroutine_that_waits_goes_on_in_the_same_task() -> None:
    release = asyncio.Event()
    seen: list[Any] = []

    async def slow() -> str:
        seen.append(asyncio.current_task())
        async with asyncio.timeout(WAIT):  # needs a current task, and the right one
            await release.wait()
        seen.append(asyncio.current_task())
        return "late"

    loop = asyncio.get_running_loop()
    task = await _in_callback(lambda: start_eagerly(loop, slow()))
    assert not task.done()
    assert seen == [task]  # the first step ran already, in the task itself
    release.set()
    assert await asyncio.wait_for(task, WAIT) == "late"
    assert seen == [task, task]


async def test_a_timeout_inside_a_waiting_coroutine_cancels_its_own_task() -> None:
    async def stuck() -> str:
        try:
            async with asyncio.timeout(0):
                await asyncio.Event().wait()
        except TimeoutError:
            return "timed out"
        return "not reached"

    loop = asyncio.get_running_loop()
    task = await _in_callback(lambda: start_eagerly(loop, stuck()))
    assert await asyncio.wait_for(task, WAIT) == "timed out"


async def test_a_failure_in_the_first_step_is_the_tasks_exception() -> None:
    async def broken() -> None:
        raise ValueError("bug")

    loop = asyncio.get_running_loop()
    task = await _in_callback(lambda: start_eagerly(loop, broken()))
    assert task.done()
    with pytest.raises(ValueError, match="bug"):
        task.result()


async def test_inside_a_task_the_first_step_waits_for_the_next_iteration() -> None:
    ran: list[bool] = []

    async def quick() -> None:
        ran.append(True)

    task = start_eagerly(asyncio.get_running_loop(), quick())  # this test is a task
    assert not task.done() and ran == []
    await asyncio.wait_for(task, WAIT)
    assert ran == [True]


# -- a session on a pushing stream -----------------------------------------------------------------


def _request(n: int, method: str = "work") -> Request:
    return Request(n, method, {})


async def test_a_request_answered_without_waiting_is_answered_inside_the_read_callback() -> None:
    async def handler(ctx: RequestContext) -> JSONObject:
        return {"task": asyncio.current_task() is not None}

    stream = PushStream()
    async with Session(stream, request_handler=handler):  # type: ignore[arg-type]
        answered_in_callback = await _in_callback(
            lambda: (stream.deliver(_request(1)), list(stream.sent))[1]
        )
    # before eager starts the answer came one loop iteration after the callback
    assert answered_in_callback == [Response(1, {"task": True})]


async def test_a_waiting_handler_can_still_be_cancelled_by_the_peer() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def handler(ctx: RequestContext) -> JSONObject:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {}  # pragma: no cover

    stream = PushStream()
    async with Session(stream, request_handler=handler):  # type: ignore[arg-type]
        await _in_callback(lambda: stream.deliver(_request(7)))
        assert started.is_set()  # the first step ran in the callback
        cancel = Notification("notifications/cancelled", {"requestId": 7, "reason": "no"})
        await _in_callback(lambda: stream.deliver(cancel))
        await asyncio.wait_for(cancelled.wait(), WAIT)
        # no answer to a cancelled request; the session still serves the next one
        await _in_callback(lambda: stream.deliver(Request(8, "ping", {})))
    assert not any(isinstance(m, Response | ErrorResponse) and m.id == 7 for m in stream.sent)

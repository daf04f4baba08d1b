"""An answer pushed from a read callback resumes its caller there (``step.resume_now``).

The answer to one of our requests resolves the caller's future inside the pipe's
``data_received``; the caller used to go on one event-loop iteration later (another
``epoll_wait`` per call). When its wake-up is all the ready queue holds, it now runs before the
callback returns; anything else queued first keeps its turn.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _push_stream import PushStream

from mcpkit._runtime.session import Session
from mcpkit._runtime.step import resume_now
from mcpkit.protocol._errors import MethodNotFound, RequestTimeout
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response

WAIT = 10.0
"""Bound on every wait."""


async def _in_callback(fn: Any) -> Any:
    """Run ``fn`` in a plain loop callback (no current task), as ``data_received`` runs."""
    loop = asyncio.get_running_loop()
    box: asyncio.Future[Any] = loop.create_future()
    loop.call_soon(lambda: box.set_result(fn()))
    return await asyncio.wait_for(box, WAIT)


async def _sent_request(stream: PushStream) -> Request:
    await asyncio.wait_for(stream.sent_event.wait(), WAIT)
    stream.sent_event.clear()
    request = stream.sent[-1]
    assert isinstance(request, Request)
    return request


@pytest.mark.parametrize("timeout", [None, 30.0])
async def test_the_caller_goes_on_inside_the_read_callback(timeout: float | None) -> None:
    stream = PushStream()
    steps: list[str] = []
    async with Session(stream) as session:  # type: ignore[arg-type]

        async def caller() -> None:
            result = await session.send_request("test/work", timeout=timeout)
            steps.append(f"resumed with {result}")

        task = asyncio.create_task(caller())
        request = await _sent_request(stream)

        def answer() -> list[str]:
            stream.deliver(Response(request.id, {"n": 1}))
            return list(steps)

        # before resume_now the caller went on one loop iteration after the callback
        assert await _in_callback(answer) == ["resumed with {'n': 1}"]
        await asyncio.wait_for(task, WAIT)


async def test_an_error_answer_is_raised_in_the_caller_inside_the_read_callback() -> None:
    stream = PushStream()
    raised: list[BaseException] = []
    async with Session(stream) as session:  # type: ignore[arg-type]

        async def caller() -> None:
            try:
                await session.send_request("test/missing")
            except MethodNotFound as exc:
                raised.append(exc)

        task = asyncio.create_task(caller())
        request = await _sent_request(stream)
        error = MethodNotFound("Method not found: test/missing").to_error_object()
        seen = await _in_callback(
            lambda: (stream.deliver(ErrorResponse(request.id, error)), list(raised))[1]
        )
        assert len(seen) == 1 and seen[0].remote  # type: ignore[attr-defined]
        await asyncio.wait_for(task, WAIT)


async def test_a_wake_up_queued_behind_others_waits_its_turn() -> None:
    loop = asyncio.get_running_loop()
    order: list[str] = []
    future: asyncio.Future[None] = loop.create_future()

    async def waiter() -> None:
        await future
        order.append("waiter")

    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)  # the task now waits on the future

    def callback() -> None:
        loop.call_soon(order.append, "earlier")
        future.set_result(None)
        resume_now(loop, task)  # not alone in the ready queue: left to the loop
        order.append("callback done")

    await _in_callback(callback)
    await asyncio.wait_for(task, WAIT)
    assert order == ["callback done", "earlier", "waiter"]


async def test_inside_a_task_nothing_is_run_early() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()
    order: list[str] = []

    async def waiter() -> None:
        await future
        order.append("waiter")

    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    future.set_result(None)
    resume_now(loop, task)  # we are a task ourselves: the waiter must not run inside us
    order.append("us")
    await asyncio.wait_for(task, WAIT)
    assert order == ["us", "waiter"]


async def test_a_deadline_still_fires_on_a_pushed_session() -> None:
    stream = PushStream()
    async with Session(stream) as session:  # type: ignore[arg-type]
        with pytest.raises(RequestTimeout):
            await session.send_request("test/never", timeout=0.05)
        request = stream.sent[0]
        async with asyncio.timeout(WAIT):
            while len(stream.sent) < 2:  # the cancel is sent by a session task, just after
                stream.sent_event.clear()
                await stream.sent_event.wait()
        assert stream.sent[1] == Notification(
            "notifications/cancelled", {"requestId": request.id, "reason": "request timed out"}
        )

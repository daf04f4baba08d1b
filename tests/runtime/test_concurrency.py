"""The runtime's concurrency primitives (``_runtime.concurrency``, ``_runtime.tasks``).

What they promise, each checked here: a child is stopped *and awaited*; a cancellation aimed at
the caller is never swallowed; ``race`` owns only what it started; an owner's timers and tasks
end with it; a child's failure is logged, not lost.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mcpkit._runtime.concurrency import TaskScope, cancel_and_wait, join, race
from mcpkit._runtime.tasks import TaskSet

WAIT = 5.0
"""Bound on every wait for something that should happen at once (a hang fails, not blocks)."""


class SlowToStop:
    """A child that, when cancelled, keeps unwinding until ``release`` is set."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.unwinding = asyncio.Event()
        self.release = asyncio.Event()
        self.finished = False

    async def run(self) -> None:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.unwinding.set()
            await self.release.wait()
            self.finished = True
            raise


async def _bounded(awaitable: Any) -> Any:
    return await asyncio.wait_for(awaitable, WAIT)


# -- cancel_and_wait -------------------------------------------------------------------------


async def test_cancel_and_wait_stops_the_child_and_waits_until_it_ended() -> None:
    child = SlowToStop()
    task = asyncio.get_running_loop().create_task(child.run())
    await _bounded(child.started.wait())
    stopping = asyncio.get_running_loop().create_task(cancel_and_wait(task))
    await _bounded(child.unwinding.wait())
    assert not stopping.done()  # still waiting for the child to finish unwinding
    child.release.set()
    await _bounded(stopping)
    assert child.finished and task.cancelled()


async def test_cancel_and_wait_consumes_an_error_the_child_raises_while_unwinding() -> None:
    started = asyncio.Event()

    async def fails_when_stopped() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            raise RuntimeError("cleanup failed")

    task = asyncio.get_running_loop().create_task(fails_when_stopped())
    await _bounded(started.wait())
    await _bounded(cancel_and_wait(task))  # the caller asked it to stop: no error for it
    assert isinstance(task.exception(), RuntimeError)


async def test_cancel_and_wait_re_raises_a_cancellation_aimed_at_the_caller() -> None:
    child = SlowToStop()
    task = asyncio.get_running_loop().create_task(child.run())
    await _bounded(child.started.wait())
    caller = asyncio.get_running_loop().create_task(cancel_and_wait(task))
    await _bounded(child.unwinding.wait())  # the caller now waits for the child
    caller.cancel()
    await asyncio.wait({caller}, timeout=WAIT)
    assert caller.cancelled()  # not a normal return: the caller sees its cancellation
    child.release.set()
    await asyncio.wait({task}, timeout=WAIT)
    assert task.cancelled() and child.finished


async def test_cancel_and_wait_gives_up_on_a_child_that_ignores_cancellation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stubborn_started = asyncio.Event()
    give_up = asyncio.Event()

    async def stubborn() -> None:
        stubborn_started.set()
        while not give_up.is_set():
            try:
                await give_up.wait()
            except asyncio.CancelledError:
                continue

    task = asyncio.get_running_loop().create_task(stubborn())
    await _bounded(stubborn_started.wait())
    with caplog.at_level(logging.ERROR, logger="mcpkit._runtime.concurrency"):
        await _bounded(cancel_and_wait(task, timeout=0.05))
    assert "ignored cancellation" in caplog.text
    assert not task.done()
    give_up.set()
    await asyncio.wait({task}, timeout=WAIT)
    assert task.done()


async def test_cancel_and_wait_does_nothing_for_no_task_or_the_callers_own() -> None:
    await cancel_and_wait(None)
    await cancel_and_wait(asyncio.current_task())  # would otherwise cancel this test


# -- join ------------------------------------------------------------------------------------


async def test_join_waits_for_the_child_without_cancelling_it() -> None:
    stop = asyncio.Event()

    async def stops_when_asked() -> str:
        await stop.wait()
        return "clean"

    task = asyncio.get_running_loop().create_task(stops_when_asked())
    assert not await join(task, timeout=0.01)  # not asked yet: still running, not cancelled
    assert not task.done()
    stop.set()
    assert await _bounded(join(task))
    assert task.result() == "clean"


async def test_join_re_raises_a_cancellation_aimed_at_the_caller() -> None:
    stop = asyncio.Event()
    task = asyncio.get_running_loop().create_task(stop.wait())
    caller = asyncio.get_running_loop().create_task(join(task))
    await asyncio.sleep(0)  # let the caller reach its wait (its first step)
    caller.cancel()
    await asyncio.wait({caller}, timeout=WAIT)
    assert caller.cancelled()
    assert not task.done()  # the child was not cancelled with it
    stop.set()
    await _bounded(task)


# -- race ------------------------------------------------------------------------------------


async def test_race_returns_the_first_and_cancels_and_awaits_the_others() -> None:
    loser_unwound = False

    async def winner() -> str:
        return "won"

    async def loser() -> None:
        nonlocal loser_unwound
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0)  # unwinding takes a step: race must wait for it
            loser_unwound = True

    first = await _bounded(race(loser(), winner()))
    assert first is not None and first.result() == "won"
    assert loser_unwound  # cancelled *and* awaited before race returned


async def test_race_leaves_futures_of_the_caller_alone() -> None:
    mine: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def quick() -> str:
        return "quick"

    first = await _bounded(race(mine, quick()))
    assert first is not None and first.result() == "quick"
    assert not mine.done()  # not cancelled: the caller owns it
    mine.set_result("later")
    first = await _bounded(race(mine, asyncio.Event().wait()))
    assert first is mine  # a caller's future that wins is returned as itself


async def test_race_returns_none_on_timeout_and_stops_what_it_started() -> None:
    unwound = False

    async def never() -> None:
        nonlocal unwound
        try:
            await asyncio.Event().wait()
        finally:
            unwound = True

    assert await _bounded(race(never(), timeout=0.01)) is None
    assert unwound


async def test_a_cancelled_caller_of_race_sees_it_and_the_racers_are_stopped() -> None:
    started = asyncio.Event()
    unwound = asyncio.Event()

    async def racer() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            unwound.set()

    caller = asyncio.get_running_loop().create_task(race(racer(), asyncio.Event().wait()))
    await _bounded(started.wait())
    caller.cancel()
    await asyncio.wait({caller}, timeout=WAIT)
    assert caller.cancelled()
    assert unwound.is_set()


async def test_race_reports_a_failing_winner_through_its_future() -> None:
    async def fails() -> None:
        raise ValueError("no")

    first = await _bounded(race(fails(), asyncio.Event().wait()))
    assert first is not None and isinstance(first.exception(), ValueError)


# -- TaskSet ---------------------------------------------------------------------------------


async def test_taskset_aclose_cancels_its_timers() -> None:
    fired: list[str] = []
    owner = TaskSet(asyncio.get_running_loop(), "test", logging.getLogger("test"))
    handle = owner.timer(0, fired.append, "timer")
    await owner.aclose()
    assert handle.cancelled()
    for _ in range(3):  # the timer was due at once: it would have run within these steps
        await asyncio.sleep(0)
    assert fired == []


async def test_taskset_aclose_cancels_and_awaits_its_children() -> None:
    owner = TaskSet(asyncio.get_running_loop(), "test", logging.getLogger("test"))
    child = SlowToStop()
    task = owner.spawn(child.run())
    await _bounded(child.started.wait())
    closing = asyncio.get_running_loop().create_task(owner.aclose())
    await _bounded(child.unwinding.wait())
    assert not closing.done()
    child.release.set()
    await _bounded(closing)
    assert task.cancelled() and child.finished and len(owner) == 0


async def test_taskset_aclose_re_raises_a_cancellation_aimed_at_the_caller() -> None:
    owner = TaskSet(asyncio.get_running_loop(), "test", logging.getLogger("test"))
    child = SlowToStop()
    owner.spawn(child.run())
    await _bounded(child.started.wait())
    caller = asyncio.get_running_loop().create_task(owner.aclose())
    await _bounded(child.unwinding.wait())
    caller.cancel()
    await asyncio.wait({caller}, timeout=WAIT)
    assert caller.cancelled()
    child.release.set()


async def test_taskset_start_leaves_the_outcome_to_whoever_awaits_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    owner = TaskSet(asyncio.get_running_loop(), "test", logging.getLogger("test.start"))

    async def fails() -> int:
        raise ValueError("the caller's answer")

    task = owner.start(fails())
    with caplog.at_level(logging.ERROR, logger="test.start"), pytest.raises(ValueError):
        await task
    owner.forget(task)
    await asyncio.sleep(0)  # a done callback, had there been one, would run now
    assert "failed" not in caplog.text and len(owner) == 0


# -- TaskScope -------------------------------------------------------------------------------


async def test_taskscope_cancels_and_awaits_its_children_on_exit() -> None:
    child = SlowToStop()
    async with TaskScope("test") as scope:
        task = scope.spawn(child.run())
        await _bounded(child.started.wait())
        child.release.set()  # it may unwind at once when cancelled
    assert task.cancelled() and child.finished


async def test_taskscope_awaits_its_children_when_the_block_fails() -> None:
    child = SlowToStop()
    child.release.set()
    with pytest.raises(KeyError):
        async with TaskScope("test") as scope:
            task = scope.spawn(child.run())
            await _bounded(child.started.wait())
            raise KeyError("the block's own error")
    assert task.cancelled() and child.finished


async def test_taskscope_logs_a_child_failure_and_the_block_carries_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logging.getLogger("test.scope")

    async def fails() -> None:
        raise ValueError("child broke")

    with caplog.at_level(logging.ERROR, logger="test.scope"):
        async with TaskScope("watchers", log) as scope:
            task = scope.spawn(fails(), name="the-watcher")
            await asyncio.wait({task}, timeout=WAIT)
            await asyncio.sleep(0)  # the done callback that logs runs on the next step
            assert len(scope) == 0
    assert "watchers: task the-watcher failed" in caplog.text
    assert "child broke" in caplog.text


async def test_taskscope_timers_end_with_the_block() -> None:
    fired: list[int] = []
    async with TaskScope("test") as scope:
        handle = scope.timer(0, fired.append, 1)
    assert handle.cancelled()
    for _ in range(3):
        await asyncio.sleep(0)
    assert fired == []

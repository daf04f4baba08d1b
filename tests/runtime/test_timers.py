"""The runtime's :class:`~mcpkit._runtime.timers.Timer`: a deadline armed and disarmed by the
object it belongs to, cancelled by its owner's close when the object never disarms it."""

from __future__ import annotations

import asyncio
import logging

from mcpkit._runtime.tasks import TaskSet
from mcpkit._runtime.timers import Timer

WAIT_S = 5.0
logger = logging.getLogger(__name__)


def _owner() -> TaskSet:
    return TaskSet(asyncio.get_running_loop(), "timers test", logger)


async def _later_than_now(owner: TaskSet) -> None:
    """Return once every timer armed with delay 0 before this call has had its turn."""
    passed = asyncio.Event()
    Timer(owner, passed.set).arm(0)
    async with asyncio.timeout(WAIT_S):
        await passed.wait()


async def test_an_armed_timer_fires_once_and_is_then_disarmed() -> None:
    owner = _owner()
    fired: list[int] = []
    timer = Timer(owner, lambda: fired.append(1))
    timer.arm(0)
    assert timer.armed
    await _later_than_now(owner)
    assert fired == [1] and not timer.armed
    await _later_than_now(owner)
    assert fired == [1]


async def test_a_disarmed_timer_never_fires_and_arming_again_restarts_it() -> None:
    owner = _owner()
    fired: list[str] = []
    timer = Timer(owner, lambda: fired.append("fired"))
    timer.arm(0)
    timer.disarm()
    timer.disarm()  # twice is harmless
    await _later_than_now(owner)
    assert fired == [] and not timer.armed
    timer.arm(3600)
    timer.arm(0)  # restarts: only the new deadline counts
    await _later_than_now(owner)
    assert fired == ["fired"]


async def test_the_owners_close_cancels_a_timer_nobody_disarmed() -> None:
    owner = _owner()
    fired: list[str] = []
    timer = Timer(owner, lambda: fired.append("fired"))
    timer.arm(0)
    await owner.aclose()
    await _later_than_now(_owner())
    assert fired == []


async def test_wait_empty_returns_once_the_last_task_ended() -> None:
    owner = _owner()
    await owner.wait_empty()  # nothing running: at once
    release = asyncio.Event()
    owner.spawn(release.wait())
    waiting = asyncio.create_task(owner.wait_empty())
    await asyncio.sleep(0)
    assert not waiting.done()
    release.set()
    async with asyncio.timeout(WAIT_S):
        await waiting
    assert len(owner) == 0

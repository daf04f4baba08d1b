"""The session's request limit (``_runtime.tasks.Slots``): first come, first served, and a
cancelled waiter never keeps or loses a slot."""

from __future__ import annotations

import asyncio

from mcpkit._runtime.tasks import Slots


async def _holder(slots: Slots, name: str, order: list[str], release: asyncio.Event) -> None:
    if not slots.take():
        await slots.wait()
    order.append(name)
    try:
        await release.wait()
    finally:
        slots.give()


async def test_slots_are_taken_at_once_then_handed_over_in_arrival_order() -> None:
    slots = Slots(2)
    assert slots.take() and slots.take()
    assert not slots.take()
    order: list[str] = []
    release = asyncio.Event()
    waiting = [asyncio.create_task(_holder(slots, n, order, release)) for n in "abc"]
    await asyncio.sleep(0)
    assert order == []
    slots.give()
    await asyncio.sleep(0)
    assert order == ["a"]
    assert not slots.take()  # b and c wait: a newcomer does not get past them
    slots.give()
    await asyncio.sleep(0)
    assert order == ["a", "b"]
    release.set()
    await asyncio.gather(*waiting)
    assert order == ["a", "b", "c"]
    assert slots.take() and slots.take()  # every slot came back
    assert not slots.take()


async def test_a_waiter_cancelled_before_its_turn_holds_nothing() -> None:
    slots = Slots(1)
    assert slots.take()
    order: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_holder(slots, "first", order, release))
    second = asyncio.create_task(_holder(slots, "second", order, release))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    slots.give()
    release.set()
    await second
    assert order == ["second"]
    assert slots.take() and not slots.take()


async def test_a_slot_handed_to_a_waiter_cancelled_meanwhile_goes_to_the_next() -> None:
    slots = Slots(1)
    assert slots.take()
    order: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_holder(slots, "first", order, release))
    second = asyncio.create_task(_holder(slots, "second", order, release))
    await asyncio.sleep(0)
    slots.give()  # handed to first, which has not run yet ...
    first.cancel()  # ... and is cancelled before it does
    await asyncio.gather(first, return_exceptions=True)
    release.set()
    await second
    assert order == ["second"]
    assert slots.take() and not slots.take()


async def test_a_cancelled_waiter_already_dropped_by_give_is_fine() -> None:
    slots = Slots(1)
    assert slots.take()
    order: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_holder(slots, "first", order, release))
    await asyncio.sleep(0)
    first.cancel()  # its future is cancelled now; the task has not run yet
    slots.give()  # meets the cancelled waiter, drops it, keeps the slot free
    await asyncio.gather(first, return_exceptions=True)
    assert first.cancelled() and order == []
    assert slots.take() and not slots.take()

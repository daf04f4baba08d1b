"""``mcpkit.client.parked``: a call that stops to ask, waits (bounded) for the answer, resumes.

The gateway and the LangChain bridge both stand on it (their own tests run it end to end); these
pin its semantics: questions in order and stable until answered, a failure raised to the driver,
expiry by the lot's timer (cancel by default, or the caller's own), replacing a parked call
under the same key, and a close that leaves no task behind.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit.client.parked import ParkedCall, ParkingLot

WAIT = 5.0


async def _two_questions(call: ParkedCall[str]) -> str:
    first = await call.ask("first?")
    second = await call.ask("second?")
    return f"{first}+{second}"


async def test_a_call_asks_waits_and_resumes_with_each_answer() -> None:
    lot: ParkingLot[str] = ParkingLot(ttl=WAIT)
    call = lot.start(_two_questions)
    asked = await call.step()
    assert asked is not None and (asked.question, asked.number) == ("first?", 1)
    assert await call.step() is asked  # the same question until it is answered
    assert call.waiting is asked
    asked.answer("a")
    asked = await call.step()
    assert asked is not None and (asked.question, asked.number) == ("second?", 2)
    asked.answer("b")
    assert await call.step() is None
    assert call.done and call.result() == "a+b"
    await lot.aclose()


async def test_the_calls_failure_reaches_the_driver_and_a_refusal_the_call() -> None:
    async def refused(call: ParkedCall[str]) -> str:
        try:
            await call.ask("may I?")
        except PermissionError as exc:
            raise ValueError(f"the call saw: {exc}") from None
        return "never"

    lot: ParkingLot[str] = ParkingLot(ttl=WAIT)
    call = lot.start(refused)
    asked = await call.step()
    assert asked is not None
    asked.refuse(PermissionError("no"))
    assert await call.step() is None
    with pytest.raises(ValueError, match="the call saw: no"):
        call.result()
    await lot.aclose()


async def test_a_parked_call_is_taken_back_once_by_its_key() -> None:
    lot: ParkingLot[str] = ParkingLot(ttl=WAIT)
    call = lot.start(_two_questions)
    assert await call.step() is not None
    lot.park("k", call)
    assert len(lot) == 1
    assert lot.take("other") is None
    assert lot.take("k") is call
    assert lot.take("k") is None and len(lot) == 0
    await lot.aclose()
    assert call.done  # closed with the lot, not left running


async def test_an_expired_call_is_cancelled_by_default() -> None:
    lot: ParkingLot[str] = ParkingLot(ttl=0.01)
    call = lot.start(_two_questions)
    assert await call.step() is not None
    lot.park("k", call)
    assert call.task is not None
    await asyncio.wait_for(asyncio.wait({call.task}), WAIT)  # the expiry's cancel ends it
    assert lot.take("k") is None
    with pytest.raises(asyncio.CancelledError):
        call.result()
    await lot.aclose()


async def test_on_expire_may_answer_instead_and_let_the_call_finish() -> None:
    def answer_cancel(call: ParkedCall[Any]) -> None:
        waiting = call.waiting
        assert waiting is not None
        waiting.answer("cancel")

    async def one(call: ParkedCall[str]) -> str:
        return str(await call.ask("q"))

    lot: ParkingLot[str] = ParkingLot(ttl=0.01, on_expire=answer_cancel)
    call = lot.start(one)
    assert await call.step() is not None
    lot.park("k", call)
    assert call.task is not None
    await asyncio.wait_for(asyncio.wait({call.task}), WAIT)
    assert call.result() == "cancel"
    await lot.aclose()


async def test_parking_under_a_taken_key_expires_the_older_call() -> None:
    lot: ParkingLot[str] = ParkingLot(ttl=WAIT)
    old, new = lot.start(_two_questions), lot.start(_two_questions)
    assert await old.step() is not None and await new.step() is not None
    lot.park("k", old)
    lot.park("k", new)
    assert old.task is not None
    await asyncio.wait_for(asyncio.wait({old.task}), WAIT)
    assert old.task.cancelled()
    assert lot.take("k") is new and not new.done
    await lot.aclose()


async def test_a_resumed_call_is_not_expired_by_its_old_timer() -> None:
    lot: ParkingLot[str] = ParkingLot(ttl=0.05)
    call = lot.start(_two_questions)
    asked = await call.step()
    assert asked is not None
    lot.park("k", call)
    assert lot.take("k") is call
    await asyncio.sleep(0.1)  # past the ttl: the timer was cancelled when it was taken
    assert not call.done
    asked.answer("a")
    second = await call.step()
    assert second is not None
    second.answer("b")
    assert await call.step() is None and call.result() == "a+b"
    await lot.aclose()


async def test_closing_the_lot_expires_parked_calls_and_cancels_the_rest() -> None:
    lot: ParkingLot[str] = ParkingLot(ttl=WAIT)
    parked, running = lot.start(_two_questions), lot.start(_two_questions)
    assert await parked.step() is not None
    lot.park("k", parked)
    await lot.aclose()
    assert parked.done and running.done
    assert len(lot) == 0


async def test_a_driver_cancelled_while_waiting_leaves_the_question_for_the_next_step() -> None:
    """Waiting races the question queue against the end of the call: a cancelled wait loses
    no question (it is asked again by the next step)."""
    lot: ParkingLot[str] = ParkingLot(ttl=WAIT)
    gate = asyncio.Event()

    async def late(call: ParkedCall[str]) -> str:
        await gate.wait()
        return str(await call.ask("late?"))

    call = lot.start(late)
    waiting = asyncio.ensure_future(call.step())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    gate.set()
    asked = await asyncio.wait_for(call.step(), WAIT)
    assert asked is not None and asked.question == "late?"
    asked.answer("yes")
    assert await call.step() is None and call.result() == "yes"
    await lot.aclose()

"""One timer for all of a session's deadlines (:class:`SharedDeadlines`): a deadline earlier
than the one the timer is set for moves it, a later one does not, and when it fires every
request that is due fails while the others wait on.

The session-level tests run on a virtual clock, so each deadline is checked exactly.
"""

from __future__ import annotations

import asyncio

import pytest
from _runtime_helpers import in_virtual_time, session_with_raw_peer

from mcpkit._runtime.pending import PendingRequest, SharedDeadlines
from mcpkit.protocol._errors import RequestTimeout
from mcpkit.types._jsonrpc import Notification, Response

CANCELLED = "notifications/cancelled"


@in_virtual_time
async def test_a_shorter_deadline_added_later_fires_first_and_the_longer_one_waits() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        slow = asyncio.create_task(session.send_request("test/slow", timeout=10.0))
        slow_request = await peer.receive_request()
        quick = asyncio.create_task(session.send_request("test/quick", timeout=1.0))
        quick_request = await peer.receive_request()
        with pytest.raises(RequestTimeout) as caught:
            await quick
        assert loop.time() - start == pytest.approx(1.0)
        assert caught.value.timeout == 1.0
        assert await peer.receive_notification() == Notification(
            CANCELLED, {"requestId": quick_request.id, "reason": "request timed out"}
        )
        assert not slow.done()  # the timer fired for the quick one only
        await asyncio.sleep(5.0)
        await peer.send(Response(slow_request.id, {"slow": True}))
        assert await slow == {"slow": True}
        assert loop.time() - start == pytest.approx(6.0)


@in_virtual_time
async def test_a_deadline_after_answered_calls_still_fires_on_time() -> None:
    # the timer is set for the first call's deadline and not moved by the calls after it: when
    # it fires with nothing due, it must be set again for the call still waiting
    async with session_with_raw_peer(name="client", default_timeout=3.0) as (session, peer):
        loop = asyncio.get_running_loop()
        for n in range(3):
            call = asyncio.create_task(session.send_request("test/echo", {"n": n}))
            request = await peer.receive_request()
            await asyncio.sleep(0.5)
            await peer.send(Response(request.id, {"n": n}))
            assert await call == {"n": n}
        started = loop.time()
        hanging = asyncio.create_task(session.send_request("test/hang"))
        request = await peer.receive_request()
        with pytest.raises(RequestTimeout):
            await hanging
        assert loop.time() - started == pytest.approx(3.0)
        cancel = await peer.receive_notification()
        assert cancel.params == {"requestId": request.id, "reason": "request timed out"}


async def test_the_timer_is_set_for_the_earliest_deadline_only() -> None:
    loop = asyncio.get_running_loop()
    shared = SharedDeadlines(loop)

    def pending(timeout: float) -> PendingRequest:
        request = PendingRequest(loop.create_future(), "test/x", None)
        request.arm(loop, timeout, None, shared)
        return request

    first = pending(60.0)
    at = shared.armed_at
    assert at is not None
    later = [pending(60.0) for _ in range(5)]  # sequential calls' deadlines: the timer stays
    assert shared.armed_at == at
    earlier = pending(1.0)
    assert shared.armed_at is not None and shared.armed_at < at
    for request in (first, *later, earlier):
        request.disarm()
    assert len(shared) == 0
    shared.close()
    assert shared.armed_at is None

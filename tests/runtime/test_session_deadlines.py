"""Per-request deadlines: expiry tells the peer, progress resets them, ``max_timeout`` caps them.

These run on a virtual clock (:func:`_runtime_helpers.in_virtual_time`): the slow peers below
pace themselves with ``asyncio.sleep`` in virtual seconds, so every deadline is checked exactly
and instantly, however busy the machine is.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _runtime_helpers import in_virtual_time, session_pair, session_with_raw_peer, wait_for

from mcpkit._runtime.session import RequestContext
from mcpkit.protocol._errors import RequestTimeout
from mcpkit.types._jsonrpc import Notification, Request, Response

CANCELLED = "notifications/cancelled"


def progress_token_of(request: Request) -> Any:
    return (request.params or {})["_meta"]["progressToken"]


@in_virtual_time
async def test_expiry_raises_request_timeout_and_the_peer_gets_cancelled() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(session.send_request("test/slow", {"n": 1}, timeout=2.5))
        request = await peer.receive_request()
        with pytest.raises(RequestTimeout) as caught:
            await call
        assert loop.time() - start == pytest.approx(2.5)
        assert (caught.value.method, caught.value.timeout) == ("test/slow", 2.5)
        assert "test/slow got no response within 2.5 s" in str(caught.value)
        cancel = await peer.receive_notification()
        assert cancel == Notification(
            CANCELLED, {"requestId": request.id, "reason": "request timed out"}
        )
        # the late answer is dropped, and the session carries on
        await peer.send(Response(request.id, {"late": True}))
        follow_up = asyncio.create_task(session.send_request("test/next", timeout=1))
        nxt = await peer.receive_request()
        await peer.send(Response(nxt.id, {"next": True}))
        assert await follow_up == {"next": True}


@in_virtual_time
async def test_expiry_cancels_the_peer_sessions_handler() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()
    reasons: list[str | None] = []

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            reasons.append(ctx.cancel_reason)
            cancelled.set()
            raise
        return {}

    async with session_pair(handler) as (client, _):
        with pytest.raises(RequestTimeout):
            await client.send_request("test/forever", timeout=1.0)
        await wait_for(started)
        await wait_for(cancelled)
    assert reasons == ["request timed out"]


@in_virtual_time
async def test_progress_resets_the_deadline() -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(
            session.send_request("test/long", timeout=1.0, progress_callback=on_progress)
        )
        request = await peer.receive_request()
        token = progress_token_of(request)
        for step in range(1, 11):  # 10 x 0.8 s: eight times the deadline, never 1 s without news
            await asyncio.sleep(0.8)
            await peer.notify(
                "notifications/progress",
                {"progressToken": token, "progress": step, "total": 10, "message": f"step {step}"},
            )
        await asyncio.sleep(0.8)
        await peer.send(Response(request.id, {"done": True}))
        assert await call == {"done": True}
        assert loop.time() - start == pytest.approx(8.8)
    assert updates == [(float(s), 10.0, f"step {s}") for s in range(1, 11)]


@in_virtual_time
async def test_max_timeout_caps_the_deadline_however_much_progress_arrives() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(
            session.send_request(
                "test/endless",
                timeout=1.0,
                max_timeout=3.0,
                progress_callback=lambda p, t, m: None,
            )
        )
        request = await peer.receive_request()
        token = progress_token_of(request)

        async def keep_reporting() -> None:
            step = 0
            while True:
                await asyncio.sleep(0.5)
                step += 1
                await peer.notify(
                    "notifications/progress", {"progressToken": token, "progress": step}
                )

        reporter = asyncio.create_task(keep_reporting())
        try:
            with pytest.raises(RequestTimeout) as caught:
                await call
            assert loop.time() - start == pytest.approx(3.0)
            assert caught.value.timeout == 3.0
            cancel = await peer.receive_notification()
            assert cancel.method == CANCELLED and cancel.params == {
                "requestId": request.id,
                "reason": "request timed out",
            }
        finally:
            reporter.cancel()


@in_virtual_time
async def test_progress_that_does_not_increase_does_not_reset_the_deadline() -> None:
    updates: list[float] = []
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(
            session.send_request(
                "test/x", timeout=1.0, progress_callback=lambda p, t, m: updates.append(p)
            )
        )
        request = await peer.receive_request()
        token = progress_token_of(request)
        await asyncio.sleep(0.5)
        await peer.notify("notifications/progress", {"progressToken": token, "progress": 5})
        await asyncio.sleep(0.7)  # 1.2 s: alive only thanks to the first progress
        await peer.notify("notifications/progress", {"progressToken": token, "progress": 5})
        await peer.notify("notifications/progress", {"progressToken": token, "progress": 4})
        await peer.notify("notifications/progress", {"progressToken": "other", "progress": 9})
        with pytest.raises(RequestTimeout):
            await call
        assert loop.time() - start == pytest.approx(1.5)  # 0.5 + 1.0: the repeats were ignored
    assert updates == [5.0]


@in_virtual_time
async def test_without_a_progress_callback_progress_does_not_extend_the_deadline() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(session.send_request("test/x", timeout=1.0))
        request = await peer.receive_request()
        assert "_meta" not in (request.params or {})  # no token asked for
        await asyncio.sleep(0.6)
        await peer.notify("notifications/progress", {"progressToken": request.id, "progress": 1})
        with pytest.raises(RequestTimeout):
            await call
        assert loop.time() - start == pytest.approx(1.0)


@in_virtual_time
async def test_the_default_timeout_applies_when_a_call_gives_none() -> None:
    async with session_with_raw_peer(name="client", default_timeout=4.0) as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(session.send_request("test/x"))
        await peer.receive_request()
        with pytest.raises(RequestTimeout) as caught:
            await call
        assert loop.time() - start == pytest.approx(4.0) and caught.value.timeout == 4.0


@in_virtual_time
async def test_a_send_stuck_on_a_peer_that_stopped_reading_still_times_out() -> None:
    async with session_with_raw_peer(name="client", max_buffer=1) as (session, peer):
        loop = asyncio.get_running_loop()
        await session.send_notification("test/fills-the-pipe")  # the peer never reads it
        start = loop.time()
        with pytest.raises(RequestTimeout):
            await session.send_request("test/stuck", timeout=2.0)  # the pipe is full: send waits
        assert loop.time() - start == pytest.approx(2.0)
        assert (await peer.receive_notification()).method == "test/fills-the-pipe"


@in_virtual_time
async def test_initialize_is_never_cancelled_even_when_it_times_out() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        with pytest.raises(RequestTimeout):
            await session.send_request("initialize", {"protocolVersion": "x"}, timeout=1.0)
        init = await peer.receive_request()
        assert init.method == "initialize"
        follow_up = asyncio.create_task(session.send_request("test/next", timeout=1.0))
        nxt = await peer.receive_request()  # the next message: no cancel came in between
        assert nxt.method == "test/next"
        await peer.send(Response(nxt.id, {}))
        assert await follow_up == {}


@in_virtual_time
async def test_drain_handlers_waits_for_handlers_but_never_longer_than_its_bound() -> None:
    gate = asyncio.Event()
    started = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        started.set()
        if ctx.request.method == "test/stuck":
            await asyncio.Event().wait()
        await gate.wait()
        return {}

    async with session_with_raw_peer(request_handler=handler) as (session, peer):
        loop = asyncio.get_running_loop()
        await peer.request(1, "test/quick")
        await wait_for(started)
        loop.call_later(0.25, gate.set)
        start = loop.time()
        await session.drain_handlers(timeout=5.0)
        assert loop.time() - start == pytest.approx(0.25)  # returned when the handler finished
        assert await peer.receive_response() == Response(1, {})
        started.clear()
        await peer.request(2, "test/stuck")
        await wait_for(started)
        start = loop.time()
        await session.drain_handlers(timeout=2.0)
        assert loop.time() - start == pytest.approx(2.0)  # bounded: the stuck one is left


async def test_a_deadline_on_the_real_clock_expires_and_cancels_the_peer_handler() -> None:
    """The same path on a normal event loop (a short real deadline; waits are bounded)."""
    cancelled = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {}

    async with session_pair(handler) as (client, _):
        with pytest.raises(RequestTimeout):
            await client.send_request("test/forever", timeout=0.05)
        await wait_for(cancelled)

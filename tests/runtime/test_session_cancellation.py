"""Cancellation in both directions, and the cases the spec says must not be cancelled."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from _runtime_helpers import session_pair, session_with_raw_peer, wait_for

from mcpkit._runtime.session import RequestContext
from mcpkit.protocol._errors import RequestCancelled
from mcpkit.types._jsonrpc import Notification, Response

CANCELLED = "notifications/cancelled"


class Recorder:
    """A handler that blocks until released and records how each request ended."""

    def __init__(self) -> None:
        self.started: dict[Any, asyncio.Event] = {}
        self.gates: dict[Any, asyncio.Event] = {}
        self.cancelled: dict[Any, str | None] = {}
        self.cancel_seen = asyncio.Event()
        self.ran: list[Any] = []

    def started_event(self, key: Any) -> asyncio.Event:
        return self.started.setdefault(key, asyncio.Event())

    def gate(self, key: Any) -> asyncio.Event:
        return self.gates.setdefault(key, asyncio.Event())

    async def __call__(self, ctx: RequestContext) -> dict[str, Any]:
        key = ctx.request.id
        self.ran.append(key)
        self.started_event(key).set()
        if ctx.request.method == "test/quick":
            return {"quick": key}
        try:
            await self.gate(key).wait()
        except asyncio.CancelledError:
            self.cancelled[key] = ctx.cancel_reason
            self.cancel_seen.set()
            raise
        return {"released": key}


async def test_cancelling_the_calling_task_tells_the_peer() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        call = asyncio.create_task(session.send_request("test/slow"))
        request = await peer.receive_request()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        cancel = await peer.receive_notification()
        assert cancel == Notification(
            CANCELLED, {"requestId": request.id, "reason": "cancelled by the caller"}
        )
        await peer.send(Response(request.id, {"late": True}))  # dropped, not delivered anywhere


async def test_cancelling_the_caller_cancels_the_peer_sessions_handler() -> None:
    recorder = Recorder()
    async with session_pair(recorder) as (client, _):
        call = asyncio.create_task(client.send_request("test/slow"))
        await wait_for(recorder.started_event(1))
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await wait_for(recorder.cancel_seen)
        assert recorder.cancelled == {1: "cancelled by the caller"}
        assert await client.send_request("test/quick") == {"quick": 2}  # both sessions go on


async def test_the_peers_cancel_stops_the_handler_and_no_response_is_sent() -> None:
    recorder = Recorder()
    async with session_with_raw_peer(request_handler=recorder) as (_, peer):
        await peer.request(1, "test/slow")
        await wait_for(recorder.started_event(1))
        await peer.notify(CANCELLED, {"requestId": 1, "reason": "user pressed stop"})
        await wait_for(recorder.cancel_seen)
        assert recorder.cancelled == {1: "user pressed stop"}
        # the next message from the session answers this: nothing was sent for request 1
        assert await peer.call(2, "test/quick") == Response(2, {"quick": 2})


async def test_a_cancel_read_with_its_request_frees_the_id() -> None:
    """Request and cancel are read in one go, so the handler's task is cancelled before its
    first step and its coroutine never runs: nothing is answered, and the id is free again."""
    recorder = Recorder()
    async with session_with_raw_peer(request_handler=recorder) as (session, peer):
        await peer.request(1, "test/quick")
        await peer.notify(CANCELLED, {"requestId": 1})
        assert await peer.call(2, "test/quick") == Response(2, {"quick": 2})
        assert await peer.call(1, "test/quick") == Response(1, {"quick": 1})
        assert len(session.connection.inbound) == 0
    assert recorder.ran == [2, 1]


async def test_a_handler_that_swallows_the_cancel_still_sends_no_response() -> None:
    started = asyncio.Event()

    async def stubborn(ctx: RequestContext) -> dict[str, Any]:
        if ctx.request.method == "test/quick":
            return {}
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return {"ignored": "the cancel"}  # bad manners; the session still says nothing
        return {}

    async with session_with_raw_peer(request_handler=stubborn) as (_, peer):
        await peer.request("a", "test/slow")
        await wait_for(started)
        await peer.notify(CANCELLED, {"requestId": "a"})
        assert await peer.call("b", "test/quick") == Response("b", {})


async def test_inbound_initialize_is_never_cancelled() -> None:
    recorder = Recorder()
    async with session_with_raw_peer(request_handler=recorder) as (_, peer):
        await peer.request(1, "initialize", {"protocolVersion": "2025-06-18"})
        await wait_for(recorder.started_event(1))
        await peer.notify(CANCELLED, {"requestId": 1, "reason": "not allowed"})
        assert await peer.call(2, "test/quick") == Response(2, {"quick": 2})
        recorder.gate(1).set()
        assert await peer.receive_response() == Response(1, {"released": 1})
    assert recorder.cancelled == {}


async def test_cancelling_our_initialize_sends_no_cancel() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        call = asyncio.create_task(session.send_request("initialize", {"protocolVersion": "x"}))
        await peer.receive_request()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        follow_up = asyncio.create_task(session.send_request("test/next"))
        nxt = await peer.receive_request()  # the very next message: no cancel in between
        assert nxt.method == "test/next"
        await peer.send(Response(nxt.id, {}))
        assert await asyncio.wait_for(follow_up, 10) == {}


async def test_cancels_for_unknown_answered_or_repeated_ids_are_ignored() -> None:
    recorder = Recorder()
    async with session_with_raw_peer(request_handler=recorder) as (_, peer):
        assert await peer.call(1, "test/quick") == Response(1, {"quick": 1})
        await peer.notify(CANCELLED, {"requestId": 1})  # already answered
        await peer.notify(CANCELLED, {"requestId": 404})  # never existed
        await peer.notify(CANCELLED, {"requestId": True})  # not an id at all
        await peer.notify(CANCELLED, {})  # legacy: requestId is optional
        await peer.request(2, "test/slow")
        await wait_for(recorder.started_event(2))
        await peer.notify(CANCELLED, {"requestId": 2, "reason": "first"})
        await peer.notify(CANCELLED, {"requestId": 2, "reason": "second"})
        await wait_for(recorder.cancel_seen)
        assert await peer.call(3, "test/quick") == Response(3, {"quick": 3})
    assert recorder.cancelled == {2: "first"}


async def test_a_modern_cancel_without_request_id_is_logged_and_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        return {"resultType": "complete"}

    async with session_with_raw_peer(request_handler=handler) as (session, peer):
        session.protocol_version = "2026-07-28"
        with caplog.at_level(logging.WARNING, logger="mcpkit.session"):
            await peer.notify(CANCELLED, {"reason": "which one?"})
            assert await peer.call(1, "test/x") == Response(1, {"resultType": "complete"})
    assert any('"requestId"' in r.getMessage() for r in caplog.records)


async def test_a_cancel_reaches_a_request_still_waiting_for_a_slot() -> None:
    recorder = Recorder()
    async with session_with_raw_peer(request_handler=recorder, max_concurrent_requests=1) as (
        _,
        peer,
    ):
        await peer.request(1, "test/slow")
        await wait_for(recorder.started_event(1))
        await peer.request(2, "test/slow")  # queued behind request 1
        await peer.notify(CANCELLED, {"requestId": 2})
        recorder.gate(1).set()
        assert await peer.receive_response() == Response(1, {"released": 1})
        assert await peer.call(3, "test/quick") == Response(3, {"quick": 3})
    assert recorder.ran == [1, 3]  # request 2 never started


async def test_a_server_ending_our_listen_with_a_cancel_ends_the_request() -> None:
    """2026 stdio: the server ends ``subscriptions/listen`` by cancelling the client's request."""
    seen: list[Notification] = []
    note_seen = asyncio.Event()

    async def on_note(note: Notification) -> None:
        seen.append(note)
        note_seen.set()

    async with session_with_raw_peer(name="client", notification_handler=on_note) as (
        session,
        peer,
    ):
        listen = asyncio.create_task(session.send_request("subscriptions/listen", {}))
        request = await peer.receive_request()
        await peer.notify(CANCELLED, {"requestId": request.id, "reason": "server shutting down"})
        with pytest.raises(RequestCancelled, match="the peer ended subscriptions/listen"):
            await asyncio.wait_for(listen, 10)
        await wait_for(note_seen)  # the client's routing sees the notification too
        assert seen[0].params == {"requestId": request.id, "reason": "server shutting down"}
        follow_up = asyncio.create_task(session.send_request("test/next"))
        nxt = await peer.receive_request()  # no cancel was echoed back
        assert nxt.method == "test/next"
        await peer.send(Response(nxt.id, {}))
        await asyncio.wait_for(follow_up, 10)

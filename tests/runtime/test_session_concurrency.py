"""Concurrent handling of the peer's requests: at most N at once, a bounded queue behind them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _runtime_helpers import session_with_raw_peer, wait_for

from mcpkit._runtime.session import RequestContext, Session
from mcpkit.protocol._errors import INTERNAL_ERROR, UsageError
from mcpkit.transports._memory import memory_pair
from mcpkit.types._jsonrpc import ErrorResponse, Response

LIMIT = 3
REQUESTS = 12


class Gauge:
    """Counts handlers running at once; each waits for its own gate."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0
        self.peak = 0
        self.over_limit: list[int] = []
        self.gates: dict[Any, asyncio.Event] = {}
        self.started: list[Any] = []
        self.changed = asyncio.Event()

    def gate(self, key: Any) -> asyncio.Event:
        return self.gates.setdefault(key, asyncio.Event())

    async def __call__(self, ctx: RequestContext) -> dict[str, Any]:
        key = ctx.request.id
        self.running += 1
        self.peak = max(self.peak, self.running)
        if self.running > self.limit:
            self.over_limit.append(self.running)
        self.started.append(key)
        self.changed.set()
        try:
            await self.gate(key).wait()
        finally:
            self.running -= 1
        return {"id": key}

    async def wait_started(self, count: int) -> None:
        async with asyncio.timeout(10):
            while len(self.started) < count:
                self.changed.clear()
                await self.changed.wait()


async def test_at_most_max_concurrent_requests_handlers_run_at_once() -> None:
    gauge = Gauge(LIMIT)
    async with session_with_raw_peer(request_handler=gauge, max_concurrent_requests=LIMIT) as (
        _,
        peer,
    ):
        for i in range(REQUESTS):
            await peer.request(i, "test/work")
        await gauge.wait_started(LIMIT)
        assert gauge.started == [0, 1, 2]  # the rest wait for a slot, in arrival order
        answered = []
        for done in range(REQUESTS):
            # release the oldest running request; exactly one queued request takes its slot
            gauge.gate(gauge.started[done]).set()
            answered.append(await peer.receive_response())
            await gauge.wait_started(min(REQUESTS, LIMIT + done + 1))
            assert gauge.running == min(LIMIT, REQUESTS - done - 1)
    assert gauge.peak == LIMIT and gauge.over_limit == []
    assert answered == [Response(i, {"id": i}) for i in range(REQUESTS)]


async def test_requests_beyond_the_queue_bound_are_refused_at_once() -> None:
    gauge = Gauge(1)
    async with session_with_raw_peer(
        request_handler=gauge, max_concurrent_requests=1, max_queued_requests=2
    ) as (_, peer):
        await peer.request(1, "test/work")
        await gauge.wait_started(1)
        await peer.request(2, "test/work")  # queued
        await peer.request(3, "test/work")  # queued: the queue is now full
        refused = await peer.call(4, "test/work")  # answered before anything is released
        assert isinstance(refused, ErrorResponse) and refused.error.code == INTERNAL_ERROR
        assert "retry" in refused.error.message
        for key in (1, 2, 3):
            gauge.gate(key).set()
            assert await peer.receive_response() == Response(key, {"id": key})
        gauge.gate(5).set()
        assert await peer.call(5, "test/work") == Response(5, {"id": 5})  # room again
    assert gauge.started == [1, 2, 3, 5]


async def test_a_handler_may_call_the_peer_while_all_slots_are_busy() -> None:
    """Responses are read by the session's reader, not by a slot: no deadlock at the limit."""
    asked = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        answer = await ctx.send_request("test/question")
        asked.set()
        return answer

    async with session_with_raw_peer(request_handler=handler, max_concurrent_requests=1) as (
        _,
        peer,
    ):
        await peer.request(1, "test/ask")
        question = await peer.receive_request()
        await peer.send(Response(question.id, {"a": 42}))
        await wait_for(asked)
        assert await peer.receive_response() == Response(1, {"a": 42})


def test_limits_are_validated() -> None:
    ours, _ = memory_pair()
    with pytest.raises(UsageError):
        Session(ours, max_concurrent_requests=0)
    with pytest.raises(UsageError):
        Session(ours, max_queued_requests=-1)

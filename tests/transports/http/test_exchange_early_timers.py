"""A slow request's writer (``_exchange._pending``) must not hang when the loop runs its timer
a little before the time computed from the loop's clock. uvloop's clock counts milliseconds,
and such an early wake-up left the writer waiting with no timer: the request was never promoted
to SSE and its client saw no response at all (``tests/contrib/redis/test_redis_workers.py``
hung on it now and then). The asyncio loop is made to fire timers early the same way here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import pytest

from mcpkit.transports.http._server.exchange import StreamOptions, _pending, _Watch
from mcpkit.transports.http._server.pipe import EventPipe

EARLY_S = 0.01
"""How early timers fire (more than uvloop's millisecond, less than the waits below)."""


async def _tick() -> None:
    while True:  # noqa: ASYNC110 - waking the loop up is the point
        await asyncio.sleep(EARLY_S / 10)


@pytest.fixture
async def early_timers() -> AsyncIterator[None]:
    loop = asyncio.get_running_loop()
    resolution = loop._clock_resolution  # type: ignore[attr-defined]
    # the base loop runs every timer due before now + _clock_resolution when it wakes up; a
    # ticker wakes it often, so every timer runs up to EARLY_S before its time
    loop._clock_resolution = EARLY_S  # type: ignore[attr-defined]
    ticker = asyncio.ensure_future(_tick())
    try:
        yield
    finally:
        ticker.cancel()
        loop._clock_resolution = resolution  # type: ignore[attr-defined]


async def _never() -> MutableMapping[str, Any]:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


@pytest.mark.parametrize("sse_after", [0.05, 0.1], ids=["with-the-watch", "after-the-watch"])
async def test_a_slow_answer_is_promoted_to_sse_though_its_timer_fires_early(
    early_timers: None, sse_after: float
) -> None:
    pipe = EventPipe("slow")
    watch = _Watch(_never, asyncio.ensure_future, pipe)
    try:
        promoted = await asyncio.wait_for(
            _pending(pipe, watch, StreamOptions(sse_after=sse_after), json_only=False), 2.0
        )
    finally:
        await watch.stop()
    assert promoted is True


async def test_a_json_only_request_starts_its_watch_though_the_timer_fires_early(
    early_timers: None,
) -> None:
    pipe = EventPipe("slow")
    watch = _Watch(_never, asyncio.ensure_future, pipe)
    waiting = asyncio.ensure_future(_pending(pipe, watch, StreamOptions(), json_only=True))
    try:
        async with asyncio.timeout(2.0):
            while watch.task is None:  # noqa: ASYNC110 - the watch has no event of its own
                await asyncio.sleep(0.01)
        await pipe.finish(b"{}")
        assert await asyncio.wait_for(waiting, 2.0) is False  # answered as JSON
    finally:
        waiting.cancel()
        await watch.stop()

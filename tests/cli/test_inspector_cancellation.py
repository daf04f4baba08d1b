"""The inspector's calls and the cancellation of the request that waits for one (issue #26).

A page cancelling a call (``/api/cancel``) is told ``499 the call was cancelled``; a request that
is itself cancelled (its HTTP client went away, the inspector shuts down) must see its own
cancellation, not a made-up 499 answer. Against a real stdio server: ``checkout`` asks a
question and so waits for the person, which holds the call open for as long as the test needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpkit.cli.inspector._events import EventHub
from mcpkit.cli.inspector._session import ConnectSpec, InspectorError, InspectorSession

from ._run import EXAMPLES

TOUR = str(EXAMPLES / "feature_tour.py")
WAIT = 60.0
"""Bound on each wait (a server process starts under load): a hang fails instead of blocking."""
ORDER = {"items": [{"sku": "tea", "quantity": 1}]}


async def _first(events: AsyncIterator[dict[str, Any]], event_type: str) -> dict[str, Any]:
    async for event in events:
        if event["type"] == event_type:
            return event
    raise AssertionError(f"the stream ended before a {event_type!r} event")


async def _call_waiting_for_the_person(
    session: InspectorSession, hub: EventHub, call_id: str
) -> asyncio.Task[Any]:
    """Start ``checkout``; returns once the server's question is out (the call is in flight)."""
    events = hub.stream()
    call = asyncio.get_running_loop().create_task(session.call_tool("checkout", ORDER, call_id))
    try:
        await asyncio.wait_for(_first(events, "question"), WAIT)
    finally:
        await events.aclose()  # type: ignore[attr-defined]
    assert not call.done()
    return call


async def test_a_cancelled_request_sees_its_own_cancellation_not_a_499() -> None:
    hub = EventHub()
    session = InspectorSession(hub)
    try:
        await asyncio.wait_for(session.connect(ConnectSpec(target=TOUR, mode="legacy")), WAIT)
        call = await _call_waiting_for_the_person(session, hub, "c1")
        call.cancel()  # the request waiting for the call is cancelled, not the call by the page
        await asyncio.wait({call}, timeout=WAIT)
        assert call.cancelled(), f"the request's cancellation became {call!r}"
    finally:
        await asyncio.wait_for(session.aclose(), WAIT)


async def test_a_call_cancelled_from_the_page_is_answered_499() -> None:
    hub = EventHub()
    session = InspectorSession(hub)
    try:
        await asyncio.wait_for(session.connect(ConnectSpec(target=TOUR, mode="legacy")), WAIT)
        call = await _call_waiting_for_the_person(session, hub, "c2")
        assert session.cancel("c2")
        with pytest.raises(InspectorError) as refused:
            await asyncio.wait_for(call, WAIT)
        assert refused.value.status == 499
    finally:
        await asyncio.wait_for(session.aclose(), WAIT)

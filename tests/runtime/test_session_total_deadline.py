"""Progress cannot hold a request open forever: without a ``max_timeout`` a default total cap
(``DEFAULT_MAX_TOTAL_TIMEOUT``) still ends it, with a message that names the cap.

Virtual clock (see ``_runtime_helpers``): the hostile peer reports progress every 0.5 virtual
seconds for as long as it is allowed to, and the test checks the exact moment the call ends.
"""

from __future__ import annotations

import asyncio
import math

import pytest
from _runtime_helpers import in_virtual_time, session_with_raw_peer

from mcpkit._runtime.pending import DEFAULT_MAX_TOTAL_TIMEOUT
from mcpkit.protocol._errors import RequestTimeout
from mcpkit.types._jsonrpc import Response


async def _endless_progress(peer: object, token: object) -> None:
    step = 0
    while True:
        await asyncio.sleep(0.5)
        step += 1
        await peer.notify(  # type: ignore[attr-defined]
            "notifications/progress", {"progressToken": token, "progress": step}
        )


@in_virtual_time
async def test_progress_extends_a_deadline_only_up_to_the_default_total() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        call = asyncio.create_task(
            session.send_request("test/endless", timeout=1.0, progress_callback=lambda *a: None)
        )
        request = await peer.receive_request()
        reporter = asyncio.create_task(
            _endless_progress(peer, (request.params or {})["_meta"]["progressToken"])
        )
        try:
            with pytest.raises(RequestTimeout) as caught:
                async with asyncio.timeout(2 * DEFAULT_MAX_TOTAL_TIMEOUT):  # fail, never hang
                    await call
        finally:
            reporter.cancel()
        assert loop.time() - start == pytest.approx(DEFAULT_MAX_TOTAL_TIMEOUT)
        assert caught.value.total and caught.value.timeout == DEFAULT_MAX_TOTAL_TIMEOUT
        assert "in total (max_timeout" in str(caught.value)
        cancel = await peer.receive_notification()
        assert cancel.method == "notifications/cancelled"


@in_virtual_time
async def test_the_total_cap_can_be_lifted_and_leaves_calls_without_progress_alone() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        loop = asyncio.get_running_loop()
        start = loop.time()
        lifted = asyncio.create_task(
            session.send_request(
                "test/long", timeout=1.0, max_timeout=math.inf, progress_callback=lambda *a: None
            )
        )
        request = await peer.receive_request()
        reporter = asyncio.create_task(
            _endless_progress(peer, (request.params or {})["_meta"]["progressToken"])
        )
        await asyncio.sleep(DEFAULT_MAX_TOTAL_TIMEOUT + 60)
        assert not lifted.done()
        reporter.cancel()
        await peer.send(Response(request.id, {"done": True}))
        assert await lifted == {"done": True}
        assert loop.time() - start == pytest.approx(DEFAULT_MAX_TOTAL_TIMEOUT + 60)
        # no deadline at all (timeout=None) stays no deadline, progress or not
        patient = asyncio.create_task(
            session.send_request("test/patient", timeout=None, progress_callback=lambda *a: None)
        )
        request = await peer.receive_request()
        await asyncio.sleep(DEFAULT_MAX_TOTAL_TIMEOUT * 2)
        assert not patient.done()
        await peer.send(Response(request.id, {"ok": True}))
        assert await patient == {"ok": True}

"""The same exchanges through both proxies ``docs/deploy.md`` configures: HAProxy and nginx.

An elicitation round trip in a legacy session is the exchange a proxy can slow down: the server's
question travels on the open SSE response, the answer comes back as a new POST, and the result
follows on the first stream. A proxy that buffers or coalesces small writes (HAProxy without
``option http-no-delay`` held each one ~200 ms) makes every such exchange slow. The round trips
are measured and recorded (``record_property``: the JUnit report, and ``-s`` prints them); they are
not asserted, because timing on a shared machine is not a test (``benchmarks/proxy_rtt.py`` is
the measurement to quote).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client

from ._deployment import deployment

ROUNDS: Final = 5


async def _answer(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


@pytest.mark.parametrize("proxy", ["haproxy", "nginx"])
async def test_elicitation_round_trips_through_the_proxy(
    proxy: str, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    with deployment(tmp_path, workers=1, proxy_kind=proxy) as running:
        pid = running.workers[0].pid
        async with Client(running.url, mode="legacy", elicitation_handler=_answer) as client:
            took: list[float] = []
            for _ in range(ROUNDS):
                begin = time.perf_counter()
                text = (await client.call_tool("ask", {})).content[0].text  # type: ignore[union-attr]
                took.append(time.perf_counter() - begin)
                assert text == f"Ada asked_on={pid} finished_on={pid}"
        calls = [r for r in running.routes(2 * ROUNDS) if r.method == "POST"]
        assert {r.worker for r in calls} == {0} and all(r.status in (200, 202) for r in calls)
    median_ms = statistics.median(took) * 1000
    record_property(f"{proxy}_elicitation_round_trip_ms", round(median_ms, 1))
    print(f"{proxy}: elicitation round trip, median of {ROUNDS}: {median_ms:.1f} ms")

"""2026-07-28 (stateless) across three workers behind HAProxy: no Redis needed.

Every request stands alone, so any worker answers any of them; the one thing the workers must
share is the key ring that seals MRTR ``requestState`` (``MCPKIT_STATE_KEYS``). Each scenario
checks, through the pids the tools report, that the requests really landed on different workers.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import InvalidParams

from ._deployment import Deployment, deployment
from ._peer import run_sdk_client

MODERN: Final = "2026-07-28"
_ASKED: Final = re.compile(r"^(\w+) asked_on=(\d+) finished_on=(\d+)$")


def _keys() -> dict[str, str]:
    key = base64.b64encode(os.urandom(32)).decode()
    return {"MCPKIT_STATE_KEYS": key}


@pytest.fixture
def shared_keys(tmp_path: Path) -> Iterator[Deployment]:
    with deployment(tmp_path, env=_keys()) as running:
        yield running


async def _answer(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


async def test_requests_are_spread_over_every_worker(shared_keys: Deployment) -> None:
    async with Client(shared_keys.url, mode=MODERN) as client:
        served = [int((await client.call_tool("whoami", {})).content[0].text) for _ in range(9)]
    assert set(served) == shared_keys.pids  # round robin, no stickiness: all three served
    assert all(served[i] != served[i + 1] for i in range(len(served) - 1))
    calls = [
        r for r in shared_keys.routes(9, mcp_method="tools/call") if r.mcp_method == "tools/call"
    ]
    assert len(calls) == 9  # the proxy's own log agrees: the pids are the workers it chose
    assert [shared_keys.workers[r.worker].pid for r in calls] == served


async def test_mrtr_rounds_complete_on_another_worker(shared_keys: Deployment) -> None:
    finished: set[int] = set()
    async with Client(shared_keys.url, mode=MODERN, elicitation_handler=_answer) as client:
        for _ in range(3):
            text = (await client.call_tool("ask", {})).content[0].text
            found = _ASKED.match(text)
            assert found is not None, text
            name, asked_on, finished_on = found.group(1), int(found.group(2)), int(found.group(3))
            assert name == "Ada"
            assert {asked_on, finished_on} <= shared_keys.pids
            assert asked_on != finished_on  # the answer round was served by another worker
            finished.add(finished_on)
    assert len(finished) >= 2


async def test_mrtr_across_workers_needs_shared_keys(tmp_path: Path) -> None:
    """Without ``MCPKIT_STATE_KEYS`` each worker signs with its own random key: the retry lands
    on a worker that cannot verify the state, which is refused (-32602 ``unknown key``) and never
    trusted. This is what the deployment guide tells operators to avoid."""
    with deployment(tmp_path) as running:
        async with Client(running.url, mode=MODERN, elicitation_handler=_answer) as client:
            with pytest.raises(InvalidParams, match="unknown key"):
                await client.call_tool("ask", {})


async def test_a_killed_worker_leaves_the_rotation(shared_keys: Deployment) -> None:
    victim = shared_keys.workers[0]
    victim.kill()
    survivors = shared_keys.pids - {victim.pid}
    async with Client(shared_keys.url, mode=MODERN) as client:
        served = [int((await client.call_tool("whoami", {})).content[0].text) for _ in range(8)]
    assert set(served) == survivors  # nothing failed: refused connections were redispatched


@pytest.mark.peers
async def test_official_sdk_client_across_workers(shared_keys: Deployment) -> None:
    summary = await run_sdk_client(shared_keys.url, MODERN, calls=6)
    assert set(summary["whoami"]) == shared_keys.pids
    name, asked_on, finished_on = _ASKED.match(summary["ask"]).groups()  # type: ignore[union-attr]
    assert name == "Grace" and asked_on != finished_on

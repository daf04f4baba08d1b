"""Questions whose client hung up neither pin serving slots nor pile up (issue 28).

A client opens legacy sessions, calls a tool that asks the user a question (elicitation, sent on
the call's SSE stream) and closes the socket once the question arrived. The session lives on (a
disconnect is not a cancellation), so the handler waits for an answer: such requests must not
count against the server's concurrency limit, and only a bounded number of them may wait per
session and per peer. The server is a real process on the default serve path.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

import httpx
from _asgi_harness import ACCEPT_BOTH, LEGACY_VERSION, bound, call_body, initialize_body
from _asgi_process import server_process

from mcpkit.transports.http._server.parked import MAX_PARKED_PER_PEER, MAX_PARKED_PER_SESSION

SESSIONS: Final = 6
ABANDONED_PER_SESSION: Final = 10
"""60 abandoned questions in all: more than each bound (8 per session, 32 per peer) and more
than the concurrency limit the server runs with here (20)."""
TASKS_PER_PARKED: Final = 3
"""The HTTP request's task (the handler runs in it), its response writer, and the question
waiting for its answer."""


async def _open_session(http: httpx.AsyncClient) -> dict[str, str]:
    answer = await http.post(
        "/mcp",
        json=initialize_body(capabilities={"elicitation": {}}),
        headers=ACCEPT_BOTH,
    )
    assert answer.status_code == 200, answer.text
    headers = {
        **ACCEPT_BOTH,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": LEGACY_VERSION,
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post("/mcp", json=initialized, headers=headers)).status_code == 202
    return headers


async def _abandon_question(url: str, headers: dict[str, str], request_id: int) -> None:
    """Call ``ask``, read until its question arrives, hang up."""
    async with (
        httpx.AsyncClient(base_url=url) as http,
        http.stream("POST", "/mcp", json=call_body(request_id, "ask"), headers=headers) as reply,
    ):
        assert reply.status_code == 200
        seen = b""
        async for chunk in reply.aiter_bytes():
            seen += chunk
            if b"elicitation/create" in seen:
                return
        raise AssertionError(f"no question on the stream: {seen!r}")


async def _tasks(http: httpx.AsyncClient, headers: dict[str, str]) -> int:
    answer = await http.post("/mcp", json=call_body(999, "tasks"), headers=headers)
    assert answer.status_code == 200, answer.text
    body: Any = (
        answer.json()
        if answer.headers["content-type"].startswith("application/json")
        else (json.loads(answer.text.split("data: ", 1)[1].split("\n", 1)[0]))
    )
    assert "structuredContent" in body.get("result", {}), body
    count: int = body["result"]["structuredContent"]["result"]
    return count


async def test_abandoned_questions_hold_no_slot_and_stay_bounded() -> None:
    async with (
        server_process("--uvicorn", "limit_concurrency=20") as url,
        httpx.AsyncClient(base_url=url) as http,
    ):
        observer = await _open_session(http)
        baseline = await _tasks(http, observer)
        sessions = [await _open_session(http) for _ in range(SESSIONS)]
        for n, headers in enumerate(sessions):  # one session's questions at a time
            await bound(
                asyncio.gather(
                    *(
                        _abandon_question(url, headers, 100 * n + i)
                        for i in range(ABANDONED_PER_SESSION)
                    )
                )
            )
        # at most 32 questions wait (the peer's bound; 8 per session): the rest were cancelled
        ceiling = baseline + TASKS_PER_PARKED * min(
            MAX_PARKED_PER_PEER, SESSIONS * MAX_PARKED_PER_SESSION
        )

        async def settled() -> int:
            while (count := await _tasks(http, observer)) > ceiling:  # noqa: ASYNC110  (another process)
                await asyncio.sleep(0.05)  # the server unwinds the cancelled handlers
            return count

        assert await bound(settled()) <= ceiling
        # the waiting ones hold no serving slot: fresh requests from anyone are answered
        for _ in range(5):
            fresh = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
            assert fresh.status_code == 200, fresh.text


class _Handle:
    def __init__(self) -> None:
        self.reason: str | None = None

    def cancel(self, reason: str) -> None:
        self.reason = reason


def test_each_bound_cancels_the_oldest_parked_request_it_covers() -> None:
    from mcpkit.transports.http._server.parked import ParkedRequests

    table = ParkedRequests(max_per_session=2, max_per_peer=3, max_total=4)
    a1, a2, a3 = _Handle(), _Handle(), _Handle()
    for handle in (a1, a2, a3):
        table.park(handle, "session-a", "peer-1")
    assert a1.reason is not None and a2.reason is None and len(table) == 2  # per session
    b1, b2 = _Handle(), _Handle()
    table.park(b1, "session-b", "peer-1")
    table.park(b2, "session-b", "peer-1")
    assert a2.reason is not None and len(table) == 3  # per peer: the peer's oldest
    c1, c2 = _Handle(), _Handle()
    table.park(c1, "session-c", "peer-2")
    table.park(c2, "session-d", "peer-3")
    assert a3.reason is not None and len(table) == 4  # in all: the oldest anywhere
    table.unpark(b1)
    table.unpark(b1)  # twice is harmless
    assert len(table) == 3 and b2.reason is None and c1.reason is None

"""Requests without a legacy session run their handler inline, in the HTTP request's own task
(``transports/http/_server/exchange.py``): a quick answer needs no handler task, a slow one gets a
writer
task that watches the connection. These check the slow side keeps its guarantees: closing a 2026
request's connection still cancels its handler (JSON mode and SSE mode, before any byte was
sent), and a handler that outlives the watch window is still answered. Real uvicorn on loopback."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from _asgi_harness import bound, modern_body, modern_headers, running
from _asgi_servers import Probe, build_server

from mcpkit.transports.http import McpHttpApp

POLL_S = 0.01
"""How often the test looks for the writer task (bounded by ``bound``)."""


def _app(probe: Probe, **options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server(probe).http_app(**options)
    return app


async def _writer_started(app: McpHttpApp) -> None:
    # The writer is started by a timer inside the app, which offers no event to wait on; the
    # caller bounds this poll.
    while app.task_count == 0:  # noqa: ASYNC110
        await asyncio.sleep(POLL_S)


@pytest.mark.parametrize("options", [{"json_response": True}, {}], ids=["json", "sse-capable"])
async def test_closing_the_connection_cancels_an_inline_handler(options: dict[str, Any]) -> None:
    probe = Probe()
    app = _app(probe, **options)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(21, "tools/call", {"name": "hold", "arguments": {}})
        call = asyncio.ensure_future(http.post("/mcp", json=body, headers=modern_headers(body)))
        await bound(probe.hold_started.wait())
        call.cancel()  # the client gives up before any byte of the answer: the connection closes
        with pytest.raises(asyncio.CancelledError):
            await call
        await bound(probe.hold_cancelled.wait())
        await bound(app.wait_idle())
        assert app.task_count == 0


async def test_a_handler_outliving_the_watch_window_still_answers_json() -> None:
    probe = Probe()
    app = _app(probe, json_response=True)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        body = modern_body(22, "tools/call", {"name": "hold", "arguments": {}})
        call = asyncio.ensure_future(http.post("/mcp", json=body, headers=modern_headers(body)))
        await bound(probe.hold_started.wait())
        await bound(_writer_started(app))  # the request now has a task watching its connection
        probe.release.set()
        response = await bound(call)
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert response.json()["result"]["content"][0]["text"] == "released"
        assert not probe.hold_cancelled.is_set()
        await bound(app.wait_idle())

"""A legacy request cancelled (``notifications/cancelled``) before its answer started.

The spec (2025-11-25, transports: a POSTed request is answered with ``text/event-stream`` or with
``application/json`` holding *one* JSON object; cancellation: the receiver SHOULD NOT respond to a
cancelled request) leaves one shape that honours both: an SSE stream that ends without a JSON-RPC
message. An empty ``200 application/json`` body is not a JSON object, and 202/204 are the answers
to notifications and responses, not to requests. In JSON-only mode the same holds: SSE is the
only way to end a request's POST with no JSON-RPC body, so a cancelled request gets that too.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from _asgi_harness import LegacyPeer, bound, call_body, collect_sse, running, sse_messages
from _asgi_servers import Probe, build_server

from mcpkit.transports.http import McpHttpApp


def _app(probe: Probe, **options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server(probe).http_app(**options)
    return app


async def _cancel_while_pending(**options: Any) -> tuple[httpx.Response, bytes]:
    probe = Probe()
    app = _app(probe, **options)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        # The POST's headers only come with its answer, so it runs as a task meanwhile.
        post = asyncio.create_task(
            http.post("/mcp", json=call_body(7, "hold"), headers=peer.headers())
        )
        await bound(probe.hold_started.wait())
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "user gave up"},
        }
        assert (await peer.post(cancel)).status_code == 202
        r = await bound(post)
        body = r.content
        await bound(probe.hold_cancelled.wait())
        await bound(app.wait_idle())
        # the session keeps serving
        answer = await peer.call(8, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert answer["result"]["content"][0]["text"] == "3"
        return r, body


async def test_a_request_cancelled_before_its_answer_gets_an_sse_stream_that_just_ends() -> None:
    response, body = await _cancel_while_pending(sse_after=30.0)  # still pending when cancelled
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream"), response.headers
    events = await collect_sse(_Replay(body))  # type: ignore[arg-type]
    assert sse_messages(events) == []  # no JSON-RPC message at all: no response to a cancel


async def test_json_only_mode_does_not_answer_a_cancelled_request_with_an_empty_json_body() -> None:
    response, body = await _cancel_while_pending(json_response=True, sse_after=30.0)
    assert not (
        response.headers.get("content-type", "").startswith("application/json") and body == b""
    ), "an empty application/json body is not one JSON object"
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream"), response.headers
    events = await collect_sse(_Replay(body))  # type: ignore[arg-type]
    assert sse_messages(events) == []


class _Replay:
    """An already-read body, fed to :func:`collect_sse` as if it streamed."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    async def aiter_bytes(self) -> Any:
        yield self._body

"""The optional 2024-11-05 HTTP+SSE endpoint: ``endpoint`` event first, POSTs get 202, every
answer arrives as an SSE ``message`` event; the session lives as long as the stream."""

from __future__ import annotations

from typing import Any

import httpx
from _asgi_harness import ACCEPT_BOTH, bound, initialize_body, running
from _asgi_servers import build_server

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._sse import SSEDecoder, SSEEvent
from mcpkit.transports.http import McpHttpApp


class _Events:
    """Reads one SSE response event by event."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.aiter_bytes()
        self._decoder = SSEDecoder()
        self._ready: list[SSEEvent] = []

    async def next(self) -> SSEEvent:
        while not self._ready:
            self._ready += self._decoder.feed(await bound(anext(self._chunks)))
        return self._ready.pop(0)

    async def message(self) -> dict[str, Any]:
        event = await self.next()
        assert event.event == "message"
        message: dict[str, Any] = decode_json(event.data)
        return message


async def test_http_sse_transport_round_trip() -> None:
    app: McpHttpApp = build_server().http_app(legacy_sse=True)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        async with http.stream("GET", "/sse", headers={"accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200
            events = _Events(stream)
            endpoint = await events.next()
            assert endpoint.event == "endpoint" and endpoint.data.startswith(
                "/messages?session_id="
            )
            assert app.session_count == 1
            post = await http.post(
                endpoint.data, json=initialize_body(version="2024-11-05"), headers=ACCEPT_BOTH
            )
            assert post.status_code == 202 and post.content == b""
            init = await events.message()
            assert init["id"] == 1 and init["result"]["protocolVersion"] == "2024-11-05"
            await http.post(
                endpoint.data,
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers=ACCEPT_BOTH,
            )
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "progress",
                    "arguments": {"steps": 2},
                    "_meta": {"progressToken": "t"},
                },
            }
            assert (
                await http.post(endpoint.data, json=call, headers=ACCEPT_BOTH)
            ).status_code == 202
            first, second, answer = (
                await events.message(),
                await events.message(),
                await events.message(),
            )
            assert [first["params"]["progress"], second["params"]["progress"]] == [1, 2]
            assert answer["id"] == 2 and answer["result"]["content"][0]["text"] == "2 steps"
            bad = await http.post(endpoint.data, content=b"{oops", headers=ACCEPT_BOTH)
            assert bad.status_code == 400 and bad.json()["error"]["code"] == -32700
        await bound(app.wait_idle())
        assert app.session_count == 0  # the stream closed, so the session ended
        gone = await http.post(endpoint.data, json=call, headers=ACCEPT_BOTH)
        assert gone.status_code == 404


async def test_http_sse_endpoint_is_off_by_default() -> None:
    async with running(build_server().http_app()) as url, httpx.AsyncClient(base_url=url) as http:
        assert (await http.get("/sse")).status_code == 404

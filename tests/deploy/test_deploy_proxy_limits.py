"""Per-client limits behind a real HAProxy count the real client, not the proxy.

Every connection a worker gets comes from HAProxy's address. Counted per address, the streams of
*all* clients add up against one cap: once it is reached the worker answers 503 to everyone,
its ``/healthz`` included, and the proxy takes it out of rotation. With the proxy listed in
``forwarded_allow_ips`` (and ``option forwardfor``), each client is counted by its forwarded
address: the greedy one is refused, the others and the health checks are served.

The clients connect to the proxy from different loopback addresses (``127.0.0.2``,
``127.0.0.3``: Linux routes all of 127/8 to ``lo``), which HAProxy forwards in
``X-Forwarded-For``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

import httpx

from ._deployment import deployment

CAP: Final = 3
LEGACY: Final = "2025-11-25"
ACCEPT: Final = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}
WAIT: Final = 20.0


def _initialize(request_id: int = 1) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "deploy-limits", "version": "1"},
        },
    }


def _client(source: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    return httpx.AsyncClient(transport=transport, timeout=WAIT)


async def _session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    """A legacy session's headers (initialize, then ``notifications/initialized``)."""
    response = await http.post(url, json=_initialize(), headers=ACCEPT)
    assert response.status_code == 200, response.text
    headers = {**ACCEPT, "mcp-session-id": response.headers["mcp-session-id"]}
    headers["mcp-protocol-version"] = LEGACY
    note = await http.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    assert note.status_code == 202, note.text
    return headers


@contextlib.asynccontextmanager
async def _open_streams(url: str, source: str, count: int) -> AsyncIterator[httpx.AsyncClient]:
    """``count`` sessions from ``source``, each holding its ``GET`` stream open (headers seen)."""
    async with _client(source) as http, contextlib.AsyncExitStack() as streams:
        for _ in range(count):
            headers = await _session(http, url)
            response = await streams.enter_async_context(
                http.stream("GET", url, headers={**headers, "accept": "text/event-stream"})
            )
            assert response.status_code == 200, await response.aread()
        yield http


async def test_streams_behind_the_proxy_are_counted_per_forwarded_client(tmp_path: Path) -> None:
    args = ["--forwarded-allow-ips", "127.0.0.1", "--max-connections-per-peer", str(CAP)]
    with deployment(tmp_path, workers=1, args=args) as running:
        health = running.url.rsplit("/", 1)[0] + "/healthz"
        async with _open_streams(running.url, "127.0.0.2", CAP) as greedy:
            # the greedy client is at its cap: its next request is refused ...
            refused = await greedy.post(running.url, json=_initialize(), headers=ACCEPT)
            assert refused.status_code == 503, refused.text
            assert refused.headers["retry-after"] == "1"
            # ... and nobody else is: another client, and the health checks (through the proxy
            # and straight to the worker from the proxy's own address)
            async with _client("127.0.0.3") as other:
                headers = await _session(other, running.url)
                call = {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "whoami", "arguments": {}},
                }
                answer = await other.post(running.url, json=call, headers=headers)
                assert answer.status_code == 200, answer.text
                assert str(running.workers[0].pid) in answer.text
                assert (await other.get(health)).status_code == 200
            async with _client("127.0.0.1") as probe:
                direct = await probe.get(running.workers[0].url.rsplit("/", 1)[0] + "/healthz")
                assert direct.status_code == 200, direct.text

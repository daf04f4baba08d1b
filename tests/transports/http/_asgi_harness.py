"""Test harness for the Streamable HTTP server: a real uvicorn on loopback, and wire helpers.

``running(app)`` serves an ASGI app with uvicorn inside the test's event loop on a socket that
is already listening (port 0, so no races for a free port): a request made right away waits in
the kernel's backlog until uvicorn has run the app's lifespan and starts accepting. The server
is stopped at the end with a bounded wait. In-process on purpose: tests can look at the app's
sessions and tasks (leak checks), and the wire is still real HTTP through uvicorn (h11; set
``MCPKIT_TEST_HTTP_IMPL=httptools`` to run everything on httptools instead).

The helpers speak the wire by hand with httpx (never mcpkit's own client), so a test states
exactly which headers and bodies go out and what must come back.

This directory has no ``__init__.py``/``conftest.py`` on purpose: the package would be named
``http`` and shadow the standard library; this module is imported by its unique name instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

import httpx
import uvicorn

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._http_headers import request_headers
from mcpkit.protocol._sse import SSEDecoder, SSEEvent

__all__ = [
    "ACCEPT_BOTH",
    "LEGACY_VERSION",
    "MODERN_VERSION",
    "STOP_TIMEOUT_S",
    "LegacyPeer",
    "bound",
    "call_body",
    "collect_sse",
    "initialize_body",
    "modern_body",
    "modern_headers",
    "running",
    "sse_messages",
]

MODERN_VERSION: Final = "2026-07-28"
LEGACY_VERSION: Final = "2025-11-25"
ACCEPT_BOTH: Final = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}
STOP_TIMEOUT_S: Final = 10.0
"""Bound on a server's graceful stop (uvicorn polls its exit flag every 0.1 s)."""
WAIT_S: Final = 10.0
"""Bound on anything a test waits for (an event, a task count reaching zero)."""


@contextlib.asynccontextmanager
async def running(app: Any, **uvicorn_options: Any) -> AsyncIterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port); yields the base URL ``http://127.0.0.1:N``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    options: dict[str, Any] = {
        "lifespan": "on",
        "log_level": "warning",
        "timeout_graceful_shutdown": 2,
        "http": os.environ.get("MCPKIT_TEST_HTTP_IMPL", "h11"),  # or httptools
    }
    options.update(uvicorn_options)
    server = uvicorn.Server(uvicorn.Config(app, **options))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        try:
            async with asyncio.timeout(STOP_TIMEOUT_S):
                await task
        finally:
            sock.close()


async def bound(awaitable: Any, seconds: float = WAIT_S) -> Any:
    """Await with a bound, so a broken server fails the test instead of hanging it."""
    async with asyncio.timeout(seconds):
        return await awaitable


def modern_body(
    request_id: int | str,
    method: str,
    params: Mapping[str, Any] | None = None,
    *,
    capabilities: Mapping[str, Any] | None = None,
    version: str = MODERN_VERSION,
    **meta: Any,
) -> dict[str, Any]:
    """A 2026-07-28 request with the per-request ``_meta``."""
    body_params = dict(params or {})
    body_meta = dict(body_params.get("_meta") or {})
    body_meta.update(
        {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": dict(capabilities or {}),
            "io.modelcontextprotocol/clientInfo": {"name": "asgi-tests", "version": "1"},
        }
    )
    body_meta.update(meta)
    body_params["_meta"] = body_meta
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}


def modern_headers(
    body: Mapping[str, Any], schema: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """Every header a conforming 2026 client sends with ``body``."""
    version = body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
    mirrored = request_headers(body, protocol_version=version, tool_input_schema=schema)
    return {**ACCEPT_BOTH, **{name.lower(): value for name, value in mirrored.items()}}


def call_body(request_id: int | str, name: str, **arguments: Any) -> dict[str, Any]:
    """A legacy ``tools/call`` request (no ``_meta``)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def initialize_body(
    request_id: int = 1,
    version: str = LEGACY_VERSION,
    capabilities: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": dict(capabilities or {}),
            "clientInfo": {"name": "asgi-tests", "version": "1"},
        },
    }


async def collect_sse(response: httpx.Response, *, until_id: Any = None) -> list[SSEEvent]:
    """Read a streaming response's SSE events to its end (or until the response ``until_id``)."""
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    async for chunk in response.aiter_bytes():
        for event in decoder.feed(chunk):
            events.append(event)
            if until_id is not None and event.data:
                message = decode_json(event.data)
                if message.get("id") == until_id and "method" not in message:
                    return events
    return events


def sse_messages(events: list[SSEEvent]) -> list[dict[str, Any]]:
    """The JSON-RPC messages among ``events`` (priming events carry no data)."""
    return [decode_json(e.data) for e in events if e.data]


class LegacyPeer:
    """A legacy (2025-11-25) client session spoken by hand: initialize, then session headers."""

    def __init__(self, http: httpx.AsyncClient, path: str = "/mcp") -> None:
        self.http = http
        self.path = path
        self.session_id: str | None = None
        self.version = LEGACY_VERSION

    def headers(self, **extra: str) -> dict[str, str]:
        headers = {**ACCEPT_BOTH, "mcp-protocol-version": self.version}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        headers.update(extra)
        return headers

    async def initialize(self, capabilities: Mapping[str, Any] | None = None) -> dict[str, Any]:
        response = await self.http.post(
            self.path, json=initialize_body(capabilities=capabilities), headers=ACCEPT_BOTH
        )
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        result: dict[str, Any] = response.json()["result"]
        self.version = result["protocolVersion"]
        note = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status_code == 202, note.text
        return result

    async def post(self, body: Mapping[str, Any], **extra: str) -> httpx.Response:
        return await self.http.post(self.path, json=body, headers=self.headers(**extra))

    async def call(
        self, request_id: int, method: str, params: Mapping[str, Any] | None = None
    ) -> Any:
        """A request whose answer may be JSON or SSE; returns the JSON-RPC response object."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            body["params"] = dict(params)
        async with self.http.stream(
            "POST", self.path, json=body, headers=self.headers()
        ) as response:
            assert response.status_code == 200, await response.aread()
            if response.headers["content-type"].startswith("application/json"):
                return decode_json(await response.aread())
            events = await collect_sse(response, until_id=request_id)
            return sse_messages(events)[-1]

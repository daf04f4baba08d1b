"""Scripted HTTP servers: every byte the client gets is chosen by the test, every request kept.

``Scripted(routes)`` is an ASGI app. Each request is recorded as a :class:`Seen` (HTTP method,
lower-cased headers, decoded JSON body) and handled by ``routes[<JSON-RPC method>]``, else
``routes[<HTTP method>]``, else a 404. Handlers get ``(seen, receive, send)``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ._harness import Receive, Scope, Send, read_body, respond

MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"
SERVER_INFO: Final = {"name": "scripted", "version": "1.0.0"}
DISCOVER_RESULT: Final[dict[str, Any]] = {
    "resultType": "complete",
    "supportedVersions": [MODERN],
    "capabilities": {"tools": {"listChanged": True}},
    "ttlMs": 0,
    "cacheScope": "private",
    "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
}
INITIALIZE_RESULT: Final[dict[str, Any]] = {
    "protocolVersion": LEGACY,
    "capabilities": {"tools": {"listChanged": True}},
    "serverInfo": SERVER_INFO,
}


@dataclass
class Seen:
    http_method: str
    headers: dict[str, str]
    body: Any

    @property
    def method(self) -> str | None:
        return self.body.get("method") if isinstance(self.body, dict) else None

    @property
    def id(self) -> Any:
        return self.body.get("id") if isinstance(self.body, dict) else None

    @property
    def params(self) -> dict[str, Any]:
        params = self.body.get("params") if isinstance(self.body, dict) else None
        return params if isinstance(params, dict) else {}


Handler = Callable[[Seen, Receive, Send], Awaitable[None]]


@dataclass
class Scripted:
    routes: Mapping[str, Handler]
    seen: list[Seen] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        raw = await read_body(receive) if scope["method"] == "POST" else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        seen = Seen(scope["method"], headers, body)
        self.seen.append(seen)
        handler = self.routes.get(seen.method or "") or self.routes.get(scope["method"])
        if handler is None:
            await respond(send, 404, b"Not Found", "text/plain")
            return
        await handler(seen, receive, send)

    def of(self, method: str) -> list[Seen]:
        """The requests for one JSON-RPC (or HTTP) method, in order."""
        return [s for s in self.seen if s.method == method or s.http_method == method]


def encode(value: Any) -> bytes:
    return json.dumps(value).encode()


def result(seen: Seen, value: Mapping[str, Any]) -> bytes:
    return encode({"jsonrpc": "2.0", "id": seen.id, "result": dict(value)})


def error(seen: Seen | None, code: int, message: str, data: Any = None) -> bytes:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    body: dict[str, Any] = {"jsonrpc": "2.0", "error": err}
    if seen is not None:
        body["id"] = seen.id
    return encode(body)


def answer(value: Mapping[str, Any], *, headers: tuple[tuple[str, str], ...] = ()) -> Handler:
    """A handler answering every request with ``value`` as its JSON result."""

    async def handle(seen: Seen, receive: Receive, send: Send) -> None:
        await respond(send, 200, result(seen, value), headers=headers)

    return handle


def status(code: int, body: bytes = b"", content_type: str | None = None) -> Handler:
    async def handle(seen: Seen, receive: Receive, send: Send) -> None:
        await respond(send, code, body, content_type)

    return handle


async def accepted(seen: Seen, receive: Receive, send: Send) -> None:
    await respond(send, 202, b"", None)


async def wait_disconnect(receive: Receive, disconnected: asyncio.Event) -> None:
    """Block until the client closes the connection, then say so."""
    while (await receive())["type"] != "http.disconnect":
        pass
    disconnected.set()

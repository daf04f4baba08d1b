"""A raw JSON-RPC peer for server tests: it speaks exact wire messages to a Server in-process.

The server side runs over the real in-memory stream pair (messages go through the JSON codec),
so every message the server emits passes the schema-validation observer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from mcpkit._runtime.session import RequestContext, Session
from mcpkit.server import Server
from mcpkit.types._jsonrpc import Notification

MODERN = "2026-07-28"
LEGACY = "2025-11-25"


def meta(capabilities: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test-client", "version": "1.0"},
    }
    out.update(extra)
    return out


class RawPeer:
    """The test's end of the connection; records every notification the server sends."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.notifications: list[Notification] = []
        self.requests_seen: list[str] = []
        self.arrived = asyncio.Event()

    def record(self, note: Notification) -> None:
        self.notifications.append(note)
        self.arrived.set()

    async def wait_for(
        self, method: str, count: int = 1, timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        """Wait (bounded) until ``count`` notifications of ``method`` arrived; return them all."""
        async with asyncio.timeout(timeout):
            while len(self.of(method)) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.of(method)

    async def modern(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        capabilities: Any = None,
        **kw: Any,
    ) -> dict[str, Any]:
        body = dict(params or {})
        body["_meta"] = {**meta(capabilities), **body.get("_meta", {})}
        return await self.session.send_request(method, body, protocol_version=MODERN, **kw)

    async def legacy(
        self, method: str, params: dict[str, Any] | None = None, **kw: Any
    ) -> dict[str, Any]:
        return await self.session.send_request(method, params, **kw)

    async def initialize(
        self, capabilities: dict[str, Any] | None = None, version: str = LEGACY
    ) -> dict[str, Any]:
        result = await self.session.send_request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "raw-test-client", "version": "1.0"},
            },
        )
        self.session.protocol_version = result["protocolVersion"]
        await self.session.send_notification("notifications/initialized")
        await self.session.send_request("ping")  # the server has now seen ``initialized``
        return result

    def of(self, method: str) -> list[dict[str, Any]]:
        return [n.params or {} for n in self.notifications if n.method == method]


@contextlib.asynccontextmanager
async def connect(
    server: Server,
    answer: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
) -> AsyncIterator[RawPeer]:
    """Connect a raw peer; ``answer(method, params)`` serves the server's legacy requests."""
    peer: RawPeer | None = None
    stream = server.connect_in_memory()

    async def on_request(ctx: RequestContext) -> dict[str, Any]:
        assert peer is not None
        peer.requests_seen.append(ctx.request.method)
        if answer is None:
            from mcpkit.protocol._errors import MethodNotFound

            raise MethodNotFound(ctx.request.method)
        return await answer(ctx.request.method, ctx.request.params or {})

    async def on_notification(note: Notification) -> None:
        assert peer is not None
        peer.record(note)

    async with Session(
        stream, request_handler=on_request, notification_handler=on_notification, name="raw-peer"
    ) as session:
        peer = RawPeer(session)
        yield peer

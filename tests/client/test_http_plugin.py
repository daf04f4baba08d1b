"""The HTTP plug-in point: a client over an :class:`ExchangeTransport` (a scripted double here;
the real Streamable HTTP transport implements the same protocol).

What is checked: each 2026 request is its own exchange carrying the negotiated version, the
listed tool reaches the transport for ``x-mcp-header``, tools with invalid annotations are
dropped, request-scoped notifications arrive with their exchange, cancelling closes the exchange,
and a legacy HTTP server is reached through ``open_legacy_stream``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from mcpkit._runtime.stream import MessageStream
from mcpkit.client import Client, ExchangeTransport
from mcpkit.client._connectors import NotificationSink
from mcpkit.protocol._errors import RemoteProtocolError
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Notification, Request, Response
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification

from .peers.mcpkit_everything import build

GOOD_TOOL = {
    "name": "weather",
    "inputSchema": {
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    },
}
BAD_TOOL = {
    "name": "broken",
    "inputSchema": {
        "type": "object",
        "properties": {"n": {"type": "number", "x-mcp-header": "N"}},  # numbers may not
    },
}


class ScriptedExchange:
    """A modern HTTP server in miniature, or (``legacy=True``) one that rejects modern POSTs."""

    def __init__(self, *, legacy: bool = False) -> None:
        self.legacy = legacy
        self.exchanges: list[tuple[Request, str, Mapping[str, Any] | None]] = []
        self.closed_listens = 0

    async def exchange(
        self,
        request: Request,
        *,
        protocol_version: str,
        on_notification: NotificationSink,
        tool: Mapping[str, Any] | None = None,
    ) -> Response | ErrorResponse:
        self.exchanges.append((request, protocol_version, tool))
        if self.legacy:
            raise RemoteProtocolError("HTTP 400 Bad Request (no JSON-RPC body)")
        params = request.params or {}
        meta = params.get("_meta", {})
        assert meta["io.modelcontextprotocol/protocolVersion"] == protocol_version
        if request.method == "server/discover":
            return Response(
                request.id,
                {
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {"listChanged": True}},
                    "ttlMs": 0,
                    "cacheScope": "private",
                },
            )
        if request.method == "tools/list":
            return Response(request.id, {"resultType": "complete", "tools": [GOOD_TOOL, BAD_TOOL]})
        if request.method == "tools/call":
            token = meta.get("progressToken")
            if token is not None:
                await on_notification(
                    Notification("notifications/progress", {"progressToken": token, "progress": 1})
                )
            return Response(
                request.id,
                {"resultType": "complete", "content": [{"type": "text", "text": "sunny"}]},
            )
        if request.method == "subscriptions/listen":
            await on_notification(
                Notification(
                    "notifications/subscriptions/acknowledged",
                    {"notifications": params["notifications"]},
                )
            )
            try:
                await asyncio.Event().wait()  # the stream stays open until the client closes it
            finally:
                self.closed_listens += 1
        return ErrorResponse(request.id, ErrorObject(-32601, f"unknown {request.method}"))

    @contextlib.asynccontextmanager
    async def open_legacy_stream(self) -> AsyncIterator[MessageStream]:
        stream = build().connect_in_memory()
        try:
            yield stream
        finally:
            await stream.aclose()


class ScriptedHttp:
    def __init__(self, exchange: ScriptedExchange) -> None:
        self.exchange = exchange

    def describe(self) -> str:
        return "https://scripted.example/mcp"

    @contextlib.asynccontextmanager
    async def connect_http(self) -> AsyncIterator[ExchangeTransport]:
        yield self.exchange


async def test_modern_http_exchanges() -> None:
    exchange = ScriptedExchange()
    async with Client(ScriptedHttp(exchange)) as client:
        assert client.era == "modern"
        tools = await client.list_tools()
        assert [t.name for t in tools] == ["weather"]  # "broken" dropped (invalid x-mcp-header)
        progress: list[float] = []
        result = await client.call_tool(
            "weather", {"region": "eu"}, progress_callback=lambda p, t, m: progress.append(p)
        )
        assert result.content[0].text == "sunny"  # type: ignore[union-attr]
        assert progress == [1.0]
        request, version, tool = exchange.exchanges[-1]
        assert request.method == "tools/call" and version == "2026-07-28"
        assert tool is not None and tool["name"] == "weather"  # for Mcp-Param-Region
        ids = [r.id for r, _, _ in exchange.exchanges]
        assert len(set(ids)) == len(ids)

        async with client.listen(tools=True) as sub:
            ack = await anext(sub)
            assert isinstance(ack, SubscriptionsAcknowledgedNotification)
        assert exchange.closed_listens == 1  # leaving the subscription closed its exchange


async def test_legacy_http_server_falls_back_to_a_session() -> None:
    exchange = ScriptedExchange(legacy=True)
    async with Client(ScriptedHttp(exchange)) as client:
        assert client.era == "legacy"
        assert [r.method for r, _, _ in exchange.exchanges] == ["server/discover"]
        assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}

"""``Client(url)`` against mcpkit's own ASGI server, served by uvicorn on loopback in-process.

Both eras in each server mode; era detection against a legacy-only server (the modern probe is
refused without a modern error, so the client falls back to ``initialize``); 2026 listen
streams over HTTP; the server's own 2024-11-05 endpoint reached through the fallback.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.types._notifications import ToolListChangedNotification
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification
from mcpkit.types._tools import CallToolResult
from mcpkit.types._versions import LEGACY_VERSIONS

from ._harness import WAIT, running
from .peers.kit_http_server import build

MODES: dict[str, dict[str, Any]] = {
    "sse": {},
    "json": {"json_response": True},
    "stateless-json": {"stateless": True, "json_response": True},
}


def text_of(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize("options", list(MODES.values()), ids=list(MODES))
async def test_both_eras_in_every_server_mode(options: dict[str, Any]) -> None:
    async with running(build().http_app(**options), lifespan="on") as base:
        for mode, era in (("auto", "modern"), ("legacy", "legacy")):
            async with Client(base + "/mcp", mode=mode, timeout=WAIT) as client:
                assert client.era == era
                names = {tool.name for tool in await client.list_tools()}
                assert {"add", "progress", "weather"} <= names
                added = await client.call_tool("add", {"a": 40, "b": 2})
                assert added.structured_content == {"result": 42}
                seen: list[float] = []
                await client.call_tool(
                    "progress",
                    {"steps": 2},
                    progress_callback=lambda p, t, m, seen=seen: seen.append(p),
                )
                assert seen in ([1.0, 2.0], [])  # JSON-only answers drop notifications
                weather = await client.call_tool("weather", {"region": " padded "})
                assert text_of(weather) == "sunny in  padded "  # base64 in Mcp-Param-Region


async def test_a_legacy_only_server_is_detected_by_its_refusal() -> None:
    app = build(supported_versions=LEGACY_VERSIONS).http_app()
    async with running(app, lifespan="on") as base, Client(base + "/mcp") as client:
        assert (client.era, client.protocol_version) == ("legacy", "2025-11-25")
        assert client.negotiated.session_id
        assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_change_notifications_reach_a_listener(mode: Any) -> None:
    """2026: a subscriptions/listen POST whose SSE stream stays open; legacy: the session."""
    async with (
        running(build().http_app(), lifespan="on") as base,
        Client(base + "/mcp", mode=mode, timeout=WAIT) as client,
        client.listen(tools=True) as changes,
    ):
        assert isinstance(await anext(changes), SubscriptionsAcknowledgedNotification)
        await client.call_tool("change")
        assert isinstance(await anext(changes), ToolListChangedNotification)


async def test_the_servers_own_http_sse_endpoint_via_fallback() -> None:
    app = build().http_app(legacy_sse=True)
    async with running(app, lifespan="on") as base, Client(base + "/sse", timeout=WAIT) as client:
        assert client.era == "legacy"
        assert getattr(client._stream, "transport", None) == "http+sse"
        assert (await client.call_tool("add", {"a": 2, "b": 2})).structured_content == {"result": 4}

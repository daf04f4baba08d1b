"""Server Cards (experimental, draft SEP-2127) over a real HTTP server on loopback.

The server publishes its card at ``<mcp-url>/server-card`` and a catalog at the well-known
paths, generated from its own metadata; the client fetches the card, connects to the URL it
names, and verifies it against ``server/discover`` (or ``initialize``), in both eras.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from _loopback import serving
from mcpkit import Client, Server
from mcpkit.client import (
    ServerCardError,
    ServerCardMismatch,
    fetch_server_card,
    verify_server_card,
)
from mcpkit.protocol._server_card import SERVER_CARD_MEDIA_TYPE, SERVER_CARD_SCHEMA
from mcpkit.types._versions import ALL_VERSIONS, LEGACY_VERSIONS


def build(**options: Any) -> Server:
    server = Server(
        "weather",
        "2.1.0",
        title="Weather",
        description="Forecasts for any city",
        website_url="https://example.com/weather",
        **options,
    )

    @server.tool
    def forecast(city: str) -> str:
        """Tomorrow's weather."""
        return f"sunny in {city}"

    return server


async def test_the_card_is_generated_from_the_servers_metadata() -> None:
    server = build()
    app = server.http_app(server_card=True, server_card_name="com.example/weather")
    async with serving(app) as base, httpx.AsyncClient() as http:
        response = await http.get(
            f"{base}/mcp/server-card", headers={"accept": SERVER_CARD_MEDIA_TYPE}
        )
        url = f"{base}/mcp"
    assert response.status_code == 200
    assert response.headers["content-type"] == SERVER_CARD_MEDIA_TYPE
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["cache-control"].startswith("public, max-age=")
    card = response.json()
    assert card["$schema"] == SERVER_CARD_SCHEMA
    assert card["name"] == "com.example/weather"
    assert card["version"] == "2.1.0"
    assert card["title"] == "Weather"
    assert card["description"] == "Forecasts for any city"
    assert card["websiteUrl"] == "https://example.com/weather"
    assert card["remotes"] == [
        {
            "type": "streamable-http",
            "url": url,
            "supportedProtocolVersions": list(reversed(ALL_VERSIONS)),
        }
    ]
    assert card["_meta"]["dev.mcpkit/capabilities"] == server.capabilities(modern=True)


async def test_the_catalog_lists_the_card_at_both_well_known_paths() -> None:
    app = build().http_app(server_card=True)
    async with serving(app) as base, httpx.AsyncClient() as http:
        documents = [
            (await http.get(f"{base}{path}"))
            for path in ("/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json")
        ]
        card = await fetch_server_card(f"{base}/mcp")
    for response in documents:
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == "*"
        catalog = response.json()
        assert catalog["specVersion"] == "draft"
        assert catalog["entries"] == [
            {
                "identifier": "urn:air:127.0.0.1:weather",
                "displayName": "Weather",
                "type": SERVER_CARD_MEDIA_TYPE,
                "url": f"{base}/mcp/server-card",
            }
        ]
    assert card["name"] == "1.0.0.127/weather"  # the request's host, reversed


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_fetch_connect_to_the_cards_url_and_verify(mode: str) -> None:
    async with serving(build().http_app(server_card=True)) as base:
        card = await fetch_server_card(f"{base}/mcp")
        url = card["remotes"][0]["url"]
        async with Client(url, mode=mode) as client:
            verify_server_card(card, client, url=url)  # agrees: no exception
            result = await client.call_tool("forecast", {"city": "Lisbon"})
    assert result.content[0].text == "sunny in Lisbon"


async def test_a_legacy_only_server_lists_only_legacy_versions() -> None:
    server = build(supported_versions=LEGACY_VERSIONS)
    async with serving(server.http_app(server_card=True)) as base:
        card = await fetch_server_card(f"{base}/mcp/server-card")
        assert set(card["remotes"][0]["supportedProtocolVersions"]) == set(LEGACY_VERSIONS)
        async with Client(card["remotes"][0]["url"]) as client:
            assert client.era == "legacy"
            verify_server_card(card, client)


async def test_a_card_that_contradicts_the_server_is_refused_with_every_reason() -> None:
    app = build().http_app(server_card=True, public_url="https://elsewhere.example/mcp")
    async with serving(app) as base:
        card = await fetch_server_card(f"{base}/mcp")
        assert card["remotes"][0]["url"] == "https://elsewhere.example/mcp"
        async with Client(f"{base}/mcp", mode="2026-07-28") as client:
            stale = {
                **card,
                "version": "1.0.0",
                "remotes": [
                    {**card["remotes"][0], "supportedProtocolVersions": ["2025-06-18"]},
                ],
                "_meta": {"dev.mcpkit/capabilities": {"tools": {}}},
            }
            with pytest.raises(ServerCardMismatch) as refused:
                verify_server_card(stale, client, url=f"{base}/mcp")
    reasons = " | ".join(refused.value.problems)
    assert "version: the card says '1.0.0', the server says '2.1.0'" in reasons
    assert "url: the card lists ['https://elsewhere.example/mcp']" in reasons
    assert "protocol versions: the server speaks" in reasons and "2026-07-28" in reasons
    assert "capabilities" in reasons
    assert len(refused.value.problems) == 4


async def test_no_card_unless_enabled_and_clear_errors_for_what_is_not_a_card() -> None:
    async def not_a_card(scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        kind, body = {
            "/html/server-card": (b"text/html", b"<html></html>"),
            "/bad/server-card": (b"application/json", b'{"name": "no slash"}'),
            "/junk/server-card": (SERVER_CARD_MEDIA_TYPE.encode(), b"{not json"),
        }[scope["path"]]
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]}
        )
        await send({"type": "http.response.body", "body": body})

    async with serving(build().http_app()) as base:
        with pytest.raises(ServerCardError, match=r"HTTP 404.*publishes none"):
            await fetch_server_card(f"{base}/mcp")
    async with serving(not_a_card, lifespan="off") as base:
        with pytest.raises(ServerCardError, match="text/html, not application/mcp-server-card"):
            await fetch_server_card(f"{base}/html")
        with pytest.raises(ServerCardError, match=r'not a valid Server Card.*"name" must be'):
            await fetch_server_card(f"{base}/bad")
        with pytest.raises(ServerCardError, match="not JSON"):
            await fetch_server_card(f"{base}/junk")
    with pytest.raises(ServerCardError, match="could not fetch"):
        await fetch_server_card("http://127.0.0.1:9/mcp", timeout=5)


async def test_only_get_and_the_cors_preflight_are_answered() -> None:
    async with serving(build().http_app(server_card=True)) as base, httpx.AsyncClient() as http:
        posted = await http.post(f"{base}/mcp/server-card", content=b"{}")
        preflight = await http.options(f"{base}/mcp/server-card")
        served = await http.post(  # the MCP endpoint itself still serves MCP
            f"{base}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"accept": "application/json, text/event-stream"},
        )
    assert posted.status_code == 405 and posted.headers["allow"] == "GET"
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-methods"] == "GET"
    assert served.status_code != 404


async def test_the_gateway_publishes_its_card_the_same_way() -> None:
    from mcpkit.gateway import Gateway

    gateway = Gateway({"weather": build()}, name="front")
    async with serving(gateway.http_app(server_card=True)) as base:
        card = await fetch_server_card(f"{base}/mcp")
        async with Client(card["remotes"][0]["url"], mode="2026-07-28") as client:
            verify_server_card(card, client, url=f"{base}/mcp")
            result = await client.call_tool("weather__forecast", {"city": "Porto"})
    assert card["name"] == "1.0.0.127/front"
    assert result.content[0].text == "sunny in Porto"

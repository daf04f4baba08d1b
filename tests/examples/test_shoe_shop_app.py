"""The MCP Apps example (examples/shoe_shop_app.py) over stdio and Streamable HTTP, both eras:
what a host that renders apps gets (the view, the app-only tool) and what any other client
gets (the model's tools and useful text)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.client.apps import APPS_CLIENT_OPTIONS, app_callable, fetch_view, model_tools, view_uri
from mcpkit.errors import InvalidParams
from mcpkit.types._apps import APP_MIME_TYPE, APPS_EXTENSION_ID

from ._servers import EXAMPLES, http_example

SCRIPT = "shoe_shop_app.py"
VIEW = "ui://shoe-shop/product-cards"


@contextlib.asynccontextmanager
async def shop(transport: str, mode: Any, tmp_path: Path, **options: Any) -> AsyncIterator[Client]:
    if transport == "stdio":
        target: Any = [sys.executable, str(EXAMPLES / SCRIPT)]
        async with Client(target, mode=mode, **options) as client:
            yield client
        return
    with http_example(SCRIPT, tmp_path) as url:
        async with Client(url, mode=mode, **options) as client:
            yield client


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_host_with_apps_gets_the_view_and_the_app_only_tool(
    transport: str, mode: Any, tmp_path: Path
) -> None:
    async with shop(transport, mode, tmp_path, **APPS_CLIENT_OPTIONS) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"search_products", "add_to_cart", "view_cart"}
        assert [t.name for t in model_tools(tools.values())] == ["search_products", "view_cart"]
        assert view_uri(tools["search_products"]) == VIEW
        assert view_uri(tools["add_to_cart"]) == VIEW and app_callable(tools["add_to_cart"])
        assert view_uri(tools["view_cart"]) is None
        view = await fetch_view(client, tools["search_products"])
        assert view.uri == VIEW and view.prefers_border is True
        assert "window.mcpkitApp" in view.html and 'id="cards"' in view.html
        assert "connect-src 'none'" in view.content_security_policy
        listed = {r.uri: r for r in await client.list_resources()}
        assert listed[VIEW].mime_type == APP_MIME_TYPE

        found = await client.call_tool("search_products", {"query": "跑步鞋"})
        first = found.structured_content["products"][0]
        assert (first["id"], first["price"]) == ("nike-air-max", 899.0)
        added = await client.call_tool("add_to_cart", {"product_id": "nike-air-max"})
        assert added.content[0].text == "Added 1 x Nike Air Max; 1 item(s) in cart."
        assert (await client.call_tool("view_cart", {})).structured_content == {"nike-air-max": 1}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_client_without_apps_gets_text_and_never_the_app_only_tool(
    transport: str, mode: Any, tmp_path: Path
) -> None:
    async with shop(transport, mode, tmp_path) as client:
        names = [t.name for t in await client.list_tools()]
        assert names == ["search_products", "view_cart"]
        found = await client.call_tool("search_products", {"query": "跑步鞋"})
        assert found.content[0].text.startswith("Nike Air Max (耐克 Air Max 气垫跑步鞋): 899 CNY")
        with pytest.raises(InvalidParams, match="Unknown tool: add_to_cart"):
            await client.call_tool("add_to_cart", {"product_id": "nike-air-max"})
        assert (await client.call_tool("view_cart", {})).structured_content == {}


async def test_a_legacy_host_declaring_apps_in_initialize_extensions_is_served() -> None:
    """What Claude, VS Code and the official SDK's hosts send over stdio: the declaration in
    ``capabilities.extensions`` of a handshake-era ``initialize`` (outside that revision's
    schema, where the spec's own example puts it); the server reads it there."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(EXAMPLES / SCRIPT),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None

    async def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        await process.stdin.drain()
        if "id" not in message:
            return {}
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(process.stdout.readline(), 30))
        assert answer["id"] == message["id"], answer
        return answer

    try:
        capabilities = {"extensions": {APPS_EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}}
        hello = {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                 "clientInfo": {"name": "a-real-host", "version": "1"}}  # fmt: skip
        init = await ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert init["result"]["protocolVersion"] == "2025-06-18"
        await ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = await ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        call = {"name": "add_to_cart", "arguments": {"product_id": "asics-gel-kayano"}}
        added = await ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    finally:
        process.kill()
        await process.wait()
    names = [t["name"] for t in listed["result"]["tools"]]
    assert names == ["search_products", "add_to_cart", "view_cart"]
    assert added["result"]["content"][0]["text"].startswith("Added 1 x ASICS Gel-Kayano 30")

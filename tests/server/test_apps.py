"""MCP Apps on the server: declaring views (string, file, function), their ``_meta.ui`` on the
wire, linked and app-only tools, and the negotiation a real host does in either era. The example
server runs over every transport in tests/examples/test_shoe_shop_app.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _server_harness import connect

from mcpkit.protocol._errors import InvalidParams, UsageError
from mcpkit.server import Server
from mcpkit.server.apps import Csp, bridge_script, with_bridge
from mcpkit.types._apps import APP_MIME_TYPE, APPS_EXTENSION_ID

APPS: dict[str, Any] = {"extensions": {APPS_EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}}
PAGE = "<!DOCTYPE html><html><head><title>v</title></head><body>view</body></html>"


def build(tmp_path: Path) -> Server:
    server = Server("apps-test")
    view = server.ui_resource(
        "ui://t/main",
        PAGE,
        csp=Csp(connect_domains=["https://api.example.com"], resource_domains=["https://cdn.x"]),
        permissions=["clipboardWrite"],
        prefers_border=False,
        domain="t.example",
    )
    page = tmp_path / "page.html"
    page.write_text("<p>first</p>", encoding="utf-8")
    server.ui_resource("ui://t/file", page, bridge=True)

    @server.ui_resource("ui://t/made", title="Made")
    async def made() -> str:
        return "<p>made</p>"

    @server.tool(ui=view)
    def show(n: int) -> str:
        return f"shown {n}"

    @server.tool(ui="ui://t/main", visibility=["app"])
    def refresh() -> str:
        return "refreshed"

    @server.tool(visibility=["model"])
    def model_only() -> str:
        return "model"

    return server


async def test_a_view_is_listed_and_read_with_its_ui_metadata(tmp_path: Path) -> None:
    async with connect(build(tmp_path)) as peer:
        listed = await peer.modern("resources/list")
        read = await peer.modern("resources/read", {"uri": "ui://t/main"})
        discover = await peer.modern("server/discover")
    views = {r["uri"]: r for r in listed["resources"]}
    ui = {
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://cdn.x"],
        },
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": False,
        "domain": "t.example",
    }
    assert views["ui://t/main"]["mimeType"] == APP_MIME_TYPE
    assert views["ui://t/main"]["_meta"] == {"ui": ui}
    assert views["ui://t/made"]["title"] == "Made" and views["ui://t/made"]["name"] == "made"
    (content,) = read["contents"]
    assert content == {
        "uri": "ui://t/main",
        "mimeType": APP_MIME_TYPE,
        "text": PAGE,
        "_meta": {"ui": ui},
    }
    assert discover["capabilities"]["extensions"][APPS_EXTENSION_ID] == {}


async def test_a_file_view_is_read_again_on_each_request_with_the_bridge(tmp_path: Path) -> None:
    async with connect(build(tmp_path)) as peer:
        first = await peer.modern("resources/read", {"uri": "ui://t/file"})
        (tmp_path / "page.html").write_text("<p>second</p>", encoding="utf-8")
        second = await peer.modern("resources/read", {"uri": "ui://t/file"})
        made = await peer.modern("resources/read", {"uri": "ui://t/made"})
    assert first["contents"][0]["text"].endswith("<p>first</p>")
    assert second["contents"][0]["text"].endswith("<p>second</p>")
    assert "window.mcpkitApp = app" in second["contents"][0]["text"]
    assert made["contents"][0] == {
        "uri": "ui://t/made",
        "mimeType": APP_MIME_TYPE,
        "text": "<p>made</p>",
    }


async def test_tools_carry_their_view_and_visibility_for_a_host_with_apps(tmp_path: Path) -> None:
    async with connect(build(tmp_path)) as peer:
        listed = await peer.modern("tools/list", capabilities=APPS)
        called = await peer.modern("tools/call", {"name": "refresh"}, capabilities=APPS)
    tools = {t["name"]: t for t in listed["tools"]}
    assert tools["show"]["_meta"] == {"ui": {"resourceUri": "ui://t/main"}}
    assert tools["refresh"]["_meta"] == {
        "ui": {"resourceUri": "ui://t/main", "visibility": ["app"]}
    }
    assert tools["model_only"]["_meta"] == {"ui": {"visibility": ["model"]}}
    assert called["content"] == [{"type": "text", "text": "refreshed"}]


@pytest.mark.parametrize("capabilities", [None, {"extensions": {APPS_EXTENSION_ID: {}}}])
async def test_a_client_without_apps_is_not_offered_app_only_tools(
    tmp_path: Path, capabilities: Any
) -> None:
    async with connect(build(tmp_path)) as peer:
        listed = await peer.modern("tools/list", capabilities=capabilities)
        shown = await peer.modern("tools/call", {"name": "show", "arguments": {"n": 2}})
        with pytest.raises(InvalidParams, match="Unknown tool: refresh"):
            await peer.modern("tools/call", {"name": "refresh"}, capabilities=capabilities)
    assert [t["name"] for t in listed["tools"]] == ["show", "model_only"]
    assert shown["content"] == [{"type": "text", "text": "shown 2"}]


async def test_a_legacy_client_without_apps_is_refused_app_only_tools(tmp_path: Path) -> None:
    async with connect(build(tmp_path)) as peer:
        await peer.initialize({})
        listed = await peer.legacy("tools/list")
        with pytest.raises(InvalidParams, match="Unknown tool: refresh"):
            await peer.legacy("tools/call", {"name": "refresh"})
    assert [t["name"] for t in listed["tools"]] == ["show", "model_only"]


def test_declaration_mistakes_are_caught_at_registration(tmp_path: Path) -> None:
    server = Server("bad")
    with pytest.raises(UsageError, match="starts with ui://"):
        server.ui_resource("https://x/y", PAGE)
    with pytest.raises(UsageError, match="unknown permission"):
        server.ui_resource("ui://x/p", PAGE, permissions=["usb"])
    with pytest.raises(UsageError, match="not a template"):
        server.ui_resource("ui://x/{id}", PAGE)
    with pytest.raises(UsageError, match="names a ui:// resource"):
        server.tool(ui="https://x/y")(lambda: "x")
    with pytest.raises(UsageError, match="visibility="):
        server.tool(visibility=[])(lambda: "x")
    with pytest.raises(UsageError, match="visibility="):
        server.tool(visibility=["agent"])(lambda: "x")  # type: ignore[list-item]


def test_the_bridge_is_inlined_first_in_the_head() -> None:
    page = with_bridge("<html><HEAD lang=en><script>mine()</script></HEAD></html>")
    assert page.index("window.mcpkitApp") < page.index("mine()")
    assert page.startswith("<html><HEAD lang=en>\n<script>")
    assert with_bridge("<p>bare</p>").endswith("</script>\n<p>bare</p>")
    assert "ui/initialize" in bridge_script()

"""mcpkit.client.apps: finding and fetching a tool's view, whatever shape the tool comes in
(a ``Tool``, a host's ``HostTool``, plain JSON); the example runs over stdio and HTTP in both
eras in tests/examples/test_shoe_shop_app.py."""

from __future__ import annotations

import pytest

from mcpkit.client import Host, SyncClient
from mcpkit.client.apps import APPS_CLIENT_OPTIONS, app_callable, fetch_view, model_tools, view_uri
from mcpkit.protocol._errors import UsageError
from mcpkit.server import ResourceData, Server
from mcpkit.server.apps import Csp
from mcpkit.types._apps import APP_MIME_TYPE


def build() -> Server:
    server = Server("client-apps")
    view = server.ui_resource(
        "ui://c/view",
        "<p>view</p>",
        csp=Csp(connect_domains=["https://api.example.com"]),
        permissions=["camera"],
    )

    @server.resource("ui://c/blob", mime_type=APP_MIME_TYPE)
    def blob() -> ResourceData:
        return ResourceData(blob=b"<p>from a blob</p>", mime_type=APP_MIME_TYPE)

    @server.resource("ui://c/plain", mime_type="text/html")
    def plain() -> str:
        return "<p>not an app</p>"

    @server.tool(ui=view)
    def shown() -> str:
        return "shown"

    @server.tool(ui=view, visibility=["app"])
    def app_only() -> str:
        return "app"

    @server.tool(visibility=["model"])
    def model_only() -> str:
        return "model"

    return server


def test_the_json_and_typed_forms_agree() -> None:
    as_json = {"name": "t", "_meta": {"ui": {"resourceUri": "ui://x", "visibility": ["app"]}}}
    assert view_uri(as_json) == "ui://x" and app_callable(as_json)
    assert model_tools([as_json, {"name": "plain"}]) == [{"name": "plain"}]
    with SyncClient(build(), **APPS_CLIENT_OPTIONS) as client:
        tools = {t.name: t for t in client.list_tools()}
    assert [t.name for t in model_tools(tools.values())] == ["shown", "model_only"]
    assert view_uri(tools["shown"]) == "ui://c/view" and view_uri(tools["model_only"]) is None
    assert app_callable(tools["app_only"]) and not app_callable(tools["model_only"])


async def test_a_host_tool_is_read_through_its_server_tool() -> None:
    async with Host({"shop": build()}, client_options=APPS_CLIENT_OPTIONS) as host:
        tools = await host.list_tools()
    by_name = {t.tool.name: t for t in tools}
    assert view_uri(by_name["shown"]) == "ui://c/view"
    assert {t.tool.name for t in model_tools(tools)} == {"shown", "model_only"}


async def test_fetch_view_returns_the_html_and_the_policies_to_apply() -> None:
    from mcpkit import Client

    async with Client(build(), **APPS_CLIENT_OPTIONS) as client:
        tools = {t.name: t for t in await client.list_tools()}
        view = await fetch_view(client, tools["shown"])
        from_blob = await fetch_view(client, "ui://c/blob")
        with pytest.raises(UsageError, match="has no view"):
            await fetch_view(client, tools["model_only"])
        with pytest.raises(UsageError, match="holds no text/html;profile=mcp-app"):
            await fetch_view(client, "ui://c/plain")
    assert view.html == "<p>view</p>" and view.uri == "ui://c/view"
    assert view.csp == {"connectDomains": ["https://api.example.com"]}
    assert "connect-src https://api.example.com;" in view.content_security_policy
    assert view.permission_policy == "camera"
    assert view.prefers_border is None
    assert from_blob.html == "<p>from a blob</p>"

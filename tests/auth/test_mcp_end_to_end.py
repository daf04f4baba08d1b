"""The whole chain: a real token issuer, an mcpkit Server behind RequireBearer over Streamable
HTTP, and mcpkit's Client authenticating with OAuthClient — in both protocol eras."""

from __future__ import annotations

import pytest

from mcpkit.client import Client
from mcpkit.contrib.auth import RequireBearer
from mcpkit.protocol._errors import InvalidRequest
from mcpkit.server import Context, Server
from mcpkit.transports.http import HttpClientConnector

from .conftest import StartStack, headless_client


def build() -> Server:
    server = Server("protected")

    @server.tool
    def whoami(ctx: Context) -> str:
        """The verified identity of the caller."""
        token = ctx.auth
        return f"{token.subject} with {' '.join(sorted(token.scopes))}"

    @server.tool(required_scopes=["admin"])
    def purge() -> str:
        return "purged"

    return server


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_client_authenticates_and_the_tool_sees_the_identity(
    start_stack: StartStack, mode: str
) -> None:
    stack = await start_stack()
    server = build()
    app = server.http_app()
    stack.switch.target = RequireBearer(app, stack.resource)
    auth = headless_client()
    target = HttpClientConnector(stack.mcp_url, auth=auth)
    async with app.lifespan(), Client(target, mode=mode) as client:
        who = await client.call_tool("whoami", {})
        with pytest.raises(InvalidRequest) as refused:  # per-tool scope: a JSON-RPC error
            await client.call_tool("purge", {})
    assert refused.value.data == {"requiredScopes": ["admin"]}
    assert who.content[0].text.endswith("with mcp:read")
    # one authorization for the whole conversation: the token was reused, not re-requested
    assert stack.issuer.names().count("token:authorization_code") == 1


async def test_requests_without_a_token_never_reach_the_server(start_stack: StartStack) -> None:
    import httpx

    stack = await start_stack()
    server = build()
    app = server.http_app()
    stack.switch.target = RequireBearer(app, stack.resource)
    async with app.lifespan(), httpx.AsyncClient() as http:
        response = await http.post(
            stack.mcp_url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert response.status_code == 401
    assert "resource_metadata=" in response.headers["www-authenticate"]

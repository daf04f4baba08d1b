"""The gateway behind mcpkit's OAuth resource server: the verified token's ``client_id`` picks
the policy; no token or a bad one is a 401 with the resource-metadata challenge; the resource
metadata document is served."""

from __future__ import annotations

import sys

import httpx
import pytest
from _gateway_harness import NOTES

from mcpkit.client import Client
from mcpkit.contrib.auth import AccessToken, InvalidToken, ProtectedResource
from mcpkit.errors import InvalidParams
from mcpkit.gateway import ClientRule, Gateway, Policy
from transports.http_client._harness import running

TOKENS = {"token-of-the-reader-app": "reader-app", "token-of-the-admin-app": "admin-app"}


class TableVerifier:
    """A :class:`TokenVerifier` over a fixed table (what an introspection endpoint answers)."""

    async def verify(self, token: str) -> AccessToken:
        client = TOKENS.get(token)
        if client is None:
            raise InvalidToken("unknown token")
        return AccessToken(
            subject=f"user-of-{client}",
            scopes=frozenset({"mcp"}),
            audience=("http://127.0.0.1/mcp",),
            expires_at=None,
            client_id=client,
        )


async def test_the_oauth_client_id_picks_the_policy() -> None:
    resource = ProtectedResource(
        "http://127.0.0.1/mcp", ["https://issuer.example"], TableVerifier()
    )
    gateway = Gateway(
        {"notes": {"command": sys.executable, "args": [str(NOTES)]}},
        resource=resource,
        clients={
            "reader-app": ClientRule(Policy(allow=["notes/read_*"])),
            "admin-app": ClientRule(Policy(allow=["*"])),
        },
    )
    async with running(gateway.http_app(), lifespan="on") as base:
        url = f"{base}/mcp"

        def bearer(token: str) -> dict[str, object]:
            return {"url": url, "headers": {"Authorization": f"Bearer {token}"}}

        async with Client(bearer("token-of-the-reader-app")) as reader:
            assert [t.name for t in await reader.list_tools()] == ["notes__read_note"]
            with pytest.raises(InvalidParams, match="Unknown tool"):
                await reader.call_tool("notes__delete_note", {"name": "todo"})
        async with Client(bearer("token-of-the-admin-app")) as admin:
            assert "notes__delete_note" in {t.name for t in await admin.list_tools()}
        async with httpx.AsyncClient() as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            bare = await http.post(url, json=body)
            bad = await http.post(url, json=body, headers={"Authorization": "Bearer nope"})
            metadata = await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")
    assert bare.status_code == 401
    assert "resource_metadata=" in bare.headers["www-authenticate"]
    assert bad.status_code == 401 and 'error="invalid_token"' in bad.headers["www-authenticate"]
    assert metadata.status_code == 200
    assert metadata.json()["authorization_servers"] == ["https://issuer.example"]

"""A server that demands credentials is reported as such, never mistaken for a legacy server."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import AuthorizationError

from ._harness import read_body, respond, running


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_refusal_is_not_era_evidence(status: int) -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body = await read_body(receive)
        seen.append(body.decode())
        await respond(
            send,
            status,
            b"",
            headers=[("www-authenticate", 'Bearer resource_metadata="http://x/.well-known"')],
        )

    async with running(app) as url:
        with pytest.raises(AuthorizationError) as info:
            async with Client(f"{url}/mcp", mode="auto"):
                pass
    assert info.value.status == status
    assert "authorization" in str(info.value) or "credentials" in str(info.value)
    assert len(seen) == 1 and "server/discover" in seen[0]  # no fallback to initialize

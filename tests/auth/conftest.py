"""Fixtures for the auth tests: a real authorization server and a real protected MCP endpoint.

Both run under uvicorn on loopback ports inside the test's event loop; they are torn down at
the end of each test. Loopback fetches are a development opt-in (off by default), so every
test here opts in through the environment, the way a developer's shell or the CLI does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from mcpkit.contrib.auth import (
    HeadlessAuthorizer,
    InsufficientScope,
    JWTVerifier,
    OAuthClient,
    ProtectedResource,
    RequireBearer,
    access_token_of,
)
from mcpkit.contrib.auth._http import ALLOW_LOOPBACK_ENV

from ._issuer import App, LocalIssuer, Receive, Scope, Send, ServerPool


@pytest.fixture(autouse=True)
def _allow_loopback_fetches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ALLOW_LOOPBACK_ENV, "1")


class Switch:
    """An ASGI app whose target can be replaced while it is being served."""

    def __init__(self) -> None:
        self.target: App | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.target is not None
        await self.target(scope, receive, send)


def echo_app(resource: ProtectedResource) -> App:
    """The 'MCP server': echoes the verified token; ``.../admin`` also needs scope ``admin``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        token = access_token_of(scope)
        assert token is not None, "RequireBearer must put the token in the scope"
        if scope["path"].endswith("/admin"):
            try:
                resource.check(token, ["admin"])
            except InsufficientScope as exc:
                status, headers, body = resource.forbidden(exc)
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        body = json.dumps(
            {"sub": token.subject, "scopes": sorted(token.scopes), "aud": list(token.audience)}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


@dataclass
class Stack:
    issuer: LocalIssuer
    rs_url: str
    resource: ProtectedResource
    switch: Switch

    @property
    def mcp_url(self) -> str:
        return self.rs_url + "/mcp"

    def protect(
        self,
        issuer: LocalIssuer,
        *,
        required_scopes: Sequence[str] = ("mcp:read",),
        scopes_supported: Sequence[str] | None = ("mcp:read",),
    ) -> ProtectedResource:
        """(Re)configure the protected endpoint to trust ``issuer``."""
        verifier = JWTVerifier(
            issuer=issuer.issuer, audience=self.mcp_url, jwks_uri=issuer.base_url + "/jwks"
        )
        self.resource = ProtectedResource(
            self.mcp_url,
            [issuer.issuer],
            verifier,
            scopes_supported=scopes_supported,
            required_scopes=required_scopes,
        )
        self.switch.target = RequireBearer(echo_app(self.resource), self.resource)
        return self.resource


StartIssuer = Callable[..., Awaitable[LocalIssuer]]
StartStack = Callable[..., Awaitable[Stack]]


@pytest.fixture
async def servers() -> AsyncIterator[ServerPool]:
    pool = ServerPool()
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
def start_issuer(servers: ServerPool) -> StartIssuer:
    async def start(**knobs: Any) -> LocalIssuer:
        issuer = LocalIssuer(**knobs)
        issuer.base_url = await servers.start(issuer)
        return issuer

    return start


@pytest.fixture
def start_stack(servers: ServerPool, start_issuer: StartIssuer) -> StartStack:
    async def start(
        *,
        required_scopes: Sequence[str] = ("mcp:read",),
        scopes_supported: Sequence[str] | None = ("mcp:read",),
        **issuer_knobs: Any,
    ) -> Stack:
        issuer = await start_issuer(**issuer_knobs)
        switch = Switch()
        rs_url = await servers.start(switch)
        stack = Stack(issuer, rs_url, None, switch)  # type: ignore[arg-type]
        stack.protect(issuer, required_scopes=required_scopes, scopes_supported=scopes_supported)
        return stack

    return start


def headless_client(**kwargs: Any) -> OAuthClient:
    """An OAuthClient that completes the flow without a user."""
    authorizer = HeadlessAuthorizer()
    return OAuthClient(redirect_handler=authorizer, callback_handler=authorizer, **kwargs)

"""Who is calling: the client name a request's policy, rate limit and audit records use.

Behind OAuth (:class:`~mcpkit.contrib.auth._middleware.RequireBearer`, mcpkit's resource server)
the verified token names the client: its ``client_id`` claim, else its subject. For small setups
:class:`StaticBearer` maps fixed bearer tokens to client names (compared in constant time); the
request then carries an :class:`~mcpkit.contrib.auth._verifier.AccessToken` whose subject and
``client_id`` are that name, exactly like an OAuth-verified one. Tokens never travel further:
backends get the gateway's own credentials for them.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, Final

from mcpkit.contrib.auth import AUTH_SCOPE_KEY, AccessToken
from mcpkit.protocol import UsageError

__all__ = ["ANONYMOUS", "StaticBearer", "client_name"]

ANONYMOUS: Final = "anonymous"
"""The client name of unauthenticated requests (stdio, or HTTP without authentication)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_BEARER: Final = re.compile(r"^[Bb][Ee][Aa][Rr][Ee][Rr] +(\S+) *$")
_CHALLENGE: Final = b'Bearer realm="mcp"'


def client_name(auth: Any) -> str:
    """The name policies are looked up by: ``client_id``, else ``subject``, else anonymous."""
    if auth is None:
        return ANONYMOUS
    for attribute in ("client_id", "subject"):
        value = getattr(auth, attribute, None)
        if isinstance(value, str) and value:
            return value
    return ANONYMOUS


class StaticBearer:
    """ASGI middleware: ``Authorization: Bearer <token>`` must be one of ``tokens`` (token →
    client name); anything else is answered 401 with a ``WWW-Authenticate`` challenge.

    ``GET`` on ``open_paths`` (the health check) passes without a token.
    """

    def __init__(
        self,
        app: ASGIApp,
        tokens: Mapping[str, str],
        *,
        open_paths: tuple[str, ...] = ("/healthz",),
    ) -> None:
        if not tokens:
            raise UsageError("StaticBearer needs at least one token")
        for token in tokens:
            if not isinstance(token, str) or len(token) < 16:
                raise UsageError("static bearer tokens must be strings of at least 16 characters")
        self.app = app
        self._tokens = [(token.encode(), name) for token, name in tokens.items()]
        self._open_paths = open_paths

    def __getattr__(self, name: str) -> Any:
        # lifespan, begin_shutdown, aclose ... of the wrapped MCP app
        return getattr(self.app, name)

    def _lookup(self, presented: bytes) -> str | None:
        found = None
        for token, name in self._tokens:  # every comparison runs: no early exit to time
            if hmac.compare_digest(token, presented):
                found = name
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET" and scope.get("path") in self._open_paths:
            await self.app(scope, receive, send)
            return
        values = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        match = _BEARER.match(values[0].decode("latin-1")) if len(values) == 1 else None
        name = self._lookup(match.group(1).encode()) if match else None
        if name is None:
            error = b', error="invalid_token"' if match else b""
            body = b'{"error":"invalid_token"}' if match else b'{"error":"unauthorized"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"www-authenticate", _CHALLENGE + error),
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        token = AccessToken(
            subject=name, scopes=frozenset(), audience=(), expires_at=None, client_id=name
        )
        await self.app({**scope, AUTH_SCOPE_KEY: token}, receive, send)

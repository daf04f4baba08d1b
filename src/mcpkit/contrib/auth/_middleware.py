"""``RequireBearer``: an ASGI middleware that puts an MCP app behind bearer-token checks.

Per request: the resource metadata paths are answered directly (GET/HEAD, with permissive
CORS since the document is public); CORS preflights (``OPTIONS``) pass through untouched;
everything else needs ``Authorization: Bearer <token>``. No token -> 401 with a challenge
naming the metadata URL and scopes; a bad token -> 401 ``invalid_token``; missing scopes ->
403 ``insufficient_scope``; a token in the query string or two ``Authorization`` headers ->
400 ``invalid_request``. A verified token travels to the app as ``scope["mcpkit.auth"]``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qsl

from mcpkit.contrib.auth._errors import InsufficientScope, InvalidToken
from mcpkit.contrib.auth._resource import ProtectedResource, error_response
from mcpkit.contrib.auth._verifier import AccessToken

__all__ = ["AUTH_SCOPE_KEY", "RequireBearer", "access_token_of"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

AUTH_SCOPE_KEY: Final = "mcpkit.auth"
"""Where the verified :class:`AccessToken` is put in the ASGI scope."""
_BEARER: Final = re.compile(r"^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9\-._~+/]+=*) *$")
_CORS: Final = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, HEAD, OPTIONS"),
    (b"access-control-allow-headers", b"mcp-protocol-version"),
]


def access_token_of(scope: Scope) -> AccessToken | None:
    """The token :class:`RequireBearer` verified for this request, if any."""
    token = scope.get(AUTH_SCOPE_KEY)
    return token if isinstance(token, AccessToken) else None


async def _answer(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RequireBearer:
    """Wrap ``app`` so that only requests with a valid token for ``resource`` reach it."""

    def __init__(self, app: ASGIApp, resource: ProtectedResource, *, serve_metadata: bool = True):
        self.app = app
        self.resource = resource
        self.serve_metadata = serve_metadata

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self.app(scope, receive, self._closing_verifier_on_shutdown(send))
            return
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if kind == "http":
            if self.serve_metadata and scope["path"] in self.resource.metadata_paths:
                await self._metadata(scope, send)
                return
            if scope["method"] == "OPTIONS":
                await self.app(scope, receive, send)
                return
        outcome = await self._authenticate(scope)
        if isinstance(outcome, AccessToken):
            await self.app({**scope, AUTH_SCOPE_KEY: outcome}, receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _answer(send, *outcome)

    def _closing_verifier_on_shutdown(self, send: Send) -> Send:
        """``send`` for the lifespan, closing the verifier before shutdown is reported done.

        A verifier may own background work (:class:`JWTVerifier`'s shared JWKS refresh); once the
        server says it has shut down, its loop is about to close, so that work is cancelled and
        awaited first, not left pending.
        """

        async def forward(message: Message) -> None:
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                close = getattr(self.resource.verifier, "aclose", None)
                if close is not None:
                    await close()
            await send(message)

        return forward

    async def _metadata(self, scope: Scope, send: Send) -> None:
        method = scope["method"]
        if method == "OPTIONS":
            await _answer(send, 204, list(_CORS), b"")
            return
        if method not in ("GET", "HEAD"):
            await _answer(send, 405, [(b"allow", b"GET, HEAD, OPTIONS")], b"")
            return
        doc = self.resource.metadata_document()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(doc)).encode()),
            (b"cache-control", b"public, max-age=3600"),
            *_CORS,
        ]
        await _answer(send, 200, headers, b"" if method == "HEAD" else doc)

    async def _authenticate(
        self, scope: Scope
    ) -> AccessToken | tuple[int, list[tuple[bytes, bytes]], bytes]:
        resource = self.resource
        query = scope.get("query_string", b"").decode("latin-1")
        if any(name == "access_token" for name, _ in parse_qsl(query, keep_blank_values=True)):
            return error_response(
                400,
                resource.challenge(error="invalid_request"),
                "invalid_request",
                "access tokens must be sent in the Authorization header, never in the URL",
            )
        values = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        if len(values) > 1:
            return error_response(
                400,
                resource.challenge(error="invalid_request"),
                "invalid_request",
                "send exactly one Authorization header",
            )
        match = _BEARER.match(values[0].decode("latin-1")) if values else None
        if match is None:
            return error_response(401, resource.challenge(), None, "authorization required")
        try:
            token = await resource.verifier.verify(match.group(1))
            resource.check(token)
        except InvalidToken as exc:
            header = resource.challenge(error="invalid_token", description=exc.reason)
            return error_response(401, header, "invalid_token", exc.reason)
        except InsufficientScope as exc:
            return resource.forbidden(exc)
        return token

"""The discovery routes of the HTTP app (experimental): the Server Card and the MCP Catalog.

With ``server_card=True`` the app answers, besides the MCP endpoint at ``path``:

* ``GET <path>/server-card`` — this server's card (``application/mcp-server-card+json``);
* ``GET /.well-known/mcp/catalog.json`` and ``GET /.well-known/ai-catalog.json`` — a catalog
  listing that card (paths relative to where the app is mounted: mount it at the domain root
  for the catalog to be found).

All are public, read-only metadata (no more than ``server/discover`` tells any caller): CORS
allows any origin, and ``Cache-Control`` lets clients and proxies keep them for a while. The
card is built per request from the server's own metadata (``card_metadata()``), so it always
agrees with what the server answers once connected; the endpoint URL in it is ``public_url``
when configured, else the URL the request came in on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcpkit.protocol._codec import encode_json
from mcpkit.protocol._errors import UsageError
from mcpkit.protocol._server_card import (
    AI_CATALOG_PATH,
    CARD_SUFFIX,
    CATALOG_PATH,
    SERVER_CARD_MEDIA_TYPE,
    build_catalog,
    build_server_card,
    card_name,
    catalog_entry,
)
from mcpkit.transports.http._server.sse_response import HttpResponse, Scope

__all__ = ["CACHE_SECONDS", "CardRoutes"]

CACHE_SECONDS: Final = 300
"""``max-age`` of the discovery documents (the draft suggests caching; redeploys change them)."""
_CORS: Final = (
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET"),
    (b"access-control-allow-headers", b"Content-Type"),
)
_CACHE: Final = ((b"cache-control", f"public, max-age={CACHE_SECONDS}".encode()),)


class CardRoutes:
    """Matches and answers the discovery paths for one app."""

    def __init__(self, server: Any, mcp_path: str, *, name: str | None, public_url: str | None):
        if not callable(getattr(server, "card_metadata", None)):
            raise UsageError(
                "server_card=True needs a server with card_metadata() (serverInfo, "
                "supportedVersions, capabilities), as mcpkit's Server has"
            )
        self._server = server
        self._mcp_path = "/" + mcp_path.strip("/")
        self.card_path = self._mcp_path.rstrip("/") + CARD_SUFFIX
        self._name = name
        self._public_url = public_url

    def handles(self, path: str) -> bool:
        return path in (self.card_path, CATALOG_PATH, AI_CATALOG_PATH)

    async def __call__(self, path: str, scope: Scope, response: HttpResponse) -> None:
        method = scope["method"]
        if method == "OPTIONS":  # a browser's CORS preflight
            await response.empty(204, [*_CORS, (b"access-control-max-age", b"86400")])
            return
        if method != "GET":
            await response.text(405, "Method Not Allowed: use GET", ((b"allow", b"GET"),))
            return
        card, card_url, host = self.card(scope)
        if path == self.card_path:
            body = encode_json(card)
            headers = [(b"content-type", SERVER_CARD_MEDIA_TYPE.encode()), *_CORS, *_CACHE]
            await response.body(200, body, headers)
            return
        catalog = build_catalog([catalog_entry(card, card_url, host)])
        await response.json(200, catalog, [*_CORS, *_CACHE])

    def card(self, scope: Scope) -> tuple[dict[str, Any], str, str]:
        """This server's card for a request, the card's URL, and the host it was asked on."""
        host = _header(scope, b"host") or "localhost"
        url = self._public_url or (
            f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}{self._mcp_path}"
        )
        metadata: Mapping[str, Any] = self._server.card_metadata()
        info = metadata.get("serverInfo") or {}
        card = build_server_card(
            info,
            url=url,
            name=self._name or card_name(str(info.get("name", "server")), host),
            supported_versions=metadata.get("supportedVersions") or (),
            capabilities=metadata.get("capabilities"),
        )
        return card, url.rstrip("/") + CARD_SUFFIX, host


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None

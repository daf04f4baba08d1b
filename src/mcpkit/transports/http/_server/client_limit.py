"""Open requests per client: the per-peer cap that still works behind a reverse proxy.

The connection guard (:mod:`mcpkit.transports.http._server.guard`) caps connections per address,
which
is the right bound for clients that connect directly. A trusted proxy's connections carry many
clients, so the guard does not cap them; this ASGI wrapper caps what each *client* holds open
instead: requests being served, SSE streams and ``subscriptions/listen`` included. It runs inside
uvicorn's proxy-headers middleware, so ``scope["client"]`` is already the client the trusted
proxy forwarded (``X-Forwarded-For``), grouped like every per-peer limit
(:func:`~mcpkit.transports.http._server.peers.peer_key`).

A client at its cap gets ``503`` with ``Retry-After`` for its next request; everybody else is
served. The health path is never counted nor refused: a load balancer probing a worker must see
whether it serves, not whether one of its clients is greedy.
"""

from __future__ import annotations

import logging
from typing import Any

from mcpkit.transports.http._server.peers import peer_key

__all__ = ["ClientLimit"]

logger = logging.getLogger("mcpkit.http")

_BODY = b"Service Unavailable: too many open requests from this client\n"
_HEADERS = [
    (b"content-type", b"text/plain; charset=utf-8"),
    (b"content-length", str(len(_BODY)).encode()),
    (b"retry-after", b"1"),
]


class ClientLimit:
    """``app`` with at most ``max_per_client`` open HTTP requests per client."""

    def __init__(self, app: Any, max_per_client: int, *, health_path: str | None) -> None:
        self.app = app
        self.max_per_client = max_per_client
        self.health_path = health_path
        self._open: dict[str, int] = {}
        self._warned: set[str] = set()  # one warning per client while it stays at its cap

    def held(self, client: str) -> int:
        """Requests ``client`` holds open now."""
        return self._open.get(client, 0)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (
            self.health_path is not None and scope.get("path") == self.health_path
        ):
            await self.app(scope, receive, send)
            return
        client = peer_key(scope.get("client"))
        held = self._open.get(client, 0)
        if held >= self.max_per_client:
            if client not in self._warned:
                self._warned.add(client)
                logger.warning(
                    "refusing requests from %s: it holds %d open (max_connections_per_peer)",
                    client,
                    held,
                )
            await send({"type": "http.response.start", "status": 503, "headers": _HEADERS})
            await send({"type": "http.response.body", "body": _BODY})
            return
        self._open[client] = held + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self._open.get(client, 1) - 1
            if left > 0:
                self._open[client] = left
            else:
                self._open.pop(client, None)
                self._warned.discard(client)

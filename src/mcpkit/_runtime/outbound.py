"""The :class:`Outbound` protocol: how a request handler talks back to the client.

Every transport (stdio, in-memory, each HTTP stream) hands the server one per request, and the
server framework talks only to this shape; defined here, below both, so there is one definition.
"""

from __future__ import annotations

from typing import Protocol

from mcpkit.types._jsonrpc import JSONObject

__all__ = ["Outbound"]


class Outbound(Protocol):
    """How the server talks back to the client about one request.

    ``send_request`` is only used in legacy sessions (server→client requests do not exist in
    2026-07-28). ``protocol_version`` is set by the dispatcher once known, so that everything
    sent for the request is checked against the right schema.
    """

    protocol_version: str | None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None: ...

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject: ...

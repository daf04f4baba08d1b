"""What a request handler is given: the request, and the way back to the peer.

Kept apart from the session engine so that the handler-facing surface is easy to read on its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpkit.protocol._batch import BatchAnswers
from mcpkit.protocol._inflight import InboundRequest
from mcpkit.protocol._meta import progress_token_of
from mcpkit.types._jsonrpc import JSONObject, Notification, Request, RequestId

if TYPE_CHECKING:
    from mcpkit._runtime.session import Session

__all__ = ["NotificationHandler", "ProgressCallback", "RequestContext", "RequestHandler"]

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
"""Called as ``callback(progress, total, message)`` for each valid progress notification."""
RequestHandler = Callable[["RequestContext"], Awaitable[JSONObject]]
"""Serves one peer request: returns the result, or raises a ``JSONRPCError`` to answer with it."""
NotificationHandler = Callable[[Notification], Awaitable[None] | None]
"""A plain function runs inline, in arrival order (keep it quick: state updates); a coroutine
function runs in its own task, so it may send requests and wait for their answers."""


class RequestContext:
    """What a request handler knows about the request it serves, and how it talks back.

    Messages sent through the context are *related* to the request: on transports that keep
    per-request streams (Streamable HTTP) they travel on that request's stream, and they are
    checked against the request's ``protocol_version`` (which the dispatcher may set per request
    in the 2026 era).
    """

    __slots__ = (
        "_batch",
        "_entry",
        "_session",
        "_task",
        "cancel_reason",
        "protocol_version",
        "request",
        "state",
    )

    def __init__(self, session: Session, request: Request) -> None:
        self._session = session
        self._task: asyncio.Task[None] | None = None
        self._entry: InboundRequest[RequestContext] | None = None
        """The connection's in-flight entry, once it accepted the request."""
        self._batch: BatchAnswers | None = None
        """The batch this request came in (2025-03-26), whose one array carries its answer."""
        self.request = request
        self.protocol_version: str | None = session.protocol_version
        self.cancel_reason: str | None = None
        """Why the peer cancelled this request (``None`` while it has not)."""
        self.state: dict[str, Any] = {}
        """Free for the layers above to keep per-request data."""

    @property
    def session(self) -> Session:
        return self._session

    @property
    def request_id(self) -> RequestId:
        return self.request.id

    @property
    def progress_token(self) -> str | int | None:
        """The peer's ``_meta.progressToken``, if it asked for progress on this request."""
        return progress_token_of(self.request.params)

    @property
    def cancelled(self) -> bool:
        """True once the peer sent ``notifications/cancelled`` for this request."""
        return self.cancel_reason is not None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        await self._session._send(Notification(method, params), self.protocol_version, method)

    async def send_request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | None = None,
    ) -> JSONObject:
        return await self._session.send_request(
            method, params, timeout=timeout, protocol_version=self.protocol_version
        )

"""Middleware: code that wraps every request a server serves (logging, rate limits, policy).

    async def timing(request: RequestView, call_next: CallNext) -> JSONObject:
        started = time.perf_counter()
        try:
            return await call_next()
        finally:
            log.info("%s took %.1f ms", request.method, (time.perf_counter() - started) * 1000)

    server.add_middleware(timing)

A middleware sees a read-only :class:`RequestView` of the request and either returns
``await call_next()`` (possibly changed) or raises a JSON-RPC error to refuse the request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

from mcpkit.types.jsonrpc import JSONObject, RequestId

__all__ = ["CallNext", "Middleware", "RequestView"]


class RequestView(Protocol):
    """What a middleware may read about the request being served, in either era."""

    @property
    def method(self) -> str:
        """The JSON-RPC method, e.g. ``"tools/call"``."""
        ...

    @property
    def params(self) -> JSONObject:
        """The request's params (``{}`` when absent)."""
        ...

    @property
    def request_id(self) -> RequestId: ...

    @property
    def era(self) -> Literal["legacy", "modern"]: ...

    @property
    def protocol_version(self) -> str: ...

    @property
    def client_capabilities(self) -> JSONObject: ...

    @property
    def client_info(self) -> JSONObject | None: ...

    @property
    def auth(self) -> Any:
        """The verified access token when the HTTP transport authenticated the request."""
        ...


CallNext = Callable[[], Awaitable[JSONObject]]
"""Runs the rest of the chain (further middleware, then the method handler)."""

Middleware = Callable[[RequestView, CallNext], Awaitable[JSONObject]]
"""``async def mw(request, call_next) -> result``; add with ``server.add_middleware(mw)``."""

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

A :data:`RequestHook` sits one step further out: it wraps the whole request *before* the era,
version and method checks, so it also sees the requests those checks refuse. It exists for
telemetry (:mod:`mcpkit.contrib.otel` sets ``server.request_hook``); a server without one pays a
single attribute check per request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

from mcpkit.types._jsonrpc import JSONObject, Request, RequestId

__all__ = ["CallNext", "Middleware", "RequestHook", "RequestView"]


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


RequestHook = Callable[[Any, Request, Any, CallNext], Awaitable[JSONObject]]
"""``async def hook(server, request, connection, serve) -> result``: wraps one whole request.

``connection`` is the legacy session's state (``None`` for a 2026-07-28 request; its
``session_id`` is the HTTP session's id, ``None`` on stdio); ``serve()`` runs the checks, the
middleware and the handler, and raises the request's JSON-RPC error. Set it as
``server.request_hook`` (one server) or ``Server.request_hook`` (every server).
"""

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

A :data:`Handler` is what answers one method; ``server.handle(method)`` replaces a method's
handler and ``server.wrap(method, middleware)`` wraps just that one (``server.handler(method)``
is the current one, to delegate to). It reads the request through the same :class:`RequestView`,
plus its :class:`~mcpkit.server.Context`:

    @server.handle("tools/list")
    async def list_tools(request: RequestView, ctx: Context) -> JSONObject:
        return {"tools": [...]}

A :data:`RequestHook` sits one step further out: it wraps the whole request *before* the era,
version and method checks, so it also sees the requests those checks refuse. It exists for
telemetry (:mod:`mcpkit.contrib.otel` sets ``server.request_hook``); a server without one pays a
single attribute check per request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from mcpkit.server._request import InputRequested
from mcpkit.types._jsonrpc import JSONObject, Request, RequestId

if TYPE_CHECKING:
    from mcpkit.server._context import Context

__all__ = [
    "CallNext",
    "Handler",
    "InputRequested",
    "Middleware",
    "Notifier",
    "RequestHook",
    "RequestView",
]


class Notifier(Protocol):
    """Where a legacy session's unsolicited notifications go (its stdio stream or HTTP GET
    stream): :attr:`RequestView.session_notifier`."""

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None: ...


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

    @property
    def log_level(self) -> str | None:
        """The log level the client asked for (its session's, or the 2026 request's ``_meta``)."""
        ...

    @property
    def progress_token(self) -> str | int | None:
        """The request's progress token, if it asked for progress."""
        ...

    @property
    def memo(self) -> dict[str, Any]:
        """Values kept across the rounds of one 2026 multi-round-trip request (sealed in its
        ``requestState``; JSON data, bounded): what :meth:`Context.memo` stores. A handler
        that ends a round with :class:`InputRequested` finds them again in the retry."""
        ...

    @property
    def session_notifier(self) -> Notifier | None:
        """A legacy session's notification channel, to reach that session after this request
        (e.g. a task's status); ``None`` for a 2026 request or a session without one."""
        ...


CallNext = Callable[[], Awaitable[JSONObject]]
"""Runs the rest of the chain (further middleware, then the method handler)."""

Middleware = Callable[[RequestView, CallNext], Awaitable[JSONObject]]
"""``async def mw(request, call_next) -> result``; add with ``server.add_middleware(mw)``."""


Handler = Callable[[RequestView, "Context"], Awaitable[JSONObject]]
"""``async def handler(request, ctx) -> result``: answers one method; see
``Server.handle``, ``Server.wrap`` and ``Server.handler``."""


RequestHook = Callable[[Any, Request, Any, CallNext], Awaitable[JSONObject]]
"""``async def hook(server, request, connection, serve) -> result``: wraps one whole request.

``connection`` is the legacy session's state (``None`` for a 2026-07-28 request; its
``session_id`` is the HTTP session's id, ``None`` on stdio); ``serve()`` runs the checks, the
middleware and the handler, and raises the request's JSON-RPC error. Set it as
``server.request_hook`` (one server) or ``Server.request_hook`` (every server).
"""

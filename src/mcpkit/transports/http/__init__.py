"""Streamable HTTP, both protocol eras: the ASGI server, and the pluggable state behind it.

* :class:`McpHttpApp` (:class:`HttpOptions`) serves an :class:`HttpServable` (``mcpkit.server.
  Server`` is one) on one endpoint for legacy sessions and stateless 2026-07-28 requests alike;
  :func:`serve` runs any ASGI app on uvicorn. ``Server.http_app()`` / ``server.run("http")`` are
  the usual way in.
* :class:`EventStore` (:class:`MemoryEventStore`, durable :class:`SQLiteEventStore`) keeps the
  SSE events of legacy streams so clients can resume with ``Last-Event-ID``;
* :class:`SessionStore` (:class:`MemorySessionStore`) keeps legacy ``Mcp-Session-Id`` sessions.
* :func:`connect_http_client` (:class:`HttpClientTransport`, :class:`HttpClientConnector`) is the
  client side, both eras and the 2024-11-05 HTTP+SSE fallback (``mcpkit.client`` uses it for URLs).

The wire rules themselves (headers, routing, Host/Origin checks) are sans-IO, in
:mod:`mcpkit.protocol._http_headers`, :mod:`mcpkit.protocol._http_routing` and
:mod:`mcpkit.protocol._http_security`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.transports.http._client.transport import (
        HttpClientConnector,
        HttpClientOptions,
        HttpClientTransport,
        SessionExpired,
        connect_http_client,
    )
    from mcpkit.transports.http._server.asgi import HttpOptions, McpHttpApp
    from mcpkit.transports.http._server.event_store import (
        MAX_BYTES_PER_STREAM,
        MAX_EVENTS_PER_STREAM,
        MAX_STREAMS,
        MAX_TOTAL_BYTES,
        STREAM_TTL_SECONDS,
        EventStore,
        MemoryEventStore,
        Replay,
        ReplayGap,
        UnknownEventId,
        WriterGone,
        format_event_id,
        new_stream_key,
        parse_event_id,
        replay_gap,
        unknown_event,
    )
    from mcpkit.transports.http._server.event_store_sqlite import (
        BUSY_TIMEOUT_SECONDS,
        SQLiteEventStore,
    )
    from mcpkit.transports.http._server.servable import HttpServable
    from mcpkit.transports.http._server.serve import (
        LISTEN_FD_ENV,
        listening_socket,
        serve,
        serve_async,
        uvicorn_config,
    )
    from mcpkit.transports.http._server.session_store import (
        MAX_SESSIONS,
        SESSION_IDLE_TIMEOUT_SECONDS,
        MemorySessionStore,
        SessionLimitReached,
        SessionRecord,
        SessionStore,
        StateUnavailable,
    )
    from mcpkit.transports.http._server.shared_state import SharedState

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "MAX_BYTES_PER_STREAM",
    "MAX_EVENTS_PER_STREAM",
    "MAX_SESSIONS",
    "MAX_STREAMS",
    "MAX_TOTAL_BYTES",
    "SESSION_IDLE_TIMEOUT_SECONDS",
    "STREAM_TTL_SECONDS",
    "EventStore",
    "HttpClientConnector",
    "HttpClientOptions",
    "HttpClientTransport",
    "HttpOptions",
    "HttpServable",
    "McpHttpApp",
    "MemoryEventStore",
    "MemorySessionStore",
    "Replay",
    "ReplayGap",
    "SQLiteEventStore",
    "SessionRecord",
    "SessionExpired",
    "SessionLimitReached",
    "SessionStore",
    "SharedState",
    "StateUnavailable",
    "UnknownEventId",
    "connect_http_client",
    "serve",
    "serve_async",
    # -- for custom EventStore implementations (issue #26) --
    "WriterGone",
    "format_event_id",
    "new_stream_key",
    "parse_event_id",
    "replay_gap",
    "unknown_event",
    # -- `mcpkit run --workers` and `mcpkit rest` (issue #26) --
    "LISTEN_FD_ENV",
    "listening_socket",
    "uvicorn_config",
]

_WHERE: dict[str, str] = {
    "BUSY_TIMEOUT_SECONDS": "mcpkit.transports.http._server.event_store_sqlite",
    "MAX_BYTES_PER_STREAM": "mcpkit.transports.http._server.event_store",
    "MAX_EVENTS_PER_STREAM": "mcpkit.transports.http._server.event_store",
    "MAX_SESSIONS": "mcpkit.transports.http._server.session_store",
    "MAX_STREAMS": "mcpkit.transports.http._server.event_store",
    "MAX_TOTAL_BYTES": "mcpkit.transports.http._server.event_store",
    "SESSION_IDLE_TIMEOUT_SECONDS": "mcpkit.transports.http._server.session_store",
    "STREAM_TTL_SECONDS": "mcpkit.transports.http._server.event_store",
    "EventStore": "mcpkit.transports.http._server.event_store",
    "HttpClientConnector": "mcpkit.transports.http._client.transport",
    "HttpClientOptions": "mcpkit.transports.http._client.transport",
    "HttpClientTransport": "mcpkit.transports.http._client.transport",
    "HttpOptions": "mcpkit.transports.http._server.asgi",
    "HttpServable": "mcpkit.transports.http._server.servable",
    "McpHttpApp": "mcpkit.transports.http._server.asgi",
    "MemoryEventStore": "mcpkit.transports.http._server.event_store",
    "MemorySessionStore": "mcpkit.transports.http._server.session_store",
    "Replay": "mcpkit.transports.http._server.event_store",
    "ReplayGap": "mcpkit.transports.http._server.event_store",
    "SQLiteEventStore": "mcpkit.transports.http._server.event_store_sqlite",
    "SessionRecord": "mcpkit.transports.http._server.session_store",
    "SessionExpired": "mcpkit.transports.http._client.transport",
    "SessionLimitReached": "mcpkit.transports.http._server.session_store",
    "SessionStore": "mcpkit.transports.http._server.session_store",
    "SharedState": "mcpkit.transports.http._server.shared_state",
    "StateUnavailable": "mcpkit.transports.http._server.session_store",
    "UnknownEventId": "mcpkit.transports.http._server.event_store",
    "connect_http_client": "mcpkit.transports.http._client.transport",
    "serve": "mcpkit.transports.http._server.serve",
    "serve_async": "mcpkit.transports.http._server.serve",
    # -- for custom EventStore implementations (issue #26) --
    "WriterGone": "mcpkit.transports.http._server.event_store",
    "format_event_id": "mcpkit.transports.http._server.event_store",
    "new_stream_key": "mcpkit.transports.http._server.event_store",
    "parse_event_id": "mcpkit.transports.http._server.event_store",
    "replay_gap": "mcpkit.transports.http._server.event_store",
    "unknown_event": "mcpkit.transports.http._server.event_store",
    # -- `mcpkit run --workers` and `mcpkit rest` (issue #26) --
    "LISTEN_FD_ENV": "mcpkit.transports.http._server.serve",
    "listening_socket": "mcpkit.transports.http._server.serve",
    "uvicorn_config": "mcpkit.transports.http._server.serve",
}


def __getattr__(name: str) -> Any:
    """Load a name's module on first use: the server side never imports the HTTP client
    (``httpx``), and the client side never imports the server's machinery."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'mcpkit.transports.http' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

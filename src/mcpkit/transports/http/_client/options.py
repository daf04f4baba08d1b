"""The tunable bounds of the HTTP client transport, in one place.

Every wait the client can get into is bounded by one of these: reconnecting a broken legacy SSE
stream (attempts and backoff, starting from the server's ``retry``), waiting for the 2024-11-05
``endpoint`` event, the DELETE that ends a session. Per-request deadlines are not here: they
belong to the :class:`~mcpkit.client.Client` (``timeout=``), which cancels the HTTP work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mcpkit.protocol._errors import UsageError
from mcpkit.protocol._sse import MAX_SSE_EVENT_BYTES

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_WRITE_TIMEOUT",
    "DEFAULT_POOL_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_KEEPALIVE_CONNECTIONS",
    "RECONNECT_ATTEMPTS",
    "RECONNECT_DELAY",
    "MAX_RECONNECT_DELAY",
    "ENDPOINT_TIMEOUT",
    "DELETE_TIMEOUT",
    "MAX_ERROR_BODY_BYTES",
    "MAX_REISSUES",
    "MAX_SESSION_RESTARTS",
    "MAX_TOOL_LIST_PAGES",
    "MAX_QUEUED_INBOUND",
    "HttpClientOptions",
]

DEFAULT_CONNECT_TIMEOUT: Final = 10.0
"""Seconds to establish a TCP/TLS connection; a dead host fails this fast, not at the deadline."""
DEFAULT_WRITE_TIMEOUT: Final = 30.0
"""Seconds to hand one request body to the server."""
DEFAULT_POOL_TIMEOUT: Final = 30.0
"""Seconds to wait for a free pooled connection when every one is busy."""
MAX_CONNECTIONS: Final = 100
"""Connections in the pool; each open SSE stream (a call, a listen) holds one."""
MAX_KEEPALIVE_CONNECTIONS: Final = 20
RECONNECT_ATTEMPTS: Final = 5
"""Consecutive failed attempts to resume a legacy SSE stream (``Last-Event-ID``) before giving
up; any event received resets the count, so a server that polls (closes after each event) is
followed indefinitely."""
RECONNECT_DELAY: Final = 1.0
"""Seconds before reconnecting when the server sent no ``retry`` field."""
MAX_RECONNECT_DELAY: Final = 10.0
"""The backoff (doubling from ``retry``) never waits longer than this between attempts."""
ENDPOINT_TIMEOUT: Final = 10.0
"""Seconds to wait for the ``endpoint`` event of a 2024-11-05 HTTP+SSE server."""
DELETE_TIMEOUT: Final = 2.0
"""Seconds the DELETE that ends a legacy session may take when the client closes."""
MAX_ERROR_BODY_BYTES: Final = 64 * 1024
"""How much of an HTTP error body is read (enough for any JSON-RPC error)."""
MAX_REISSUES: Final = 1
"""Times a 2026 request is sent again (with a new id) after its stream broke, if it is safe."""
MAX_SESSION_RESTARTS: Final = 1
"""Times one message is retried after a 404 made the client start a new legacy session."""
MAX_TOOL_LIST_PAGES: Final = 100
"""Pages of ``tools/list`` read to refresh a tool after ``HeaderMismatch``."""
MAX_QUEUED_INBOUND: Final = 256
"""Messages from the server waiting for the session; readers wait when it is full."""


@dataclass(frozen=True, slots=True)
class HttpClientOptions:
    """Per-transport overrides of the bounds above."""

    reconnect_attempts: int = RECONNECT_ATTEMPTS
    reconnect_delay: float = RECONNECT_DELAY
    max_reconnect_delay: float = MAX_RECONNECT_DELAY
    endpoint_timeout: float = ENDPOINT_TIMEOUT
    delete_timeout: float = DELETE_TIMEOUT
    max_event_bytes: int = MAX_SSE_EVENT_BYTES
    """Largest SSE event or JSON body accepted from the server."""
    listen_stream: bool = True
    """Legacy sessions: open the optional GET stream for messages unrelated to a request."""
    reissue_safe_requests: bool = True
    """2026: send a read-only request again with a new id when its stream broke."""

    def __post_init__(self) -> None:
        if self.reconnect_attempts < 0:
            raise UsageError("reconnect_attempts must be 0 or more")
        if self.reconnect_delay < 0 or self.max_reconnect_delay < self.reconnect_delay:
            raise UsageError("need 0 <= reconnect_delay <= max_reconnect_delay")
        if self.endpoint_timeout <= 0 or self.delete_timeout <= 0:
            raise UsageError("endpoint_timeout and delete_timeout must be positive")
        if self.max_event_bytes < 1:
            raise UsageError("max_event_bytes must be at least 1")

    def backoff(self, retry_ms: int | None, failures: int) -> float:
        """Seconds to wait before reconnect attempt number ``failures + 1``.

        The first wait is exactly the server's ``retry`` (the spec's MUST), then it doubles,
        capped at :attr:`max_reconnect_delay` (but never below the server's ``retry``).
        """
        base = self.reconnect_delay if retry_ms is None else retry_ms / 1000.0
        cap = max(self.max_reconnect_delay, base)
        return float(min(base * (2**failures), cap))

"""Per-client rate limits: a token bucket per client (``rate`` calls per second, ``burst``).

A call over the limit is refused with JSON-RPC error :data:`RATE_LIMITED` (-32029, chosen in the
implementation-defined -32000..-32099 range; 429 as in HTTP) whose ``data`` carries
``retryAfterMs``. It is a JSON-RPC error rather than an HTTP 429 so that it means the same on
every transport (stdio included) and only the refused request fails: the session, the client's
other streams and every other client carry on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from mcpkit.protocol import JSONRPCError, UsageError

__all__ = ["RATE_LIMITED", "RateLimit", "RateLimited", "RateLimiter"]

RATE_LIMITED: Final = -32029


class RateLimited(JSONRPCError):
    """A client made calls faster than its rate limit allows."""

    code = RATE_LIMITED


@dataclass(frozen=True, slots=True)
class RateLimit:
    rate: float
    """Calls per second, sustained."""
    burst: int
    """Calls allowed at once after a quiet period."""

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.burst < 1:
            raise UsageError("a rate limit needs rate > 0 and burst >= 1")


class RateLimiter:
    """Token buckets by client name (bounded: idle full buckets are forgotten)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def check(self, client: str, limit: RateLimit | None) -> None:
        """Take one token for ``client`` or raise :class:`RateLimited`."""
        if limit is None:
            return
        now = self._clock()
        tokens, last = self._buckets.get(client, (float(limit.burst), now))
        tokens = min(float(limit.burst), tokens + (now - last) * limit.rate)
        if tokens < 1.0:
            wait_ms = int((1.0 - tokens) / limit.rate * 1000) + 1
            self._buckets[client] = (tokens, now)
            raise RateLimited(
                f"rate limit exceeded for client {client!r} ({limit.rate:g}/s, burst "
                f"{limit.burst}); retry in {wait_ms} ms",
                {"retryAfterMs": wait_ms},
            )
        self._buckets[client] = (tokens - 1.0, now)
        if len(self._buckets) > 10_000:
            self._forget_full(limit)

    def _forget_full(self, limit: RateLimit) -> None:
        now = self._clock()
        for name, (tokens, last) in list(self._buckets.items()):
            if tokens + (now - last) * limit.rate >= limit.burst:
                del self._buckets[name]

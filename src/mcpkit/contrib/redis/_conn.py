"""The Redis connection every store of :mod:`mcpkit.contrib.redis` shares, and its failure mode.

One ``redis.asyncio`` client (one connection pool) per :class:`~mcpkit.contrib.redis.RedisState`.
It is configured so that nothing waits on a dead Redis for long: a connect timeout, a socket
timeout, and a *bounded* number of retries with exponential backoff. When those are spent the
stores raise :class:`RedisUnavailable`, a :class:`~mcpkit.transports.http._server.session_store.
StateUnavailable`: the HTTP app answers it with 503 and a reason, and the next request tries
again (the pool reconnects by itself once Redis is back; no restart needed).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from mcpkit.protocol import UsageError
from mcpkit.transports.http import StateUnavailable

if TYPE_CHECKING:
    import redis.asyncio

__all__ = [
    "CONNECT_TIMEOUT_SECONDS",
    "REDIS_EXTRA_MISSING",
    "RETRIES",
    "SOCKET_TIMEOUT_SECONDS",
    "RedisOptions",
    "RedisUnavailable",
    "connect",
    "unavailable",
]

CONNECT_TIMEOUT_SECONDS: Final = 1.0
"""Opening a connection to Redis gives up after this long."""
SOCKET_TIMEOUT_SECONDS: Final = 2.0
"""One command waits this long for its reply (blocking reads add their own block time)."""
RETRIES: Final = 2
"""Extra attempts of a command after a connection error or timeout (exponential backoff)."""
BACKOFF_CAP_SECONDS: Final = 0.2
BACKOFF_BASE_SECONDS: Final = 0.02
REDIS_EXTRA_MISSING: Final = (
    "mcpkit.contrib.redis needs the redis package: install mcpkit[redis] "
    "(pip install 'mcpkit[redis]')"
)


class RedisUnavailable(StateUnavailable):
    """Redis did not answer in time (down, restarting, unreachable). Answered with HTTP 503."""


@dataclass(frozen=True, slots=True)
class RedisOptions:
    """How to reach Redis. ``url`` is a ``redis://`` (or ``rediss://``, ``unix://``) URL."""

    url: str = "redis://127.0.0.1:6379/0"
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS
    socket_timeout: float = SOCKET_TIMEOUT_SECONDS
    retries: int = RETRIES
    max_connections: int | None = None


def connect(options: RedisOptions) -> redis.asyncio.Redis:
    """A client (lazy: no connection is opened until the first command)."""
    try:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:
        raise UsageError(REDIS_EXTRA_MISSING) from None
    if options.retries < 0 or options.connect_timeout <= 0 or options.socket_timeout <= 0:
        raise UsageError("Redis timeouts must be positive and retries at least 0")
    retry = Retry(
        ExponentialBackoff(cap=BACKOFF_CAP_SECONDS, base=BACKOFF_BASE_SECONDS),
        options.retries,
        (RedisConnectionError, RedisTimeoutError),
    )
    client: redis.asyncio.Redis = aioredis.Redis.from_url(
        options.url,
        socket_connect_timeout=options.connect_timeout,
        socket_timeout=options.socket_timeout,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
        max_connections=options.max_connections,
        decode_responses=False,
    )
    return client


def unavailable(exc: BaseException) -> RedisUnavailable:
    reason = str(exc) or type(exc).__name__
    return RedisUnavailable(f"Redis is unavailable ({reason}); try again shortly")


def _redis_errors() -> tuple[type[BaseException], ...]:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError, OSError)


@contextlib.asynccontextmanager
async def guarded() -> AsyncIterator[None]:
    """Translate Redis connection failures inside the block into :class:`RedisUnavailable`."""
    try:
        yield
    except RedisUnavailable:
        raise
    except _redis_errors() as exc:
        raise unavailable(exc) from exc


def text(value: Any) -> str:
    """A Redis reply (bytes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)

"""Redis-backed shared state: many workers, many machines, one deployment (``mcpkit[redis]``).

``RedisState`` switches a server from the embedded defaults (memory, SQLite) to Redis with one
argument: ``server.run("http", state=RedisState("redis://127.0.0.1:6379/0"))``. The stores are
also usable one by one. See ``docs/redis.md`` for what is stored, the keys, the TTLs and the
retention, and what a Redis without persistence loses on restart.

The ``redis`` package is imported when a client is made (:class:`RedisState` or
:func:`~mcpkit.contrib.redis._conn.connect`), so importing this module needs no extra.
"""

from __future__ import annotations

from mcpkit.contrib.redis._conn import RedisOptions, RedisUnavailable
from mcpkit.contrib.redis._events import RedisEventStore
from mcpkit.contrib.redis._keys import SharedKeyRing
from mcpkit.contrib.redis._sessions import PeerLimitReached, RedisSessionStore
from mcpkit.contrib.redis._state import (
    HEARTBEAT_SECONDS,
    WORKER_LEASE_SECONDS,
    Bus,
    RedisState,
    Workers,
)
from mcpkit.contrib.redis._tasks import WORKER_GONE_MESSAGE, RedisTaskStore

__all__ = [
    "HEARTBEAT_SECONDS",
    "WORKER_GONE_MESSAGE",
    "WORKER_LEASE_SECONDS",
    "Bus",
    "PeerLimitReached",
    "RedisEventStore",
    "RedisOptions",
    "RedisSessionStore",
    "RedisState",
    "RedisTaskStore",
    "RedisUnavailable",
    "SharedKeyRing",
    "Workers",
]

"""A :class:`~mcpkit.transports.http._server.session_store.SessionStore` on Redis (any worker
serves).

Each legacy session is one hash, ``{prefix}s:{id}``, that expires after the idle timeout (a
request pushes the expiry back). Marking a session used is lazy: a request reads the session in
one round trip, and writes its last use (and renews the expiry) only when the one recorded is
:data:`RENEW_AFTER_SECONDS` old or more — a busy session costs one Redis command per request, not
five. Every idle judgement (expiry, refusal, reaping, the session caps) allows for that much
staleness, so a session is never ended early; it may live up to that much longer.

Besides the times and the negotiated version the hash holds a *snapshot* of the connection state
the server needs to serve the session (lifecycle state, client capabilities and info, log level,
resource subscriptions), so a worker that never saw the ``initialize`` rebuilds the session on
its first request.

The cap on sessions is counted in Redis, across workers: ``{prefix}sessions`` is a sorted set of
session ids by last use (idle ones do not count; :meth:`RedisSessionStore.reap` removes them), and
``{prefix}peer:{peer}`` one per client address for the per-peer cap. Resource subscriptions are
mirrored in ``{prefix}subs:{uri}`` (sets of session ids) for cross-worker fan-out.

With the lean connection (:mod:`._wire`) a worker also keeps the records it read
(:class:`~mcpkit.contrib.redis._cache.SessionCache`): ``touch`` is read on a tracked connection,
and while a session's recorded last use is under a renewal period old — when the round trip
would only read — the record is served from memory until Redis pushes that the key changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

import msgspec

from mcpkit.contrib.redis._cache import SESSION_CACHE_SIZE, SessionCache, record_of
from mcpkit.contrib.redis._conn import guarded, text
from mcpkit.contrib.redis._wire import Scripted, Wire
from mcpkit.protocol import UsageError, new_session_id
from mcpkit.transports.http import (
    MAX_SESSIONS,
    SESSION_IDLE_TIMEOUT_SECONDS,
    SessionLimitReached,
    SessionRecord,
)

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["REAP_BATCH", "RENEW_AFTER_SECONDS", "PeerLimitReached", "RedisSessionStore"]

REAP_BATCH: Final = 500
"""Idle sessions one :meth:`RedisSessionStore.reap` call removes at most."""
RENEW_AFTER_SECONDS: Final = 1.0
"""A request records its session's last use only when the recorded one is this old (at most a
tenth of the idle timeout): the rest only read it."""

# KEYS: sessions zset, peer zset, record   ARGV: now, timeout, max, max_per_peer, id, version,
# ttl_ms, peer
_CREATE: Final = """
local floor = tonumber(ARGV[1]) - tonumber(ARGV[2])
if redis.call('ZCOUNT', KEYS[1], floor, '+inf') >= tonumber(ARGV[3]) then return 'full' end
if ARGV[8] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. floor)
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'peer' end
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'taken' end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
redis.call('HSET', KEYS[3], 'v', ARGV[6], 'c', ARGV[1], 'l', ARGV[1], 'p', ARGV[8])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
return 'ok'
"""

# KEYS: record, sessions zset   ARGV: now, timeout (slack included), ttl_ms, id, peer prefix,
# renew_after. The recorded last use may be up to renew_after stale: idle only past timeout plus
# that; the last use, the index scores and the expiry are written only once it is that old.
_TOUCH: Final = """
local r = redis.call('HMGET', KEYS[1], 'v', 'c', 'l', 'd', 'p')
if r[1] == false then return false end
local now = tonumber(ARGV[1])
local idle = now - tonumber(r[3])
if idle > tonumber(ARGV[2]) then return false end
if idle >= tonumber(ARGV[6]) then
  redis.call('HSET', KEYS[1], 'l', ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[4])
  if r[5] ~= '' then redis.call('ZADD', ARGV[5] .. r[5], 'XX', ARGV[1], ARGV[4]) end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  r[3] = ARGV[1]
end
r[6] = redis.call('PTTL', KEYS[1])
r[7] = ARGV[4]
return r
"""
# The PTTL comes last: a tracked connection's read after its own writes (which, NOLOOP, push it
# nothing but stop the tracking) tracks the key again, and the expiry goes with the cached record.


class PeerLimitReached(SessionLimitReached):
    """One client address holds its maximum of sessions across all workers (answer 429)."""


class RedisSessionStore:
    """See the module docstring. Built by :class:`~mcpkit.contrib.redis.RedisState`."""

    shared: ClassVar[bool] = True
    """Other workers see these sessions: the HTTP app rebuilds sessions it did not create."""

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "mcpkit:",
        max_sessions: int = MAX_SESSIONS,
        max_sessions_per_peer: int | None = None,
        idle_timeout: float = SESSION_IDLE_TIMEOUT_SECONDS,
        wire: Wire | None = None,
        cache_size: int = SESSION_CACHE_SIZE,
    ) -> None:
        if max_sessions < 1 or idle_timeout <= 0:
            raise UsageError("max_sessions and idle_timeout must be positive")
        self._redis: Any = client  # redis-py's reply types are unions of every RESP shape
        self._prefix = prefix
        self._max = max_sessions
        self._max_per_peer = max_sessions_per_peer
        self._timeout = idle_timeout
        self._renew_after = min(RENEW_AFTER_SECONDS, idle_timeout / 10)
        self._idle_after = idle_timeout + self._renew_after
        """Recorded idleness past which a session certainly idled ``idle_timeout``."""
        self._ttl_ms = max(1, int(self._idle_after * 1000) + 1000)
        # the constant arguments of every touch, formatted once
        self._idle_after_text = repr(self._idle_after)
        self._renew_after_text = repr(self._renew_after)
        self._peer_prefix = self._peer_key("")
        self._create = Scripted(client, wire, _CREATE)
        self.cache: SessionCache | None = None
        """Records kept until Redis says they changed (with the lean connection only)."""
        self._tracked: Wire | None = None
        if wire is not None and cache_size > 0:
            self.cache = SessionCache(self._record_key(""), self._renew_after, cache_size)
            self._tracked = wire.tracked(self.cache)
        self._touch = Scripted(client, self._tracked or wire, _TOUCH)

    @property
    def tracked_wire(self) -> Wire | None:
        """The connection ``touch`` reads on, whose reads Redis tracks (``None``: no cache)."""
        return self._tracked

    async def aclose(self) -> None:
        """Close the tracked connection (the shared client is closed by its owner)."""
        if self._tracked is not None:
            await self._tracked.aclose()

    def forget(self, session_id: str) -> None:
        """Drop the cached record of ``session_id`` (the server heard it ended)."""
        if self.cache is not None:
            self.cache.drop(session_id)

    def _record_key(self, session_id: str) -> str:
        return f"{self._prefix}s:{session_id}"

    @property
    def _index(self) -> str:
        return f"{self._prefix}sessions"

    def _peer_key(self, peer: str) -> str:
        return f"{self._prefix}peer:{peer}"

    def _subs_key(self, uri: str) -> str:
        return f"{self._prefix}subs:{uri}"

    async def count(self) -> int:
        """Sessions open across every worker (idle ones not yet reaped included)."""
        async with guarded():
            return int(await self._redis.zcard(self._index))

    # -- SessionStore --------------------------------------------------------------------------

    async def create(
        self, *, protocol_version: str, now: float, state: Any = None, peer: str = ""
    ) -> SessionRecord:
        session_id = new_session_id()
        async with guarded():
            outcome = text(
                await self._create(
                    keys=[self._index, self._peer_key(peer), self._record_key(session_id)],
                    args=[
                        repr(now),
                        repr(self._idle_after),
                        self._max,
                        self._max_per_peer or 0,
                        session_id,
                        protocol_version,
                        self._ttl_ms,
                        peer if self._max_per_peer else "",
                    ],
                )
            )
        if outcome == "full":
            raise SessionLimitReached(
                f"this deployment already holds {self._max} sessions (max_sessions, counted in "
                "Redis across workers); try again later"
            )
        if outcome == "peer":
            raise PeerLimitReached(
                f"this client ({peer}) already holds {self._max_per_peer} sessions across the "
                "deployment (max_sessions_per_peer); end some with DELETE or try again later"
            )
        if outcome != "ok":  # 256 random bits collided: never in practice
            raise SessionLimitReached("could not allocate a session id; try again")
        return SessionRecord(session_id, protocol_version, now, state)

    async def get(self, session_id: str) -> SessionRecord | None:
        async with guarded():
            fields = await self._redis.hmget(self._record_key(session_id), "v", "c", "l", "d")
        return record_of(session_id, fields)

    async def touch(self, session_id: str, now: float) -> SessionRecord | None:
        cache = self.cache
        if cache is not None:
            cached = cache.lookup(session_id, now)
            if cached is not None:
                return cached  # the round trip would only have read it
        async with guarded():
            fields = await self._touch(
                keys=[self._record_key(session_id), self._index],
                args=[
                    repr(now),
                    self._idle_after_text,
                    self._ttl_ms,
                    session_id,
                    self._peer_prefix,
                    self._renew_after_text,
                ],
            )
        if not fields:
            self.forget(session_id)
            return None
        made = cache.made_from(fields) if cache is not None else None
        return made if made is not None else record_of(session_id, fields)

    async def delete(self, session_id: str) -> SessionRecord | None:
        key = self._record_key(session_id)
        self.forget(session_id)  # at once: Redis' push follows
        async with guarded():
            pipe = self._redis.pipeline(transaction=True)
            pipe.hmget(key, "v", "c", "l", "d", "p")
            pipe.delete(key)
            pipe.zrem(self._index, session_id)
            fields, _, _ = await pipe.execute()
            record = record_of(session_id, fields)
            if record is None:
                return None
            cleanup = self._redis.pipeline(transaction=False)
            if fields[4]:
                cleanup.zrem(self._peer_key(text(fields[4])), session_id)
            for uri in _subscriptions(record):
                cleanup.srem(self._subs_key(uri), session_id)
            await cleanup.execute()
        return record

    async def reap(self, now: float) -> list[SessionRecord]:
        async with guarded():
            idle = await self._redis.zrangebyscore(
                self._index, "-inf", f"({now - self._idle_after!r}", start=0, num=REAP_BATCH
            )
        reaped: list[SessionRecord] = []
        for raw in idle:
            session_id = text(raw)
            async with guarded():
                won = await self._redis.zrem(self._index, session_id)
            if not won:
                continue  # another worker reaps it
            record = await self.delete(session_id) or SessionRecord(session_id, "", now, None)
            reaped.append(record)
        return reaped

    # -- shared-session extras -----------------------------------------------------------------

    async def save_snapshot(
        self, session_id: str, snapshot: dict[str, Any], previous: dict[str, Any] | None
    ) -> None:
        """Store the connection state of ``session_id`` (another worker rebuilds from it)."""
        before = set(previous.get("subscriptions", ())) if previous else set()
        after = set(snapshot.get("subscriptions", ()))
        # never serve the previous snapshot after this one is written (it would be restored)
        self.forget(session_id)
        async with guarded():
            pipe = self._redis.pipeline(transaction=False)
            pipe.hset(self._record_key(session_id), "d", msgspec.json.encode(snapshot))
            for uri in after - before:
                pipe.sadd(self._subs_key(uri), session_id)
                pipe.pexpire(self._subs_key(uri), self._ttl_ms)
            for uri in before - after:
                pipe.srem(self._subs_key(uri), session_id)
            await pipe.execute()
        self.forget(session_id)

    async def subscribers(self, uri: str) -> list[str]:
        """Ids of the sessions subscribed to ``uri`` (legacy ``resources/subscribe``)."""
        async with guarded():
            members = await self._redis.smembers(self._subs_key(uri))
        return sorted(text(m) for m in members)

    async def snapshots(self, session_ids: list[str]) -> list[tuple[str, Any]]:
        """Each session's stored snapshot (``None`` when it has none or is gone), in one round
        trip and without marking any session used (a fan-out must not keep sessions alive)."""
        if not session_ids:
            return []
        async with guarded():
            pipe = self._redis.pipeline(transaction=False)
            for session_id in session_ids:
                pipe.hget(self._record_key(session_id), "d")
            raw = await pipe.execute()
        found: list[tuple[str, Any]] = []
        for session_id, data in zip(session_ids, raw, strict=True):
            try:
                found.append((session_id, msgspec.json.decode(data) if data else None))
            except msgspec.DecodeError:
                found.append((session_id, None))
        return found

    async def all_ids(self) -> list[str]:
        """Ids of every session (for list-change fan-out)."""
        async with guarded():
            members = await self._redis.zrange(self._index, 0, -1)
        return [text(m) for m in members]


def _subscriptions(record: SessionRecord) -> list[str]:
    snapshot = record.snapshot if isinstance(record.snapshot, dict) else {}
    subs = snapshot.get("subscriptions", ())
    return [s for s in subs if isinstance(s, str)]

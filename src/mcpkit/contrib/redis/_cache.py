"""Session records kept by a worker until Redis says they changed (issue #29: Redis costs).

Server-assisted client-side caching: the session store reads a session (its ``touch`` script) on
a connection of its own that has ``CLIENT TRACKING ON NOLOOP`` in RESP3 (:class:`~mcpkit.contrib.
redis._wire.Wire` with a tracker). Redis then remembers that this connection read the key and,
the first time any *other* connection changes it (a DELETE on another worker, a renewal, a new
snapshot, the reaper, its expiry or eviction, a flush), pushes ``invalidate`` on this same
connection. Pushes and replies share one byte stream in Redis' execution order, and the
connection hands each reply and each push to this object as it parses them, in that order: a
record read before a change is always followed by the push that drops it.

What the cache saves is exactly the round trips that write nothing: an entry is used only while
the session's recorded last use is less than ``window`` (the store's renewal throttle) old, when
the ``touch`` script would only have read. A request that must renew the session goes to Redis
as before, so the idle index, the caps and the reaper see what they saw without the cache.

Bounds, each with its reason:

* an entry is served at most ``window`` seconds after its read was *sent* (monotonic clock), and
  never past the key's own expiry (the ``PTTL`` read with it, from the same moment): a
  connection that went silent without closing (no push can come) stops being trusted within a
  renewal period, as the next renewal's deadline would notice;
* the connection dropping (closed, timed out, killed, Redis restarting) empties the cache before
  anything else runs, and a new connection enables tracking before its first read;
* a null ``invalidate`` (``FLUSHALL``/``FLUSHDB``) empties it;
* at most ``size`` entries, the oldest filled evicted first (an evicted key stays tracked in
  Redis: its later push finds nothing to drop).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final

import msgspec

from mcpkit.contrib.redis._conn import text
from mcpkit.transports.http import SessionRecord

__all__ = ["SESSION_CACHE_SIZE", "SessionCache", "record_of"]

SESSION_CACHE_SIZE: Final = 4096
"""Session records one worker keeps at most. Each is useful for one renewal period (a second)
after its read, so this is the number of sessions a worker serves per second before reads go to
Redis again; a few hundred bytes to a few KiB each (the connection snapshot)."""
_TOUCH_REPLY_LENGTH: Final = 7
"""The ``touch`` script's reply: version, created, last use, snapshot, peer, PTTL, session id."""


class SessionCache:
    """See the module docstring. Fed by the tracked connection; read by the session store."""

    __slots__ = ("_entries", "_key_prefix", "_last", "_size", "_window", "clock", "on_change")

    def __init__(self, key_prefix: str, window: float, size: int = SESSION_CACHE_SIZE) -> None:
        self._key_prefix = key_prefix.encode()
        self._window = window
        self._size = size
        self._entries: OrderedDict[str, tuple[SessionRecord, float]] = OrderedDict()
        """Session id → (record, monotonic time until which it may be served); oldest first."""
        self._last: tuple[Any, SessionRecord] | None = None
        """The latest reply filled and its record: the ``touch`` waiting for that reply takes
        the record rather than decoding it again."""
        self.clock: Callable[[], float] = time.monotonic
        """The clock of the connection's send times: its event loop's, set when it opens
        (tests move it forward)."""
        self.on_change: Callable[[list[str] | None], None] | None = None
        """Called after entries were dropped for Redis' reasons (the ids, or ``None`` for all):
        tests wait on it instead of sleeping."""

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, session_id: str, now: float) -> SessionRecord | None:
        """The cached record when ``touch`` would only read it: less than a renewal period
        since its recorded last use (wall clock ``now``) and still trusted (monotonic)."""
        entry = self._entries.get(session_id)
        if entry is None:
            return None
        record, until = entry
        if now - record.last_seen < self._window and self.clock() < until:
            return record
        return None

    def made_from(self, reply: Any) -> SessionRecord | None:
        """The record :meth:`filled` made from ``reply`` (this very object), if it was the
        latest: the same object later hits return."""
        last = self._last
        return last[1] if last is not None and last[0] is reply else None

    def drop(self, session_id: str) -> None:
        """Forget one session (this worker changed or deleted it, or heard it ended)."""
        self._entries.pop(session_id, None)

    # -- fed by the tracked connection, in stream order ----------------------------------------

    def filled(self, reply: Any, sent_at: float) -> None:
        """A reply parsed on the tracked connection (a ``touch`` read, which Redis now tracks):
        keep its record until a push, the trust period or the key's expiry, from ``sent_at``."""
        if type(reply) is not list or len(reply) != _TOUCH_REPLY_LENGTH:
            return  # the handshake's replies, a script error
        session_id = text(reply[6])
        record = record_of(session_id, reply)
        if record is None:
            return
        ttl = reply[5]
        life = (
            self._window if not isinstance(ttl, int) or ttl < 0 else min(self._window, ttl / 1000)
        )
        self._last = (reply, record)
        entries = self._entries
        entries[session_id] = (record, sent_at + life)
        entries.move_to_end(session_id)
        while len(entries) > self._size:
            entries.popitem(last=False)

    def pushed(self, push: Any) -> None:
        """A RESP3 push: ``invalidate`` with the changed keys, or with none (a flush)."""
        if len(push) < 2 or push[0] != b"invalidate":
            return
        keys = push[1]
        if keys is None:
            self.reset()
            return
        prefix = self._key_prefix
        cut = len(prefix)
        dropped: list[str] = []
        for key in keys:
            if isinstance(key, bytes) and key.startswith(prefix):
                session_id = key[cut:].decode(errors="replace")
                if self._entries.pop(session_id, None) is not None:
                    dropped.append(session_id)
        if self.on_change is not None:
            self.on_change(dropped)

    def reset(self) -> None:
        """Forget everything: the connection dropped (no push can be trusted to come) or Redis
        flushed."""
        self._entries.clear()
        self._last = None
        if self.on_change is not None:
            self.on_change(None)


def record_of(session_id: str, fields: Any) -> SessionRecord | None:
    """A session record from the fields the store reads (version, created, last use,
    snapshot), or ``None`` when the session is unknown."""
    if not fields or fields[0] is None:
        return None
    record = SessionRecord(session_id, text(fields[0]), float(fields[1]), None)
    record.last_seen = float(fields[2])
    if len(fields) > 3 and fields[3]:
        try:
            record.snapshot = msgspec.json.decode(fields[3])
        except msgspec.DecodeError:
            record.snapshot = None
    return record

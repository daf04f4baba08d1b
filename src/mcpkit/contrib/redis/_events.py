"""An :class:`~mcpkit.transports.http._server.event_store.EventStore` on Redis Streams (many
workers).

Each SSE stream of a legacy session is one Redis stream. Every worker appends to it and reads it,
so a client that lost its connection resumes on *any* worker with ``Last-Event-ID`` and gets every
event after that offset, once, in order — also when the worker that produced them was killed.

**Offsets.** An event id is ``<stream key>.<offset>`` (the format every mcpkit store uses). The
offset is the Redis entry id ``<ms>-<n>`` written as one number, ``ms * 10000 + n``: ordered, unique
per stream, and time-based, which is what retention by age needs. The ids are assigned by a Lua
script (never by the clock of a worker), so appends from different workers interleave correctly.
A stream written whole at once (:meth:`RedisEventStore.write_complete`) is the exception: nothing
is ever appended to it again, so the worker numbers it ``0, 1, 2, …`` itself and need not wait
for Redis to learn the ids (retention by age has nothing to trim there; its keys expire).

**Retention** (both bounds hold; resuming from before the kept window raises
:class:`~mcpkit.transports.http._server.event_store.ReplayGap`, never a silent skip):

* by count: at most ``max_events_per_stream`` entries per stream (exact ``MAXLEN`` trimming);
* by age: entries older than ``max_age`` seconds are trimmed on the next append (``MINID``);
* a stream (entries and metadata) not appended to or resumed for ``ttl`` seconds expires.

**Keys** (``prefix`` defaults to ``mcpkit:``): ``{prefix}ev:{key}`` the stream,
``{prefix}evm:{key}`` its metadata hash (session, stream id, closed, owner worker, last id, trim
point), ``{prefix}evs:{session}`` the session's stream ids → keys.

**Live tail.** :meth:`RedisEventStore.tail` follows a stream with ``XREAD BLOCK`` until it is
closed, so the worker holding a client's ``GET`` delivers what other workers append.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from mcpkit.contrib.redis._conn import guarded, text
from mcpkit.contrib.redis._wire import Scripted, Wire
from mcpkit.protocol import UsageError
from mcpkit.transports.http import (
    MAX_EVENTS_PER_STREAM,
    STREAM_TTL_SECONDS,
    Replay,
    WriterGone,
    format_event_id,
    new_stream_key,
    parse_event_id,
    replay_gap,
    unknown_event,
)

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["FANOUT_BATCH", "OFFSET_SCALE", "TAIL_BLOCK_SECONDS", "RedisEventStore"]

OFFSET_SCALE: Final = 10_000
"""Entries one stream may get in one millisecond (the Lua script moves on to the next ms)."""
TAIL_BLOCK_SECONDS: Final = 1.0
"""One ``XREAD BLOCK`` of :meth:`RedisEventStore.tail` waits this long before looking again
whether the stream was closed or its writer died."""
TAIL_BATCH: Final = 256
FANOUT_BATCH: Final = 500
"""Appends sent in one pipeline by :meth:`RedisEventStore.append_many`."""

# KEYS: index   ARGV: stream_id, new key, session, owner, ttl_ms, meta prefix, stream prefix
_RESOLVE: Final = """
local key = redis.call('HGET', KEYS[1], ARGV[1])
local m
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if not key then
  -- a new stream: its metadata is what is written here, and its (random) key holds no entries
  key = ARGV[2]
  redis.call('HSET', KEYS[1], ARGV[1], key)
  redis.call('HSET', ARGV[6] .. key, 'session', ARGV[3], 'stream', ARGV[1], 'owner', ARGV[4],
             'lms', 0, 'ln', 0, 'cms', -1, 'cn', 0)
  redis.call('PEXPIRE', ARGV[6] .. key, ARGV[5])
  m = {'0', '0', false}
else
  redis.call('PEXPIRE', ARGV[6] .. key, ARGV[5])
  redis.call('PEXPIRE', ARGV[7] .. key, ARGV[5])
  m = redis.call('HMGET', ARGV[6] .. key, 'lms', 'ln', 'closed')
end
return {key, m[1], m[2], m[3] or '0'}
"""

# The start of every script that writes events: the stream resolved (as _RESOLVE, without its
# return), a closed one refused, the server's clock, and the next entry id after (lms, ln): a
# later millisecond starts at 0, the same one counts on (10,000 ids at most, then the next ms).
_WRITABLE: Final = (
    _RESOLVE.replace("return {key, m[1], m[2], m[3] or '0'}", "")
    + """
local stream = ARGV[7] .. key
local meta = ARGV[6] .. key
if m[3] == '1' then return {'closed', key} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lms = tonumber(m[1]); local ln = tonumber(m[2])
local function next_id(last_ms, last_n)
  if now > last_ms then return now, 0 end
  if last_n + 1 >= 10000 then return last_ms + 1, 0 end
  return last_ms, last_n + 1
end
"""
)

# KEYS: index   ARGV: (as _RESOLVE), data, maxlen, max_age_ms. One round trip per append: find
# (or make) the stream, refuse a closed one, add the event with the next id, trim, renew TTLs.
_APPEND: Final = (
    _WRITABLE
    + """
local ms, n = next_id(lms, ln)
redis.call('XADD', stream, ms .. '-' .. n, 'd', ARGV[8])
local cut = nil
local extra = redis.call('XLEN', stream) - tonumber(ARGV[9])
if extra > 0 then
  local old = redis.call('XRANGE', stream, '-', '+', 'COUNT', extra)
  cut = old[#old][1]
  redis.call('XTRIM', stream, 'MAXLEN', ARGV[9])
end
local floor = now - tonumber(ARGV[10])
if floor > 0 then
  local older = redis.call('XREVRANGE', stream, '(' .. floor .. '-0', '-', 'COUNT', 1)
  if #older > 0 then
    if cut == nil or older[1][1] > cut then cut = older[1][1] end
    redis.call('XTRIM', stream, 'MINID', floor .. '-0')
  end
end
if cut ~= nil then
  local dash = string.find(cut, '-', 1, true)
  redis.call('HSET', meta, 'cms', string.sub(cut, 1, dash - 1), 'cn', string.sub(cut, dash + 1))
end
redis.call('HSET', meta, 'lms', ms, 'ln', n)
redis.call('PEXPIRE', stream, ARGV[5])
return {'ok', key, ms, n}
"""
)


# KEYS: index   ARGV: (as _RESOLVE), maxlen, max_age_ms, message... A whole stream whose every
# event is known at once (a request answered at once, as SSE): prime, append each message, close
# — one round trip instead of one per step. Returns {'ok', key, prime ms, prime n, (ms, n)...}.
_COMPLETE: Final = (
    _WRITABLE
    + """
local out = {'ok', key, lms, ln}
local fresh = lms == 0 and ln == 0
for i = 10, #ARGV do
  local ms, n = next_id(lms, ln)
  redis.call('XADD', stream, ms .. '-' .. n, 'd', ARGV[i])
  lms = ms; ln = n
  out[#out + 1] = ms; out[#out + 1] = n
end
local extra = 0
if not fresh or #ARGV - 9 > tonumber(ARGV[8]) then  -- a new stream holds only these entries
  extra = redis.call('XLEN', stream) - tonumber(ARGV[8])
end
if extra > 0 then
  local old = redis.call('XRANGE', stream, '-', '+', 'COUNT', extra)
  local cut = old[#old][1]
  redis.call('XTRIM', stream, 'MAXLEN', ARGV[8])
  local dash = string.find(cut, '-', 1, true)
  redis.call('HSET', meta, 'cms', string.sub(cut, 1, dash - 1), 'cn', string.sub(cut, dash + 1))
end
redis.call('HSET', meta, 'lms', lms, 'ln', ln, 'closed', '1')
redis.call('PEXPIRE', stream, ARGV[5])
return out
"""
)

# KEYS: index, meta, stream   ARGV: stream_id, key, session, owner, ttl_ms, lms, ln, cms, cn,
# then (entry id, data) pairs. A whole stream written once under a key the worker made, with the
# entry ids it chose (see RedisEventStore.write_complete): nothing to read, so the worker need
# not wait for the reply. A stream id already in the index is left alone ('exists').
_WRITE_ONCE: Final = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 'exists' end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('HSET', KEYS[2], 'session', ARGV[3], 'stream', ARGV[1], 'owner', ARGV[4],
           'lms', ARGV[6], 'ln', ARGV[7], 'cms', ARGV[8], 'cn', ARGV[9], 'closed', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[5])
for i = 10, #ARGV, 2 do redis.call('XADD', KEYS[3], ARGV[i], 'd', ARGV[i + 1]) end
if #ARGV > 9 then redis.call('PEXPIRE', KEYS[3], ARGV[5]) end
return 'ok'
"""

# KEYS: index   ARGV: stream_id, meta prefix. Close in one round trip.
_CLOSE: Final = """
local key = redis.call('HGET', KEYS[1], ARGV[1])
if key then redis.call('HSET', ARGV[2] .. key, 'closed', '1') end
return key
"""


def _offset(ms: Any, n: Any) -> int:
    return int(ms) * OFFSET_SCALE + int(n)


def _entry_id(offset: int) -> str:
    return f"{offset // OFFSET_SCALE}-{offset % OFFSET_SCALE}"


def _entry_offset(entry_id: Any) -> int:
    ms, _, n = text(entry_id).partition("-")
    return _offset(ms, n)


class RedisEventStore:
    """See the module docstring. Share one client with the other stores of a
    :class:`~mcpkit.contrib.redis.RedisState` (it builds this store for you)."""

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "mcpkit:",
        max_events_per_stream: int = MAX_EVENTS_PER_STREAM,
        max_age: float = STREAM_TTL_SECONDS,
        ttl: float = STREAM_TTL_SECONDS,
        worker_id: str = "",
        worker_alive: Callable[[str], Awaitable[bool]] | None = None,
        wire: Wire | None = None,
    ) -> None:
        if max_events_per_stream < 1 or max_age <= 0 or ttl <= 0:
            raise UsageError("event store bounds must be positive")
        self._redis: Any = client  # redis-py's reply types are unions of every RESP shape
        self._prefix = prefix
        self._max_events = max_events_per_stream
        self._max_age_ms = int(max_age * 1000)
        self._ttl_ms = max(1, int(ttl * 1000))
        self.worker_id = worker_id
        self._worker_alive = worker_alive
        self._resolve = Scripted(client, wire, _RESOLVE)
        self._append_script = Scripted(client, wire, _APPEND)
        self._complete_script = Scripted(client, wire, _COMPLETE)
        self._write_once = Scripted(client, wire, _WRITE_ONCE)
        self._close_script = Scripted(client, wire, _CLOSE)

    # -- keys ----------------------------------------------------------------------------------

    def _stream_key(self, key: str) -> str:
        return f"{self._prefix}ev:{key}"

    def _meta_key(self, key: str) -> str:
        return f"{self._prefix}evm:{key}"

    def _index_key(self, session_id: str) -> str:
        return f"{self._prefix}evs:{session_id}"

    async def _key_of(self, session_id: str, stream_id: str) -> tuple[str, int, bool]:
        """The stream's key (made on first use), its last offset, and whether it is closed."""
        async with guarded():
            key, lms, ln, closed = await self._resolve(
                keys=[self._index_key(session_id)],
                args=self._resolve_args(session_id, stream_id),
            )
        return text(key), _offset(lms, ln), text(closed) == "1"

    def _resolve_args(self, session_id: str, stream_id: str) -> list[Any]:
        return [
            stream_id,
            new_stream_key(),
            session_id,
            self.worker_id,
            self._ttl_ms,
            self._meta_key(""),
            self._stream_key(""),
        ]

    # -- EventStore ----------------------------------------------------------------------------

    async def prime(self, session_id: str, stream_id: str) -> str:
        key, last, _ = await self._key_of(session_id, stream_id)
        return format_event_id(key, last)

    async def append(self, session_id: str, stream_id: str, message: bytes) -> str:
        async with guarded():
            reply = await self._append_script(
                keys=[self._index_key(session_id)],
                args=[
                    *self._resolve_args(session_id, stream_id),
                    message,
                    self._max_events,
                    self._max_age_ms,
                ],
            )
        if text(reply[0]) == "closed":
            raise UsageError(f"stream {stream_id!r} of this session is closed; use a new stream id")
        return format_event_id(text(reply[1]), _offset(reply[2], reply[3]))

    async def append_many(self, session_ids: list[str], stream_id: str, message: bytes) -> int:
        """Append ``message`` to stream ``stream_id`` of each session, pipelined (fan-out of one
        notification to many sessions costs a round trip per :data:`FANOUT_BATCH`, not per
        session). Closed streams are skipped; returns how many streams took the message."""
        taken = 0
        for start in range(0, len(session_ids), FANOUT_BATCH):
            async with guarded():
                pipe = self._redis.pipeline(transaction=False)
                for session_id in session_ids[start : start + FANOUT_BATCH]:
                    await self._append_script(
                        keys=[self._index_key(session_id)],
                        args=[
                            *self._resolve_args(session_id, stream_id),
                            message,
                            self._max_events,
                            self._max_age_ms,
                        ],
                        client=pipe,
                    )
                replies = await pipe.execute(raise_on_error=False)
            taken += sum(
                1 for r in replies if isinstance(r, list | tuple) and r and text(r[0]) == "ok"
            )
        return taken

    async def replay_after(self, session_id: str, last_event_id: str) -> Replay:
        key, offset = parse_event_id(last_event_id)
        meta, entries = await self._read_after(key, offset, session_id)
        self._check(meta, session_id, offset, last_event_id)
        events = [(format_event_id(key, _entry_offset(eid)), _data(f)) for eid, f in entries]
        return Replay(text(meta[0]), events, text(meta[2] or b"0") == "1")

    async def close_stream(self, session_id: str, stream_id: str) -> None:
        async with guarded():
            await self._close_script(
                keys=[self._index_key(session_id)], args=[stream_id, self._meta_key("")]
            )

    async def write_complete(
        self, session_id: str, stream_id: str, messages: list[bytes]
    ) -> tuple[str, list[str]]:
        """``prime``, ``append`` of each message and ``close_stream`` at once: the priming id and
        each message's event id. For a stream whose every event is known at once (the common
        SSE answer); the HTTP transport uses it when a store has it.

        Such a stream is new (stream ids are never reused), so this worker makes its key and
        numbers its events itself — the priming id is offset 0, the messages 1, 2, … — and the
        write needs no answer from Redis before the ids are used: on the lean connection it is
        sent with no reply and not waited for (:meth:`~mcpkit.contrib.redis._wire.Wire.send`).
        The HTTP answer is written after it, so the stream is in Redis before a client can
        learn an id to resume from — also when this worker is killed right after. What is lost
        is the report of a refusal (a Redis out of memory, a read-only replica): the answer
        still reaches the client whole; only resuming it if its connection breaks would fail
        (404: re-send). Without that connection the write is awaited, and a stream id that
        already names a stream gets the general path (append to it; a closed one raises
        ``UsageError``)."""
        key = new_stream_key()
        kept = messages[-self._max_events :]
        dropped = len(messages) - len(kept)
        cut = divmod(dropped, OFFSET_SCALE) if dropped else (-1, 0)
        last = divmod(len(messages), OFFSET_SCALE)
        args: list[Any] = [
            stream_id,
            key,
            session_id,
            self.worker_id,
            self._ttl_ms,
            last[0],
            last[1],
            cut[0],
            cut[1],
        ]
        for offset, message in enumerate(kept, start=dropped + 1):
            args += (_entry_id(offset), message)
        keys = [self._index_key(session_id), self._meta_key(key), self._stream_key(key)]
        ids = [format_event_id(key, offset) for offset in range(1, len(messages) + 1)]
        prime = format_event_id(key, 0)
        if self._write_once.send(keys=keys, args=args):
            return prime, ids
        async with guarded():
            reply = await self._write_once(keys=keys, args=args)
        if text(reply) == "ok":
            return prime, ids
        return await self._complete_general(session_id, stream_id, messages)

    async def _complete_general(
        self, session_id: str, stream_id: str, messages: list[bytes]
    ) -> tuple[str, list[str]]:
        """:meth:`write_complete` on a stream that may already exist: the script finds it,
        refuses a closed one, numbers the events after its last one (one awaited round trip)."""
        async with guarded():
            reply = await self._complete_script(
                keys=[self._index_key(session_id)],
                args=[
                    *self._resolve_args(session_id, stream_id),
                    self._max_events,
                    self._max_age_ms,
                    *messages,
                ],
            )
        if text(reply[0]) == "closed":
            raise UsageError(f"stream {stream_id!r} of this session is closed; use a new stream id")
        key = text(reply[1])
        ids = [
            format_event_id(key, _offset(reply[i], reply[i + 1])) for i in range(4, len(reply), 2)
        ]
        return format_event_id(key, _offset(reply[2], reply[3])), ids

    async def delete_session(self, session_id: str) -> None:
        async with guarded():
            keys = await self._redis.hvals(self._index_key(session_id))
            names = [self._index_key(session_id)]
            for key in keys:
                names += [self._stream_key(text(key)), self._meta_key(text(key))]
            await self._redis.delete(*names)

    # -- live tail -----------------------------------------------------------------------------

    async def tail(
        self, session_id: str, after_event_id: str, *, block: float = TAIL_BLOCK_SECONDS
    ) -> AsyncIterator[list[tuple[str, bytes]]]:
        """Batches of events appended after ``after_event_id``, as they come (any worker's).

        Ends when the stream is closed and fully read or when it expired; raises
        :class:`~mcpkit.transports.http._server.event_store.WriterGone` once the worker that writes
        it
        (its owner) is no longer alive: a resumed request whose handler died with its worker
        ends (the caller answers it with an error) instead of waiting forever. An empty batch is
        yielded after each quiet ``block`` seconds so the caller can send keep-alives and notice
        a disconnect.
        """
        key, offset = parse_event_id(after_event_id)
        meta_key = self._meta_key(key)
        async with guarded():
            meta = await self._redis.hmget(meta_key, "session", "owner", "lms")
        if meta[0] is None or text(meta[0]) != session_id:
            raise unknown_event(after_event_id)
        owner = text(meta[1] or b"")
        cursor = _entry_id(offset)
        stream = self._stream_key(key)
        while True:
            async with guarded():
                reply = await self._redis.xread(
                    {stream: cursor}, count=TAIL_BATCH, block=max(1, int(block * 1000))
                )
            batch: list[tuple[str, bytes]] = []
            for _name, entries in reply or ():
                for entry_id, fields in entries:
                    cursor = text(entry_id)
                    batch.append((format_event_id(key, _entry_offset(entry_id)), _data(fields)))
            if batch:
                yield batch
                continue
            async with guarded():
                closed, last = await self._redis.hmget(meta_key, "closed", "lms")
            if last is None or text(closed or b"0") == "1":
                # closed (or expired): one last read catches an append racing the close
                async with guarded():
                    rest = await self._redis.xrange(stream, f"({cursor}", "+")
                final = [(format_event_id(key, _entry_offset(e)), _data(f)) for e, f in rest]
                if final:
                    yield final
                return
            alive = self._worker_alive
            if owner and owner != self.worker_id and alive is not None and not await alive(owner):
                raise WriterGone(f"the worker writing this stream ({owner}) stopped")
            yield []

    # -- internals -----------------------------------------------------------------------------

    async def _read_after(
        self, key: str, offset: int, session_id: str
    ) -> tuple[list[Any], list[Any]]:
        """The stream's metadata and entries after ``offset`` (one atomic round trip, which
        also renews the TTLs: a resumed stream counts as used)."""
        async with guarded():
            pipe = self._redis.pipeline(transaction=True)
            pipe.hmget(self._meta_key(key), "stream", "session", "closed", "lms", "ln", "cms", "cn")
            pipe.xrange(self._stream_key(key), f"({_entry_id(offset)}", "+")
            pipe.pexpire(self._stream_key(key), self._ttl_ms)
            pipe.pexpire(self._meta_key(key), self._ttl_ms)
            pipe.pexpire(self._index_key(session_id), self._ttl_ms)
            meta, entries, *_ = await pipe.execute()
        return [meta[0], meta[1], meta[2], meta[3], meta[4], meta[5], meta[6]], entries or []

    @staticmethod
    def _check(meta: list[Any], session_id: str, offset: int, event_id: str) -> None:
        stream_id, owner, _closed, lms, ln, cms, cn = meta
        if stream_id is None or text(owner) != session_id:
            raise unknown_event(event_id)
        if offset > _offset(lms, ln):
            raise unknown_event(event_id)
        if int(cms) >= 0 and offset < _offset(cms, cn):
            raise replay_gap(event_id)


def _data(fields: Any) -> bytes:
    value = fields.get(b"d") if isinstance(fields, dict) else None
    return value if isinstance(value, bytes) else b""

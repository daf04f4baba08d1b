"""Event logs that make legacy Streamable HTTP streams resumable (``Last-Event-ID``).

In protocol versions 2025-03-26 … 2025-11-25 the server tags each SSE event with an id; a client
whose connection dropped reconnects with ``GET`` + ``Last-Event-ID`` and the server replays what
the client missed *on that stream only* (replaying another stream's messages would deliver them
twice or to the wrong request). 2026-07-28 has no resumption, so modern requests never touch this.

The server calls :meth:`EventStore.prime` when it opens an SSE stream (the id of the empty
"priming" event), :meth:`EventStore.append` for every message it sends on it,
:meth:`EventStore.close_stream` after the final response, :meth:`EventStore.replay_after` when a
client resumes, and :meth:`EventStore.delete_session` when the session ends.

Event ids are ``<stream key>.<sequence>``, where the stream key is 96 random bits made when the
stream is first used. So an id names its stream (the replay needs no other lookup), cannot be
guessed, and is only honoured within the session that owns the stream: a forged, foreign or
expired id raises :class:`UnknownEventId`, which the server answers with 404 (the stream, like a
terminated session, is gone; the client should re-issue its request).

Every store is bounded: events per stream (:data:`MAX_EVENTS_PER_STREAM`, oldest dropped), bytes
per stream, streams overall (:data:`MAX_STREAMS`, least recently used dropped) and a time to live
since a stream was last used (:data:`STREAM_TTL_SECONDS`). A resume from a cursor older than what
is still kept raises :class:`ReplayGap` rather than silently skipping messages.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Final, NamedTuple, Protocol, runtime_checkable

from mcpkit.protocol._errors import MCPError, UsageError

__all__ = [
    "MAX_BYTES_PER_STREAM",
    "MAX_EVENTS_PER_STREAM",
    "MAX_STREAMS",
    "MAX_TOTAL_BYTES",
    "STREAM_TTL_SECONDS",
    "EventStore",
    "MemoryEventStore",
    "Replay",
    "ReplayGap",
    "UnknownEventId",
    "WriterGone",
    "format_event_id",
    "new_stream_key",
    "parse_event_id",
    "post_stream_id",
    "replay_gap",
    "request_of_stream",
    "unknown_event",
]

MAX_EVENTS_PER_STREAM: Final = 1_000
"""Events kept per stream; older ones are dropped (a resume from before them is a gap)."""
MAX_BYTES_PER_STREAM: Final = 16 * 1024 * 1024
"""Bytes kept per stream (the newest event is always kept, whatever its size)."""
MAX_STREAMS: Final = 10_000
"""Streams kept in one store; the least recently used goes first."""
MAX_TOTAL_BYTES: Final = 256 * 1024 * 1024
"""Bytes kept by one in-memory store across all streams."""
STREAM_TTL_SECONDS: Final = 300.0
"""A stream not appended to or resumed for this long is forgotten."""
STREAM_KEY_BYTES: Final = 12
"""Random bytes in a stream key (96 bits: unguessable, 16 URL-safe characters)."""
MAX_EVENT_ID_CHARS: Final = 64
"""Longer ``Last-Event-ID`` values are refused before parsing."""


class UnknownEventId(MCPError, LookupError):
    """A ``Last-Event-ID`` that names no stream of this session (forged, foreign or expired)."""


class ReplayGap(UnknownEventId):
    """The stream is known, but events after the given id were already dropped (bounds or TTL)."""


class WriterGone(MCPError):
    """Raised by a shared store's ``tail`` when the worker writing a stream that is not closed
    no longer holds its lease: nobody will write the rest (the handler died with its worker)."""


_REQUEST_MARK: Final = "~"


def post_stream_id(base: str, request_id: str | int | None) -> str:
    """The id of the stream answering request ``request_id``: ``base`` with the request's id
    appended, so a worker that resumes the stream after its writer died knows which request to
    fail (:func:`request_of_stream`)."""
    if request_id is None:
        return base
    if type(request_id) is int:  # the usual id: its JSON is its decimal form (json.dumps costs 5x)
        return f"{base}{_REQUEST_MARK}{request_id}"
    return f"{base}{_REQUEST_MARK}{json.dumps(request_id, separators=(',', ':'))}"


def request_of_stream(stream_id: str) -> str | int | None:
    """The request id a stream id made by :func:`post_stream_id` carries, else ``None``."""
    _, mark, encoded = stream_id.partition(_REQUEST_MARK)
    if not mark:
        return None
    try:
        found = json.loads(encoded)
    except ValueError:
        return None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


class Replay(NamedTuple):
    """What a resuming client missed: the stream, its events after the cursor, in order."""

    stream_id: str
    events: list[tuple[str, bytes]]
    """``(event_id, message bytes)`` pairs, oldest first."""
    closed: bool
    """The stream already ended (its response was sent): close the resumed GET after replaying."""


@runtime_checkable
class EventStore(Protocol):
    """Where a server keeps the SSE events it may have to replay (see the module docstring)."""

    async def prime(self, session_id: str, stream_id: str) -> str:
        """An id naming the stream's current end: ``replay_after`` it returns later events only."""
        ...

    async def append(self, session_id: str, stream_id: str, message: bytes) -> str:
        """Store one message sent on ``stream_id``; returns its event id.

        Raises :class:`~mcpkit.protocol._errors.UsageError` if the stream was closed: a stream id
        names one stream for good.
        """
        ...

    async def replay_after(self, session_id: str, last_event_id: str) -> Replay:
        """The events after ``last_event_id`` on its stream; raises :class:`UnknownEventId`."""
        ...

    async def close_stream(self, session_id: str, stream_id: str) -> None:
        """The stream ended; its events stay replayable until its TTL runs out."""
        ...

    async def delete_session(self, session_id: str) -> None:
        """Forget every stream of the session (on DELETE, expiry or reaping)."""
        ...


def new_stream_key() -> str:
    return secrets.token_urlsafe(STREAM_KEY_BYTES)


def format_event_id(key: str, seq: int) -> str:
    return f"{key}.{seq}"


def parse_event_id(event_id: str) -> tuple[str, int]:
    """``(stream key, sequence)``; raises :class:`UnknownEventId` for anything malformed."""
    key, sep, seq = event_id.strip().rpartition(".")
    if (
        not sep
        or len(event_id) > MAX_EVENT_ID_CHARS
        or not key
        or not seq.isascii()
        or not seq.isdigit()
        or len(seq) > 18
    ):
        raise UnknownEventId(f"unknown event id {event_id[:MAX_EVENT_ID_CHARS]!r}")
    return key, int(seq)


def unknown_event(event_id: str) -> UnknownEventId:
    return UnknownEventId(
        f"unknown event id {event_id[:MAX_EVENT_ID_CHARS]!r}: no stream of this session has it "
        "(it expired, or was never issued here); re-send the request instead of resuming"
    )


def replay_gap(event_id: str) -> ReplayGap:
    return ReplayGap(
        f"cannot resume after event {event_id[:MAX_EVENT_ID_CHARS]!r}: later events were "
        "already dropped (the stream outgrew its bounds); re-send the request"
    )


class _Stream:
    __slots__ = (
        "bytes",
        "closed",
        "events",
        "first_seq",
        "key",
        "next_seq",
        "session_id",
        "stream_id",
        "touched",
    )

    def __init__(self, key: str, session_id: str, stream_id: str, now: float) -> None:
        self.key = key
        self.session_id = session_id
        self.stream_id = stream_id
        self.events: deque[bytes] = deque()
        self.first_seq = 1  # sequence number of events[0]
        self.next_seq = 1  # sequence number the next append gets
        self.bytes = 0
        self.closed = False
        self.touched = now


class MemoryEventStore:
    """An :class:`EventStore` in this process's memory (the default; lost on restart).

    All operations are O(1) amortised: streams sit in least-recently-used order, so expiry and
    the count bound only ever look at the front.
    """

    def __init__(
        self,
        *,
        max_events_per_stream: int = MAX_EVENTS_PER_STREAM,
        max_bytes_per_stream: int = MAX_BYTES_PER_STREAM,
        max_streams: int = MAX_STREAMS,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        ttl: float = STREAM_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min(max_events_per_stream, max_bytes_per_stream, max_streams, max_total_bytes) < 1:
            raise UsageError("event store bounds must be positive")
        self._max_events = max_events_per_stream
        self._max_bytes = max_bytes_per_stream
        self._max_streams = max_streams
        self._max_total = max_total_bytes
        self._ttl = ttl
        self._clock = clock
        self._streams: OrderedDict[str, _Stream] = OrderedDict()  # key -> stream, LRU first
        self._by_name: dict[tuple[str, str], str] = {}
        self._by_session: dict[str, set[str]] = {}
        self._total = 0

    def __len__(self) -> int:
        """How many streams are kept."""
        return len(self._streams)

    async def prime(self, session_id: str, stream_id: str) -> str:
        stream = self._stream(session_id, stream_id, self._clock())
        return format_event_id(stream.key, stream.next_seq - 1)

    async def append(self, session_id: str, stream_id: str, message: bytes) -> str:
        now = self._clock()
        stream = self._stream(session_id, stream_id, now)
        if stream.closed:
            raise UsageError(f"stream {stream_id!r} of this session is closed; use a new stream id")
        seq = stream.next_seq
        stream.events.append(message)
        stream.next_seq += 1
        stream.bytes += len(message)
        self._total += len(message)
        while len(stream.events) > self._max_events or (
            stream.bytes > self._max_bytes and len(stream.events) > 1
        ):
            self._drop_oldest_event(stream)
        self._evict(now, keep=stream.key)
        return format_event_id(stream.key, seq)

    async def replay_after(self, session_id: str, last_event_id: str) -> Replay:
        now = self._clock()
        self._evict(now)
        key, seq = parse_event_id(last_event_id)
        stream = self._streams.get(key)
        if stream is None or stream.session_id != session_id or seq >= stream.next_seq:
            raise unknown_event(last_event_id)
        if seq < stream.first_seq - 1:
            raise replay_gap(last_event_id)
        start = seq + 1 - stream.first_seq
        events = [
            (format_event_id(key, s), data)
            for s, data in enumerate(itertools.islice(stream.events, start, None), start=seq + 1)
        ]
        self._touch(stream, now)
        return Replay(stream.stream_id, events, stream.closed)

    async def close_stream(self, session_id: str, stream_id: str) -> None:
        key = self._by_name.get((session_id, stream_id))
        if key is not None:
            stream = self._streams[key]
            stream.closed = True
            self._touch(stream, self._clock())

    async def delete_session(self, session_id: str) -> None:
        for key in list(self._by_session.get(session_id, ())):
            self._forget(self._streams[key])

    # -- internals -------------------------------------------------------------------------

    def _stream(self, session_id: str, stream_id: str, now: float) -> _Stream:
        self._evict(now)
        key = self._by_name.get((session_id, stream_id))
        if key is not None:
            stream = self._streams[key]
            self._touch(stream, now)
            return stream
        while len(self._streams) >= self._max_streams:
            self._forget(next(iter(self._streams.values())))
        key = new_stream_key()
        stream = _Stream(key, session_id, stream_id, now)
        self._streams[key] = stream
        self._by_name[(session_id, stream_id)] = key
        self._by_session.setdefault(session_id, set()).add(key)
        return stream

    def _touch(self, stream: _Stream, now: float) -> None:
        stream.touched = now
        self._streams.move_to_end(stream.key)

    def _drop_oldest_event(self, stream: _Stream) -> None:
        size = len(stream.events.popleft())
        stream.first_seq += 1
        stream.bytes -= size
        self._total -= size

    def _evict(self, now: float, keep: str | None = None) -> None:
        """Drop expired streams, then least recently used ones while over the byte budget."""
        while self._streams:
            oldest = next(iter(self._streams.values()))
            expired = oldest.touched + self._ttl <= now
            over = self._total > self._max_total and oldest.key != keep
            if not (expired or over):
                break
            self._forget(oldest)
        if self._total > self._max_total and keep is not None:
            stream = self._streams[keep]  # the only stream left: trim it instead
            while self._total > self._max_total and len(stream.events) > 1:
                self._drop_oldest_event(stream)

    def _forget(self, stream: _Stream) -> None:
        del self._streams[stream.key]
        del self._by_name[(stream.session_id, stream.stream_id)]
        keys = self._by_session[stream.session_id]
        keys.discard(stream.key)
        if not keys:
            del self._by_session[stream.session_id]
        self._total -= stream.bytes

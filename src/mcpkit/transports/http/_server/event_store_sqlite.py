"""A durable :class:`~mcpkit.transports.http._server.event_store.EventStore` on SQLite (stdlib
only).

Use it when streams must survive the server process: a worker that is killed or restarted
mid-stream leaves every appended event on disk, and the next process (or another worker on the
same file) replays them when the client comes back with ``Last-Event-ID``.

* **WAL mode**, ``synchronous=NORMAL`` by default: a committed append survives the process being
  killed (the property we need); only a power loss may drop the last transactions. Pass
  ``synchronous="FULL"`` to survive that too, at the price of an fsync per append.
* **Never blocks the event loop**: one dedicated thread owns the connection and runs every
  statement; coroutines wait for it. One thread also serialises writes, which SQLite wants anyway.
* Several processes may share one file (WAL readers never block, writers wait up to
  :data:`BUSY_TIMEOUT_SECONDS`).
* The same bounds as the memory store. Times are wall-clock seconds (``time.time``), because
  ``touched`` must mean the same thing to the next process.

Close it with ``await store.aclose()`` or ``async with SQLiteEventStore(path) as store``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, Literal, TypeVar

from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http._server.event_store import (
    MAX_BYTES_PER_STREAM,
    MAX_EVENTS_PER_STREAM,
    MAX_STREAMS,
    STREAM_TTL_SECONDS,
    Replay,
    format_event_id,
    new_stream_key,
    parse_event_id,
    replay_gap,
    unknown_event,
)

__all__ = ["BUSY_TIMEOUT_SECONDS", "SQLiteEventStore"]

BUSY_TIMEOUT_SECONDS: Final = 5.0
"""How long a write waits for another process's transaction before failing."""

_T = TypeVar("_T")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS mcpkit_streams (
    key TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    stream_id TEXT NOT NULL,
    first_seq INTEGER NOT NULL DEFAULT 1,
    next_seq INTEGER NOT NULL DEFAULT 1,
    bytes INTEGER NOT NULL DEFAULT 0,
    closed INTEGER NOT NULL DEFAULT 0,
    touched REAL NOT NULL,
    UNIQUE (session_id, stream_id)
);
CREATE INDEX IF NOT EXISTS mcpkit_streams_touched ON mcpkit_streams (touched);
CREATE TABLE IF NOT EXISTS mcpkit_events (
    key TEXT NOT NULL REFERENCES mcpkit_streams (key) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (key, seq)
) WITHOUT ROWID;
"""


class SQLiteEventStore:
    """Resumable-stream events in a SQLite file, safe to share between processes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_events_per_stream: int = MAX_EVENTS_PER_STREAM,
        max_bytes_per_stream: int = MAX_BYTES_PER_STREAM,
        max_streams: int = MAX_STREAMS,
        ttl: float = STREAM_TTL_SECONDS,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if min(max_events_per_stream, max_bytes_per_stream, max_streams) < 1:
            raise UsageError("event store bounds must be positive")
        if synchronous not in ("NORMAL", "FULL"):
            raise UsageError('synchronous must be "NORMAL" or "FULL"')
        self._path = os.fspath(path)
        self._max_events = max_events_per_stream
        self._max_bytes = max_bytes_per_stream
        self._max_streams = max_streams
        self._ttl = ttl
        self._synchronous = synchronous
        self._clock = clock
        self._db: sqlite3.Connection | None = None
        self._closed = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcpkit-sqlite")

    async def __aenter__(self) -> SQLiteEventStore:
        await self._run(self._connect)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the database and stop the worker thread (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._disconnect)
        finally:
            self._executor.shutdown(wait=False)

    # -- EventStore ------------------------------------------------------------------------

    async def prime(self, session_id: str, stream_id: str) -> str:
        return await self._run(self._prime, session_id, stream_id)

    async def append(self, session_id: str, stream_id: str, message: bytes) -> str:
        return await self._run(self._append, session_id, stream_id, bytes(message))

    async def replay_after(self, session_id: str, last_event_id: str) -> Replay:
        return await self._run(self._replay, session_id, last_event_id)

    async def close_stream(self, session_id: str, stream_id: str) -> None:
        await self._run(self._close_stream, session_id, stream_id)

    async def delete_session(self, session_id: str) -> None:
        await self._run(self._delete_session, session_id)

    # -- worker-thread side ----------------------------------------------------------------

    async def _run(self, fn: Callable[..., _T], *args: Any) -> _T:
        if self._closed:
            raise UsageError("this SQLiteEventStore is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args))

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"PRAGMA synchronous={self._synchronous}")
                db.execute("PRAGMA foreign_keys=ON")
                db.executescript(_SCHEMA)
            except BaseException:
                db.close()
                raise
            self._db = db
            self._transaction(lambda: self._sweep(self._clock(), self._max_streams))
        return self._db

    def _disconnect(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _transaction(self, body: Callable[[], _T]) -> _T:
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        try:
            result = body()
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return result

    def _sweep(self, now: float, keep: int) -> None:
        """Forget expired streams, then the least recently used beyond ``keep``."""
        db = self._connect()
        db.execute("DELETE FROM mcpkit_streams WHERE touched <= ?", (now - self._ttl,))
        db.execute(
            "DELETE FROM mcpkit_streams WHERE key IN (SELECT key FROM mcpkit_streams "
            "ORDER BY touched DESC LIMIT -1 OFFSET ?)",
            (max(keep, 0),),
        )

    def _stream(
        self, session_id: str, stream_id: str, now: float
    ) -> tuple[str, int, int, int, int]:
        """``(key, first_seq, next_seq, bytes, closed)`` of the stream, created if new."""
        db = self._connect()
        row = db.execute(
            "SELECT key, first_seq, next_seq, bytes, closed, touched FROM mcpkit_streams "
            "WHERE session_id = ? AND stream_id = ?",
            (session_id, stream_id),
        ).fetchone()
        if row is not None:
            if row[5] + self._ttl > now:
                return row[0], row[1], row[2], row[3], row[4]
            db.execute("DELETE FROM mcpkit_streams WHERE key = ?", (row[0],))  # expired
        self._sweep(now, self._max_streams - 1)  # make room for the new stream
        key = new_stream_key()
        db.execute(
            "INSERT INTO mcpkit_streams (key, session_id, stream_id, touched) VALUES (?, ?, ?, ?)",
            (key, session_id, stream_id, now),
        )
        return key, 1, 1, 0, 0

    def _prime(self, session_id: str, stream_id: str) -> str:
        def body() -> str:
            now = self._clock()
            key, _, next_seq, _, _ = self._stream(session_id, stream_id, now)
            self._connect().execute(
                "UPDATE mcpkit_streams SET touched = ? WHERE key = ?", (now, key)
            )
            return format_event_id(key, next_seq - 1)

        return self._transaction(body)

    def _append(self, session_id: str, stream_id: str, message: bytes) -> str:
        def body() -> str:
            db = self._connect()
            now = self._clock()
            key, first_seq, seq, size, closed = self._stream(session_id, stream_id, now)
            if closed:
                raise UsageError(
                    f"stream {stream_id!r} of this session is closed; use a new stream id"
                )
            db.execute(
                "INSERT INTO mcpkit_events (key, seq, data) VALUES (?, ?, ?)", (key, seq, message)
            )
            size += len(message)
            count = seq - first_seq + 1
            while count > self._max_events or (size > self._max_bytes and count > 1):
                (dropped,) = db.execute(
                    "SELECT length(data) FROM mcpkit_events WHERE key = ? AND seq = ?",
                    (key, first_seq),
                ).fetchone()
                db.execute("DELETE FROM mcpkit_events WHERE key = ? AND seq = ?", (key, first_seq))
                size -= dropped
                first_seq += 1
                count -= 1
            db.execute(
                "UPDATE mcpkit_streams SET first_seq = ?, next_seq = ?, bytes = ?, touched = ? "
                "WHERE key = ?",
                (first_seq, seq + 1, size, now, key),
            )
            return format_event_id(key, seq)

        return self._transaction(body)

    def _replay(self, session_id: str, last_event_id: str) -> Replay:
        key, seq = parse_event_id(last_event_id)

        def body() -> Replay:
            db = self._connect()
            now = self._clock()
            row = db.execute(
                "SELECT session_id, stream_id, first_seq, next_seq, closed, touched "
                "FROM mcpkit_streams WHERE key = ?",
                (key,),
            ).fetchone()
            if row is None or row[0] != session_id or row[5] + self._ttl <= now or seq >= row[3]:
                raise unknown_event(last_event_id)
            if seq < row[2] - 1:
                raise replay_gap(last_event_id)
            events = [
                (format_event_id(key, s), data)
                for s, data in db.execute(
                    "SELECT seq, data FROM mcpkit_events WHERE key = ? AND seq > ? ORDER BY seq",
                    (key, seq),
                )
            ]
            db.execute("UPDATE mcpkit_streams SET touched = ? WHERE key = ?", (now, key))
            return Replay(row[1], events, bool(row[4]))

        return self._transaction(body)

    def _close_stream(self, session_id: str, stream_id: str) -> None:
        self._transaction(
            lambda: self._connect().execute(
                "UPDATE mcpkit_streams SET closed = 1, touched = ? "
                "WHERE session_id = ? AND stream_id = ?",
                (self._clock(), session_id, stream_id),
            )
        )

    def _delete_session(self, session_id: str) -> None:
        self._transaction(
            lambda: self._connect().execute(
                "DELETE FROM mcpkit_streams WHERE session_id = ?", (session_id,)
            )
        )

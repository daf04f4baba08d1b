"""A lean Redis connection for the scripts every request runs (issue #29: Redis costs).

Each legacy request on Redis makes at most one round trip: the session is read and marked used
(``touch``, on a second, *tracked* connection: :meth:`Wire.tracked`; a record read less than a
renewal period ago comes from the worker's cache, :mod:`._cache`); an SSE answer's stream is
written whole with no reply (``write_complete``, below).
Through redis-py
one round trip costs a worker ~150-300 µs of CPU — the pool checkout, the retry wrapper, the
per-command timeout scope, argument encoding, the observability hooks — about as much as the
whole request costs with the session in memory. :class:`Wire` sends the same ``EVALSHA`` packed
by hiredis on one pipelined asyncio connection and parses the replies with ``hiredis.Reader``:
~60 µs a round trip, the same replies (bytes, ints, lists, ``None``).

It keeps the client's failure mode (:mod:`._conn`): the connect timeout, a deadline per command
(``socket_timeout``, kept by one timer per connection), a bounded number of retries with the same
exponential backoff, and redis-py's exception types, so
:func:`~mcpkit.contrib.redis._conn.guarded` turns an outage into
:class:`~mcpkit.contrib.redis._conn.RedisUnavailable` (503) exactly as before. A timed-out or
broken connection is dropped and the next command opens a new one. A Redis that lost its script
cache (a restart) answers ``NOSCRIPT``: the command is sent again as ``EVAL`` with the source.

A write whose outcome the request does not need (a complete SSE answer's stream, whose event ids
the worker chose itself) is *sent* without waiting for Redis (:meth:`Wire.send`): ``CLIENT REPLY
SKIP`` then ``EVAL``, so Redis sends no reply and the worker is not woken a second time for the
call — most of what a round trip costs a worker is that wake-up and the system calls around it,
not Redis' work. It is written at once, before the answer goes to the client, so a client that
resumes the answer (on this worker or another) asks after Redis has it queued. ``EVAL`` with the
source, not ``EVALSHA``: a Redis that lost its script cache runs it all the same (there is no
reply to say ``NOSCRIPT``). Commands on one connection run in the order they were sent, so every
later command of this worker on it sees the write done. A server that refuses ``CLIENT REPLY``
(some Redis-compatible servers and proxies; asked once per connection) gets the awaited
``EVALSHA`` instead.

Used only where it can stand in for the client exactly: hiredis installed (``mcpkit[redis]``
brings it) and a plain ``redis://`` or ``unix://`` URL (password and database number included).
Elsewhere (``rediss://``, no hiredis) :func:`wire_for` gives ``None`` and the stores keep using
redis-py.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from mcpkit.concurrency import TaskSet, Timer
from mcpkit.contrib.redis._conn import BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS, RedisOptions

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["TRACKING_MIN_VERSION", "Script", "Scripted", "Tracker", "Wire", "wire_for"]

logger = logging.getLogger("mcpkit.redis")

_CLOSED: Final = "Connection closed by server."
_SKIP_REPLY: Final = b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n"
"""``CLIENT REPLY SKIP``, packed: Redis sends no reply to the command after it."""
TRACKING_MIN_VERSION: Final = (7, 0)
"""The oldest Redis a tracked connection enables ``CLIENT TRACKING`` on: the version whose
tracking of keys read inside scripts, and whose ``NOLOOP``, the tests check."""


class Tracker(Protocol):
    """What a tracked connection feeds (:class:`~mcpkit.contrib.redis._cache.SessionCache`)."""

    clock: Callable[[], float]
    """Set to the event loop's clock, the one the connection stamps its sends with."""

    def filled(self, reply: Any, sent_at: float) -> None:
        """A reply, as it is parsed (before anything after it), with its command's send time."""

    def pushed(self, push: Any) -> None:
        """A RESP3 push (``invalidate``), as it is parsed."""

    def reset(self) -> None:
        """The connection dropped, or a new one is about to enable tracking."""


class Script:
    """A Lua script run by :meth:`Wire.run` (by its SHA1; its source after ``NOSCRIPT``)."""

    __slots__ = ("sha", "source")

    def __init__(self, source: str) -> None:
        self.source = source.encode()
        self.sha = hashlib.sha1(self.source, usedforsecurity=False).hexdigest().encode()


class _Connection(asyncio.Protocol):
    """One socket: commands written in order, each reply resolves the oldest waiting future."""

    def __init__(
        self,
        reader: Any,
        reply_error: type[Exception],
        loop: asyncio.AbstractEventLoop,
        timeout: float,
        timeout_error: Callable[[], BaseException],
    ) -> None:
        self._reader = reader
        self._reply_error = reply_error
        self._loop = loop
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._sent: collections.deque[float] = collections.deque()
        """When each waiting command was sent (loop time), oldest first."""
        self._timeout = timeout
        self._timeout_error = timeout_error
        self.deadline: Timer | None = None
        """Fires :meth:`check_deadline` while commands wait (see :meth:`send`)."""
        self._transport: asyncio.Transport | None = None
        self.lost = False
        self.skips_replies = False
        """The server took ``CLIENT REPLY`` (asked when the connection opens): commands sent
        after ``CLIENT REPLY SKIP`` (:meth:`Wire.send`) keep the replies in step."""
        self.tracker: Tracker | None = None
        """Set once Redis tracks this connection's reads: it gets every reply and push in
        stream order, and is reset when the connection is lost."""
        self.on_lost: Callable[[], None] | None = None
        """Called once the connection is lost (a tracked connection's cache must go at once)."""
        self.push_type: type | None = None
        """hiredis' ``PushNotification`` on a RESP3 connection."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while True:
            try:
                reply = self._reader.gets()
            except Exception as exc:  # a protocol error: the stream cannot be trusted any more
                self.fail(exc)
                return
            if reply is False:
                return
            if self.push_type is not None and type(reply) is self.push_type:
                if self.tracker is not None and not self.lost:
                    self.tracker.pushed(reply)
                continue
            if not self._waiting:  # a reply nobody asked for: the stream is out of step
                self.fail(ConnectionError("unexpected reply from Redis"))
                return
            future = self._waiting.popleft()
            sent_at = self._sent.popleft()
            if self.tracker is not None and not self.lost:
                self.tracker.filled(reply, sent_at)
            if not future.done():
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lose()
        self._fail_waiting(ConnectionError(str(exc) if exc else _CLOSED))

    def _lose(self) -> None:
        """Mark the connection lost; what it fed is forgotten before anything else runs."""
        self.lost = True
        on_lost, self.on_lost = self.on_lost, None
        if on_lost is not None:
            on_lost()

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        """Write one command; its reply resolves the future. The deadline of every command
        (``socket_timeout``) is one timer per connection, armed while anything waits, rather
        than a timeout scope per command (which costs a worker more than hiredis' packing and
        parsing together): when it fires, the oldest waiting command is either late — the
        connection fails, and every waiting command with it, as a timeout — or not yet, and the
        timer is armed again for the rest of its time."""
        assert self._transport is not None
        future: asyncio.Future[Any] = self._loop.create_future()
        self._waiting.append(future)
        self._sent.append(self._loop.time())
        self._transport.write(packed)
        deadline = self.deadline
        if deadline is not None and not deadline.armed:
            deadline.arm(self._timeout)
        return future

    def check_deadline(self) -> None:
        """The deadline timer fired (see :meth:`send`)."""
        if not self._sent or self.lost:
            return
        left = self._sent[0] + self._timeout - self._loop.time()
        if left > 0:
            assert self.deadline is not None
            self.deadline.arm(left)
        else:
            self.fail(self._timeout_error())

    def note_probe(self, probe: asyncio.Future[Any]) -> None:
        if not probe.cancelled() and probe.exception() is None:
            self.skips_replies = not isinstance(probe.result(), self._reply_error)

    def write(self, packed: bytes) -> None:
        """Commands Redis will not answer (``CLIENT REPLY SKIP`` first): nothing waits."""
        assert self._transport is not None
        self._transport.write(packed)

    def fail(self, exc: BaseException) -> None:
        """Drop the connection (a timeout or a broken stream): waiting commands fail with
        ``exc``; the next command opens a new connection."""
        self._lose()
        self._fail_waiting(exc)
        if self._transport is not None:
            self._transport.abort()

    def _fail_waiting(self, exc: BaseException) -> None:
        if self.deadline is not None:
            self.deadline.disarm()
        self._sent.clear()
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                future.set_exception(exc)


@dataclass(frozen=True, slots=True)
class _Target:
    host: str
    port: int
    path: str | None
    username: str | None
    password: str | None
    db: int


class Wire:
    """See the module docstring. Built by :func:`wire_for`; closed with :meth:`aclose`."""

    def __init__(
        self, target: _Target, options: RedisOptions, tracker: Tracker | None = None
    ) -> None:
        import hiredis
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import ResponseError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        self._hiredis: Any = hiredis  # its stubs type pack_command's tuple as a 1-tuple
        self._target = target
        self._options = options
        self._connection: _Connection | None = None
        self._opening = asyncio.Lock()
        self._timers: TaskSet | None = None
        """Owns the connections' deadline timers (made with the first connection)."""
        self._response_error = ResponseError
        self._retryable = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)
        self._timeout_error = RedisTimeoutError
        self._tracker = tracker
        self.client_id: int | None = None
        """Redis' id of the last tracked connection (``CLIENT KILL ID``, ``CLIENT LIST``)."""

    @property
    def tracking(self) -> bool:
        """Whether an open connection's reads are tracked (not with a server that refuses RESP3
        or ``CLIENT TRACKING``, or is older than :data:`TRACKING_MIN_VERSION`: every read then
        goes to Redis)."""
        connection = self._connection
        return connection is not None and not connection.lost and connection.tracker is not None

    def tracked(self, tracker: Tracker) -> Wire:
        """A second lean connection to the same Redis whose reads Redis tracks: every reply
        and ``invalidate`` push goes to ``tracker`` in stream order (see :mod:`._cache`)."""
        return Wire(self._target, self._options, tracker)

    async def run(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """``EVALSHA`` (``EVAL`` after ``NOSCRIPT``): the script's reply, as redis-py gives it."""
        # hiredis packs str (UTF-8), bytes, int and float (as repr) as redis-py encodes them
        tail = (len(keys), *keys, *args)
        attempt = 0
        while True:
            try:
                reply = await self._command((b"EVALSHA", script.sha, *tail))
                if isinstance(reply, self._hiredis.ReplyError) and str(reply).startswith(
                    "NOSCRIPT"
                ):
                    reply = await self._command((b"EVAL", script.source, *tail))
            except self._retryable:
                if attempt >= self._options.retries:
                    raise
                attempt += 1
                await asyncio.sleep(  # redis-py's ExponentialBackoff, as _conn.connect sets it
                    min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2**attempt)
                )
                continue
            if isinstance(reply, self._hiredis.ReplyError):
                raise self._response_error(str(reply))
            return reply

    def send(self, script: Script, keys: list[str], args: list[Any]) -> bool:
        """Run ``script`` without a reply and without waiting (see the module docstring); its
        outcome, a refusal included, is not reported. ``False`` (nothing sent) when no
        connection is open or its server cannot skip replies: the caller uses :meth:`run`."""
        connection = self._connection
        if connection is None or connection.lost or not connection.skips_replies:
            return False
        pack = self._hiredis.pack_command
        connection.write(_SKIP_REPLY + pack((b"EVAL", script.source, len(keys), *keys, *args)))
        return True

    async def _command(self, parts: tuple[Any, ...]) -> Any:
        connection = self._connection
        if connection is None or connection.lost:
            connection = await self._open()
        # a reply, or the connection's failure: a timeout after socket_timeout (see its send)
        return await connection.send(self._hiredis.pack_command(parts))

    async def _open(self) -> _Connection:
        async with self._opening:
            if self._connection is not None and not self._connection.lost:
                return self._connection
            loop = asyncio.get_running_loop()
            target = self._target
            if self._timers is None:
                self._timers = TaskSet(loop, "redis-wire", logger)
            connection = _Connection(
                self._hiredis.Reader(),
                self._hiredis.ReplyError,
                loop,
                self._options.socket_timeout,
                self._read_timeout,
            )
            connection.deadline = Timer(self._timers, connection.check_deadline)
            if self._tracker is not None:
                self._tracker.reset()  # nothing read before this connection is trusted
                self._tracker.clock = loop.time
                connection.on_lost = self._tracker.reset
            try:
                async with asyncio.timeout(self._options.connect_timeout):
                    if target.path is not None:
                        opened = await loop.create_unix_connection(lambda: connection, target.path)
                    else:
                        opened = await loop.create_connection(
                            lambda: connection, target.host, target.port
                        )
                    connection.connection_made(opened[0])  # uvloop may not have called it yet
                    await self._handshake(connection)
            except TimeoutError:
                connection.fail(self._timeout_error("Timeout connecting to Redis"))
                raise self._timeout_error("Timeout connecting to Redis") from None
            except BaseException:
                connection.fail(ConnectionError("could not open a connection to Redis"))
                raise
            self._connection = connection
            return connection

    async def _handshake(self, connection: _Connection) -> None:
        target = self._target
        steps: list[tuple[bytes, ...]] = []
        if target.password is not None:
            auth = (target.username.encode(),) if target.username else ()
            steps.append((b"AUTH", *auth, target.password.encode()))
        if target.db:
            steps.append((b"SELECT", str(target.db).encode()))
        replies = [connection.send(self._hiredis.pack_command(step)) for step in steps]
        # A server that knows CLIENT REPLY answers OK, another one an error (no reply skipped).
        # Not waited for: until it answers, send() declines and callers await their scripts.
        probe = connection.send(self._hiredis.pack_command((b"CLIENT", b"REPLY", b"ON")))
        probe.add_done_callback(connection.note_probe)
        for reply in replies:
            answer = await reply
            if isinstance(answer, self._hiredis.ReplyError):
                raise self._response_error(str(answer))
        if self._tracker is not None:
            await self._track(connection)

    async def _track(self, connection: _Connection) -> None:
        """RESP3, then ``CLIENT TRACKING ON NOLOOP``: Redis remembers the keys this connection
        reads and pushes ``invalidate`` when another connection changes one (this one's own
        writes push nothing; its scripts read the key again after writing it, which tracks it
        again). Any refusal leaves the connection untracked: it still serves, uncached."""
        pack = self._hiredis.pack_command
        hello = await connection.send(pack((b"HELLO", b"3")))
        if not isinstance(hello, dict) or _version(hello.get(b"version")) < TRACKING_MIN_VERSION:
            return  # an error (no RESP3: still RESP2) or too old a server
        connection.push_type = self._hiredis.PushNotification
        client_id = await connection.send(pack((b"CLIENT", b"ID")))
        tracking = await connection.send(pack((b"CLIENT", b"TRACKING", b"ON", b"NOLOOP")))
        if tracking == b"OK" and not connection.lost:
            connection.tracker = self._tracker
            self.client_id = client_id if isinstance(client_id, int) else None

    def _read_timeout(self) -> BaseException:
        return self._timeout_error("Timeout reading from Redis")

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.fail(ConnectionError("the connection was closed"))
        if self._timers is not None:
            await self._timers.aclose()


def _version(raw: Any) -> tuple[int, ...]:
    """``b"7.0.15"`` → ``(7, 0, 15)``; ``()`` when unreadable."""
    try:
        return tuple(int(part) for part in bytes(raw).split(b".")[:3])
    except (TypeError, ValueError):
        return ()


def wire_for(client: redis.asyncio.Redis, options: RedisOptions) -> Wire | None:
    """A :class:`Wire` to the Redis ``client`` talks to, or ``None`` where it could not stand in
    for the client exactly (no hiredis; TLS or another connection class)."""
    try:
        import hiredis  # noqa: F401
        from redis.asyncio.connection import Connection, UnixDomainSocketConnection
    except ImportError:
        return None
    pool: Any = client.connection_pool
    kwargs: dict[str, Any] = pool.connection_kwargs
    if pool.connection_class is UnixDomainSocketConnection:
        path = kwargs.get("path")
    elif pool.connection_class is Connection:
        path = None
    else:
        return None
    if kwargs.get("credential_provider") is not None:
        return None
    target = _Target(
        host=str(kwargs.get("host", "localhost")),
        port=int(kwargs.get("port", 6379)),
        path=str(path) if path else None,
        username=kwargs.get("username"),
        password=kwargs.get("password"),
        db=int(kwargs.get("db", 0) or 0),
    )
    return Wire(target, options)


class Scripted:
    """One Lua script, called like a redis-py ``Script`` (``keys=``, ``args=``, ``client=``):
    on the :class:`Wire` when there is one, through redis-py when there is none or when a
    ``client`` (a pipeline) is given."""

    __slots__ = ("_lean", "_slow", "_wire")

    def __init__(self, client: redis.asyncio.Redis, wire: Wire | None, source: str) -> None:
        self._wire = wire
        self._lean = Script(source)
        self._slow: Any = client.register_script(source)

    async def __call__(self, *, keys: list[str], args: list[Any], client: Any = None) -> Any:
        if client is None and self._wire is not None:
            return await self._wire.run(self._lean, keys, args)
        return await self._slow(keys=keys, args=args, client=client)

    def send(self, *, keys: list[str], args: list[Any]) -> bool:
        """:meth:`Wire.send` when there is a wire that can send it; ``False`` (nothing sent:
        await the script instead) otherwise."""
        wire = self._wire
        return wire is not None and wire.send(self._lean, keys, args)

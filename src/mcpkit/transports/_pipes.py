"""Asyncio byte streams over pipes: a process's own descriptors (stdio server), a child's (client).

Pipes, sockets and terminals go through the event loop's pipe transports (non-blocking, no
threads). A regular file (``server < requests.jsonl > out.jsonl``) cannot be polled, so it gets a
plain synchronous fallback: reading or writing a local file does not wait on a peer. So does any
other descriptor the OS refuses to poll — ``/dev/null`` is a character device that epoll rejects
(EPERM): handed to a pipe transport it failed in a loop callback (a traceback) and was never
read, so ``server < /dev/null`` hung instead of seeing end of input and exiting.
"""

from __future__ import annotations

import asyncio
import os
import selectors
import stat
from collections import deque
from collections.abc import Callable
from typing import Final, cast

from mcpkit.transports._lines import PIPE_READ_BYTES, READ_CHUNK_BYTES, ByteSink, ByteSource

CLOSE_FLUSH_TIMEOUT: Final = 5.0
"""Seconds ``aclose`` waits for unsent output to reach a slow reader before dropping it."""


def is_regular_file(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def needs_file_fallback(fd: int, events: int) -> bool:
    """Whether ``fd`` must be used synchronously: a regular file, or anything not pollable."""
    if is_regular_file(fd):
        return True
    probe = selectors.DefaultSelector()
    try:
        probe.register(fd, events)
    except (OSError, ValueError):
        return True
    finally:
        probe.close()
    return False


class PipeSink(asyncio.Protocol):
    """A write pipe with flow control: ``drain`` waits while the transport's buffer is high."""

    def __init__(self) -> None:
        self._transport: asyncio.WriteTransport | None = None
        self._paused = False
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._lost: BaseException | None = None
        self._closed = asyncio.Event()

    # protocol callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # not isinstance: other loops' transports (uvloop's) do not derive from asyncio's classes
        self._transport = cast(asyncio.WriteTransport, transport)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = exc if exc is not None else BrokenPipeError("the pipe was closed")
        self._closed.set()
        self._wake(self._lost)

    def _wake(self, exc: BaseException | None) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                if exc is None:
                    waiter.set_result(None)
                else:
                    waiter.set_exception(exc)

    # ByteSink
    def write(self, data: bytes) -> None:
        assert self._transport is not None
        self._transport.write(data)

    def write_now(self, data: bytes) -> bool | None:
        """``write`` unless ``drain`` would wait or raise, or the pipe is closing (then nothing
        is written: ``None``); whether the pipe is still open after the write. One call where
        a line stream would make four (``drain_needed``, ``is_closing``, ``write``,
        ``is_closing``) for every message."""
        transport = self._transport
        if self._paused or self._lost is not None or transport is None or transport.is_closing():
            return None
        transport.write(data)
        return not transport.is_closing()  # (a failed write closes the transport at once)

    def drain_needed(self) -> bool:
        """Whether :meth:`drain` has anything to do (raise, or wait while paused)."""
        return self._paused or self._lost is not None

    async def drain(self) -> None:
        if self._lost is not None:
            raise BrokenPipeError("the pipe was closed") from self._lost
        if not self._paused:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        await waiter

    def is_closing(self) -> bool:
        return self._lost is not None or self._transport is None or self._transport.is_closing()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    async def aclose(self) -> None:
        """Close after flushing what is buffered, for at most :data:`CLOSE_FLUSH_TIMEOUT`."""
        if self._transport is None:
            return
        self._transport.close()
        try:
            await asyncio.wait_for(self._closed.wait(), CLOSE_FLUSH_TIMEOUT)
        except TimeoutError:
            self._transport.abort()


class FileSource:
    """Reads a regular file synchronously (a local file never blocks on a peer)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._ended = False

    async def read(self, n: int = -1) -> bytes:
        if self._ended:
            return b""
        data = os.read(self._fd, n if n > 0 else READ_CHUNK_BYTES)
        await asyncio.sleep(0)  # a long file must not starve the loop
        return data

    def end(self) -> None:
        self._ended = True

    def close(self) -> None:
        self._ended = True
        try:
            os.close(self._fd)
        except OSError:
            pass


class FileSink:
    """Writes a regular file synchronously; ``drain`` has nothing to wait for."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._closed = False

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def drain_needed(self) -> bool:
        return False

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                os.close(self._fd)
            except OSError:
                pass

    async def aclose(self) -> None:
        self.close()


class PipeSource(asyncio.Protocol):
    """A read pipe's bytes, pulled (:meth:`read`, a :class:`ByteSource`) or pushed.

    Pulled, it is a small ``StreamReader``: chunks are handed over as they came, without
    copying them into one buffer, and reading pauses while more than the limit waits. Pushed
    (:meth:`push_to`), every chunk goes straight from the event loop's read callback to a
    consumer: no task has to wake up for it. That is the hot path of both stdio ends (see
    ``LineStream.start_push``).
    """

    def __init__(self, limit: int = READ_CHUNK_BYTES) -> None:
        self._limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._eof = False
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False
        self._on_data: Callable[[bytes], None] | None = None
        self._on_end: Callable[[BaseException | None], None] | None = None

    # protocol callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.ReadTransport, transport)  # (see PipeSink's)

    def data_received(self, data: bytes) -> None:
        if self._on_data is not None:
            self._on_data(data)
            return
        self._chunks.append(data)
        self._size += len(data)
        self._wake()
        if self._size > 2 * self._limit and not self._paused and self._transport is not None:
            self._paused = True
            self._transport.pause_reading()

    def eof_received(self) -> bool:
        self._end(None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(exc)

    def _end(self, exc: BaseException | None) -> None:
        if self._eof:
            return
        self._eof = True
        self._error = exc
        self._wake()
        if self._on_end is not None:
            self._on_end(exc)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # ByteSource
    async def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (one chunk as it arrived, or part of it); ``b""`` at EOF."""
        while not self._chunks:
            if self._error is not None:
                raise ConnectionResetError(str(self._error)) from self._error
            if self._eof:
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        chunk = self._chunks.popleft()
        if 0 < n < len(chunk):
            self._chunks.appendleft(chunk[n:])
            chunk = chunk[:n]
        self._size -= len(chunk)
        if self._paused and self._size <= self._limit and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()
        return chunk

    # push
    def push_to(
        self, on_data: Callable[[bytes], None], on_end: Callable[[BaseException | None], None]
    ) -> None:
        """From now on hand every chunk to ``on_data`` as it arrives (what was buffered first)
        and the end of the stream to ``on_end`` (``None``: a clean EOF), once."""
        self._on_data = on_data
        self._on_end = on_end
        # the read transport calls the consumer itself from now on (it looks the method up on
        # each chunk): one call fewer per chunk than through data_received's check. A loop
        # that kept the method it saw at connection still reaches on_data through it.
        self.data_received = on_data  # type: ignore[method-assign,assignment]
        chunks, self._chunks, self._size = self._chunks, deque(), 0
        for chunk in chunks:
            on_data(chunk)
        if self._paused and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()
        if self._eof:
            on_end(self._error)


class ReadPipe:
    """The read side: a pipe transport feeding a ``StreamReader``, or the file fallback."""

    def __init__(self, source: ByteSource, transport: asyncio.ReadTransport | None) -> None:
        self.source = source
        self._transport = transport

    def stop(self) -> None:
        """Stop reading: what is buffered is still delivered, then EOF."""
        if self._transport is not None:
            self._transport.close()
        elif isinstance(self.source, FileSource):
            self.source.end()

    def close(self) -> None:
        self.stop()
        if isinstance(self.source, FileSource):
            self.source.close()


async def open_read_fd(fd: int) -> ReadPipe:
    """Take ownership of ``fd`` (readable) and return a byte source for it."""
    if needs_file_fallback(fd, selectors.EVENT_READ):
        return ReadPipe(FileSource(fd), None)
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "rb", buffering=0)
    transport, protocol = await loop.connect_read_pipe(PipeSource, pipe)
    limit_pipe_reads(transport)
    return ReadPipe(protocol, transport)


def limit_pipe_reads(transport: asyncio.BaseTransport | None) -> None:
    """Make a pipe transport read :data:`PIPE_READ_BYTES` at a time (see there for why).

    ``max_size`` is an attribute of asyncio's Unix pipe transport, not public API: transports
    without it (another event loop) are left as they are.
    """
    if transport is not None and isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = PIPE_READ_BYTES  # type: ignore[attr-defined]


async def open_write_fd(fd: int) -> PipeSink | FileSink:
    """Take ownership of ``fd`` (writable) and return a byte sink for it."""
    if needs_file_fallback(fd, selectors.EVENT_WRITE):
        return FileSink(fd)
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "wb", buffering=0)
    _, protocol = await loop.connect_write_pipe(PipeSink, pipe)
    return protocol


__all__ = [
    "CLOSE_FLUSH_TIMEOUT",
    "ByteSink",
    "FileSink",
    "FileSource",
    "PipeSink",
    "PipeSource",
    "ReadPipe",
    "open_read_fd",
    "limit_pipe_reads",
    "open_write_fd",
]

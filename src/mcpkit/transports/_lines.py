"""JSON-RPC messages as lines over a pair of byte streams: what stdio (both sides) shares.

The byte streams are abstract (:class:`ByteSource` / :class:`ByteSink`) so one implementation
serves asyncio's pipe streams, a child process's pipes and the plain-file fallback alike. Framing is
:class:`~mcpkit.protocol._framing.LineFramer` (bounded); each line is decoded once, in the task that
calls :meth:`LineStream.receive`, so there is no queue or extra task on the hot path.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Final, Protocol

from mcpkit.protocol._codec import decode_message, encode_batch, encode_message
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    InternalError,
    InvalidRequest,
    MessageDecodeError,
)
from mcpkit.protocol._framing import FrameTooLarge, LineFramer, peek_envelope
from mcpkit.types._jsonrpc import Message

READ_CHUNK_BYTES: Final = 256 * 1024
"""How much one read asks for; also the pipe reader's buffer limit before it pauses the pipe."""
PIPE_READ_BYTES: Final = 64 * 1024
"""What one ``read(2)`` on a pipe asks for. asyncio asks for 256 KiB, and a buffer that size
comes from ``mmap`` (above glibc's 128 KiB threshold), is shrunk with ``mremap`` and freed with
``munmap``: three system calls per message on top of the read, about a quarter of a small
request's server CPU. 64 KiB buffers come from the heap."""
SINGLE_WRITE_MAX_BYTES: Final = 64 * 1024
"""Messages up to this size go out as one ``write`` (bytes and newline joined): one system call
and one wake-up of the reader instead of two. Larger ones are not copied again for that."""
LARGE_WRITE_SLICE_BYTES: Final = 256 * 1024
"""Larger messages are handed to the pipe in slices this big, waiting for the pipe to drain in
between, so the transport never buffers a second copy of a large payload."""

_NEWLINE: Final = b"\n"

logger = logging.getLogger("mcpkit.transports")

Deliver = Callable[[Message | MessageDecodeError], None]
"""Takes one received message (or the decode error standing for a bad line)."""
Ended = Callable[[ConnectionBroken | None], None]
"""Told once that the input ended: ``None`` cleanly, else why it broke."""


def oversized_line_error(line: FrameTooLarge) -> MessageDecodeError:
    """The decode error for a line over the frame limit, carrying its ``id`` when the line's
    head shows it: an oversized request is answered with an error for that id at once, and an
    oversized response fails the request it answers at once (never a wait for its deadline)."""
    request_id, kind = peek_envelope(line.head)
    size = f"{line.limit} bytes (at least {line.size_seen} bytes arrived)"
    if kind == "response":
        return MessageDecodeError(
            InternalError(
                f"the response to request {request_id!r} is larger than this side's message "
                f"limit of {size} and was dropped; raise max_message_bytes, or have the peer "
                "send less (a resource link instead of inline data, pagination)"
            ),
            request_id,
            answerable=False,
        )
    return MessageDecodeError(
        InvalidRequest(
            f"Invalid Request: message exceeds {line.limit} bytes, the receiver's limit (at "
            f"least {line.size_seen} bytes arrived); it was dropped"
        ),
        request_id,
        answerable=kind == "request" or request_id is None,
    )


def decode_line(line: bytes | FrameTooLarge) -> Message | MessageDecodeError:
    """One received line as a message, or the decode error standing for it."""
    if isinstance(line, FrameTooLarge):
        return oversized_line_error(line)
    try:
        return decode_message(line)
    except MessageDecodeError as exc:
        return exc


class ByteSource(Protocol):
    """Where lines come from (``asyncio.StreamReader`` fits)."""

    async def read(self, n: int = -1) -> bytes: ...


class ByteSink(Protocol):
    """Where lines go (``asyncio.StreamWriter`` fits).

    A sink may also offer ``drain_needed() -> bool``, saying whether ``drain`` would raise or
    wait; :class:`LineStream` then skips the ``drain`` coroutine when it would not. And
    ``write_now(data) -> bool | None``: write at once unless ``drain`` would wait or raise or
    the sink is closing (then write nothing, return ``None``); else return whether the sink is
    still open after the write (what ``not is_closing()`` would say).
    """

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def is_closing(self) -> bool: ...

    def close(self) -> None: ...


class LineStream:
    """A :class:`~mcpkit._runtime.stream.MessageStream` of newline-delimited JSON.

    Subclasses own the byte streams' lifetime (``aclose``) and say why the connection broke
    (:meth:`_broken_reason`), which is where a child's exit code and stderr go.

    One task receives at a time (a lock enforces it); any number of tasks may send. A message is
    written with no ``await`` between its bytes and its newline, so messages never interleave.
    """

    def __init__(self, source: ByteSource, sink: ByteSink, *, max_message_bytes: int) -> None:
        self._source = source
        self._sink = sink
        self._drain_needed: Callable[[], bool] | None = getattr(sink, "drain_needed", None)
        """A sink that can say whether ``drain`` would wait (the pipe sinks) spares a coroutine
        per message when it would not."""
        self._write_now: Callable[[bytes], bool | None] | None = getattr(sink, "write_now", None)
        """A sink that can write without waiting (the pipe sinks) serves :meth:`send_nowait`:
        ``None`` when it wrote nothing (``drain`` would wait or raise, or it is closing), else
        whether it is still open after the write."""
        self._framer = LineFramer(max_message_bytes)
        self._lines: deque[bytes | FrameTooLarge] = deque()
        self._receive_lock = asyncio.Lock()
        self._write_lock = asyncio.Lock()
        """Held while a large message is written in slices; other messages wait their turn."""
        self._slicing = False
        """``_write_lock`` is held (what ``locked()`` says, read without a call per message)."""
        self._eof = False
        self._closed = False
        self._push: tuple[Deliver, Ended] | None = None

    @property
    def max_message_bytes(self) -> int:
        return self._framer.max_line_bytes

    # -- sending -----------------------------------------------------------------------------

    async def send(self, message: Message) -> None:
        """Write one message and wait while the peer is not keeping up (flow control).

        A small message is written at once, bytes and newline in one piece; a large one in
        slices under a lock, so messages never interleave and the payload is not copied again.

        Raises ``ConnectionClosed`` after :meth:`aclose`, ``ConnectionBroken`` when the peer
        stopped reading (with the reason from :meth:`_broken_reason`), and the codec's own error
        (``TypeError`` / ``msgspec.EncodeError``) for a payload that is not JSON.
        """
        if self._closed:
            raise ConnectionClosed(f"{self} is closed")
        data = encode_message(message)
        sink = self._sink
        if len(data) > SINGLE_WRITE_MAX_BYTES or self._slicing or sink.is_closing():
            await self._write_line(data)  # large, queued behind a large one, or the peer is gone
            return
        # The usual message, as _write_line writes it, without its coroutine (nor drain's when
        # the sink says there is nothing to wait for): this runs once per answer.
        try:
            sink.write(data + _NEWLINE)
            if self._drain_needed is None or self._drain_needed():
                await sink.drain()
        except (ConnectionError, OSError) as exc:
            if self._closed:
                raise ConnectionClosed(f"{self} is closed") from None
            raise ConnectionBroken(await self._broken_reason()) from exc
        if sink.is_closing() and not self._closed:
            raise ConnectionBroken(await self._broken_reason())  # see _write_line

    def send_nowait(self, message: Message) -> Coroutine[Any, Any, None] | None:
        """:meth:`send` without a coroutine when none is needed: the usual message is written
        at once and ``None`` returned. Otherwise (closed, large, queued behind a large one,
        the peer not keeping up or gone) nothing is written and the coroutine that sends it,
        or raises why it cannot, is returned: the caller awaits it. Raises like :meth:`send`
        (the codec's own error for a payload that is not JSON at once, before any write)."""
        if self._closed or self._slicing:
            return self.send(message)
        data = encode_message(message)
        write_now = self._write_now
        if write_now is None or len(data) > SINGLE_WRITE_MAX_BYTES:
            return self._write_line(data)
        try:
            written = write_now(data + _NEWLINE)
        except (ConnectionError, OSError) as exc:
            return self._write_failed(exc)
        if written is None:  # nothing written: the peer is not keeping up, or is gone
            return self._write_line(data)  # (raises when the sink is closing, as send does)
        if not written and not self._closed:
            return self._write_failed(None)  # the pipe closed under the write: see _write_line
        return None

    async def _write_failed(self, exc: BaseException | None) -> None:
        """Raise what :meth:`send` raises when the write failed (``exc``) or the pipe closed
        under it (``None``)."""
        if exc is not None and self._closed:
            raise ConnectionClosed(f"{self} is closed") from None
        raise ConnectionBroken(await self._broken_reason()) from exc

    async def send_batch(self, messages: Sequence[Message]) -> None:
        """Write ``messages`` as one JSON array on one line: the answer to a JSON-RPC batch
        (2025-03-26). Raises like :meth:`send`."""
        if self._closed:
            raise ConnectionClosed(f"{self} is closed")
        await self._write_line(encode_batch(messages))

    async def _write_line(self, data: bytes) -> None:
        sink = self._sink
        if sink.is_closing():
            raise ConnectionBroken(await self._broken_reason())
        try:
            if len(data) <= SINGLE_WRITE_MAX_BYTES and not self._slicing:
                sink.write(data + _NEWLINE)
                await sink.drain()
            else:
                async with self._write_lock:
                    self._slicing = True
                    try:
                        await self._write_slices(sink, data)
                    finally:
                        self._slicing = False
        except (ConnectionError, OSError) as exc:
            if self._closed:
                raise ConnectionClosed(f"{self} is closed") from None
            raise ConnectionBroken(await self._broken_reason()) from exc
        if sink.is_closing() and not self._closed:
            # The write itself hit a closed pipe; asyncio reports that to ``drain`` only a loop
            # iteration later, so without this check the message would vanish silently.
            raise ConnectionBroken(await self._broken_reason())

    @staticmethod
    async def _write_slices(sink: ByteSink, data: bytes) -> None:
        if len(data) <= SINGLE_WRITE_MAX_BYTES:
            sink.write(data + _NEWLINE)
            await sink.drain()
            return
        for start in range(0, len(data), LARGE_WRITE_SLICE_BYTES):
            sink.write(data[start : start + LARGE_WRITE_SLICE_BYTES])  # a slice-sized copy
            await sink.drain()
        sink.write(_NEWLINE)
        await sink.drain()

    def _decode(self, line: bytes | FrameTooLarge) -> Message | MessageDecodeError:
        """One received line as a message, or the decode error standing for it; subclasses
        may say more about a bad line (the stdio client: a server's stray stdout text)."""
        return decode_line(line)

    async def _broken_reason(self) -> str:
        """Why the peer is gone, for ``ConnectionBroken``; subclasses add what they know."""
        return f"{self}: the peer went away"

    # -- receiving ---------------------------------------------------------------------------

    async def receive(self) -> Message | MessageDecodeError | None:
        """The next message; a decode-error item for a bad or oversized line; ``None`` at EOF."""
        if self._push is not None:
            raise RuntimeError(f"{self} pushes its messages (start_push); receive is unused")
        async with self._receive_lock:
            lines = self._lines
            while True:
                if self._closed:
                    return None
                if lines:
                    return self._decode(lines.popleft())
                if self._eof:
                    return None
                await self._fill()

    def start_push(self, deliver: Deliver, ended: Ended) -> bool:
        """Hand every message to ``deliver`` as its bytes arrive, instead of :meth:`receive`.

        The pull path costs a wake-up of the receiving task per read (a future, a task step, a
        loop iteration) and a lock; pushed, a line is framed, decoded and delivered inside the
        event loop's read callback. ``ended`` is called once when the input ends: ``None`` for a
        clean EOF (or our own close), a ``ConnectionBroken`` when the read failed. ``deliver``
        must not block and should not raise (an exception ends the input as broken).

        Only sources that can push (:class:`~mcpkit.transports._pipes.PipeSource`) do; returns
        ``False`` (use :meth:`receive`) for the others, or once receiving has begun.
        """
        push_to = getattr(self._source, "push_to", None)
        if push_to is None or self._push is not None or self._receive_lock.locked():
            return False
        if self._lines or self._eof:
            return False
        self._push = (deliver, ended)
        push_to(self._pushed_chunk, self._pushed_end)
        return True

    def _pushed_chunk(self, chunk: bytes) -> None:
        push = self._push
        if push is None or self._eof:
            return
        deliver = push[0]
        try:
            for line in self._framer.feed(chunk):
                if self._closed:
                    return
                deliver(self._decode(line))
        except Exception as exc:  # a bug downstream must not leave the peer unanswered forever
            logger.exception("%s: delivering a message failed", self)
            self._end_push(ConnectionBroken(f"{self}: delivering a message failed: {exc!r}"))

    def _pushed_end(self, exc: BaseException | None) -> None:
        push = self._push
        if push is None or self._eof:
            return
        if exc is None and not self._closed:
            last = self._framer.end()
            if last is not None:
                try:
                    push[0](self._decode(last))
                except Exception:
                    logger.exception("%s: delivering a message failed", self)
        broken = None
        if exc is not None and not self._closed:
            broken = ConnectionBroken(f"{self}: reading failed: {exc!r}")
            broken.__cause__ = exc
        self._end_push(broken)

    def _end_push(self, exc: ConnectionBroken | None) -> None:
        if self._eof:
            return
        self._eof = True
        assert self._push is not None
        self._push[1](exc)

    async def _fill(self) -> None:
        try:
            chunk = await self._source.read(READ_CHUNK_BYTES)
        except (ConnectionError, OSError) as exc:
            self._eof = True
            raise ConnectionBroken(await self._broken_reason()) from exc
        if chunk:
            self._lines.extend(self._framer.feed(chunk))
            return
        self._eof = True
        last = self._framer.end()
        if last is not None:
            self._lines.append(last)

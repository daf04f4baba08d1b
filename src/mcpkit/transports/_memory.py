"""Two connected in-process message streams: the twin of every real transport, for tests.

``memory_pair()`` gives two ends of one connection. What one end sends, the other receives, in
order, through a bounded buffer per direction (a sender waits while the buffer is full, like a
pipe). Closing one end is what a peer hanging up looks like on a real transport: the other end
still receives what was already sent, then ``None``, and its ``send`` raises
:class:`~mcpkit.protocol._errors.ConnectionBroken`.

By default every message really goes through the JSON codec on its way across
(``serialize=True``): the receiver gets a freshly decoded object, never the sender's own (so
neither side can mutate the other's data); a payload the codec cannot encode (an arbitrary object)
fails at the sender exactly as it would on a real transport instead of passing silently in tests;
and one the codec converts (a ``set`` becomes a list, a ``datetime`` an ISO string) arrives
converted, as the real peer would see it. Pass ``serialize=False`` to hand objects over
as they are (for benchmarks of the layers above, where the codec cost is measured elsewhere).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Final

from mcpkit.protocol._codec import decode_message, encode_batch, encode_message
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    MessageDecodeError,
    UsageError,
)
from mcpkit.types._jsonrpc import Message

__all__ = ["DEFAULT_MAX_BUFFER", "MemoryStream", "memory_pair"]

DEFAULT_MAX_BUFFER: Final = 64
"""Messages in flight per direction before ``send`` waits for the receiver."""

_Item = Message | bytes


class _Channel:
    """One direction of the pair: a bounded FIFO with a writer end and a reader end."""

    def __init__(self, capacity: int) -> None:
        self._items: deque[_Item] = deque()
        self._capacity = capacity
        self.writer_closed = False
        """No more items will come; the reader drains what is left, then sees the end."""
        self.reader_closed = False
        """Nobody will read; the writer's next put fails."""
        self._readable = asyncio.Event()
        self._writable = asyncio.Event()

    def wake(self) -> None:
        self._readable.set()
        self._writable.set()

    async def put(self, item: _Item, on_reader_gone: str) -> None:
        while True:
            if self.reader_closed:
                raise ConnectionBroken(on_reader_gone)
            if len(self._items) < self._capacity:
                self._items.append(item)
                self._readable.set()
                return
            self._writable.clear()
            await self._writable.wait()

    async def get(self) -> _Item | None:
        while True:
            if self.reader_closed:
                return None
            if self._items:
                item = self._items.popleft()
                self._writable.set()
                return item
            if self.writer_closed:
                return None
            self._readable.clear()
            await self._readable.wait()


class MemoryStream:
    """One end of a :func:`memory_pair` (a :class:`~mcpkit._runtime.stream.MessageStream`)."""

    def __init__(
        self, inbound: _Channel, outbound: _Channel, *, serialize: bool, name: str
    ) -> None:
        self._inbound = inbound
        self._outbound = outbound
        self._serialize = serialize
        self._name = name
        self._closed = False

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<MemoryStream {self._name} {state}>"

    async def send(self, message: Message) -> None:
        """Send one message; waits while the peer's buffer is full.

        With ``serialize`` on, a message that cannot be encoded as JSON raises the codec's own
        error here (``TypeError`` or ``msgspec.EncodeError``), as it would on stdio or HTTP.
        """
        if self._closed:
            raise ConnectionClosed(f"memory stream {self._name} is closed")
        item: _Item = encode_message(message) if self._serialize else message
        await self._outbound.put(item, f"the peer of memory stream {self._name} closed its end")

    async def send_batch(self, messages: Sequence[Message]) -> None:
        """Send ``messages`` as one JSON array, as a stream on the wire would (the answer to a
        2025-03-26 batch); the peer decodes it like bytes from :meth:`send_raw`."""
        await self.send_raw(encode_batch(messages))

    async def send_raw(self, data: bytes) -> None:
        """Send bytes as if they were one line on the wire (for testing how garbage is handled).

        The receiving end decodes them and returns a :class:`MessageDecodeError` item when they
        are not a valid message.
        """
        if self._closed:
            raise ConnectionClosed(f"memory stream {self._name} is closed")
        await self._outbound.put(data, f"the peer of memory stream {self._name} closed its end")

    async def receive(self) -> Message | MessageDecodeError | None:
        """The next message, a decode-error item for bad bytes, or ``None`` once the peer closed
        and everything it sent was received (or once this end was closed)."""
        item = await self._inbound.get()
        if isinstance(item, bytes):
            try:
                return decode_message(item)
            except MessageDecodeError as exc:
                return exc
        return item

    async def aclose(self) -> None:
        """Close this end. Idempotent; never raises. A pending ``receive`` here returns ``None``."""
        if self._closed:
            return
        self._closed = True
        self._outbound.writer_closed = True
        self._inbound.reader_closed = True
        self._outbound.wake()
        self._inbound.wake()


def memory_pair(
    max_buffer: int = DEFAULT_MAX_BUFFER, *, serialize: bool = True
) -> tuple[MemoryStream, MemoryStream]:
    """Two connected in-process streams, conventionally (client end, server end).

    ``max_buffer`` bounds the messages in flight per direction. ``serialize`` (default on) passes
    every message through the JSON codec; see the module docstring for why.
    """
    if max_buffer < 1:
        raise UsageError(f"max_buffer must be at least 1, not {max_buffer}")
    a_to_b = _Channel(max_buffer)
    b_to_a = _Channel(max_buffer)
    a = MemoryStream(b_to_a, a_to_b, serialize=serialize, name="A")
    b = MemoryStream(a_to_b, b_to_a, serialize=serialize, name="B")
    return a, b

"""The inbound side of an HTTP session stream: many producers, one reader, one ending.

A legacy HTTP session receives on several connections at once (each POST's SSE stream, the GET
stream, or the 2024-11-05 event stream); they all put what they read here, and the session's
reader takes it out in arrival order. Bounded: a full inbox makes producers wait, which stops
them reading their sockets (backpressure, never unbounded memory).

It ends once: :meth:`close` (we closed: the reader gets ``None``) or :meth:`fail` (the server is
gone: the reader gets what was already queued, then the error). Either way producers still
blocked on a full inbox are released and their items dropped.
"""

from __future__ import annotations

import asyncio
from collections import deque

from mcpkit.protocol._errors import MessageDecodeError, TransportError
from mcpkit.types._jsonrpc import Message

__all__ = ["Inbox"]

Item = Message | MessageDecodeError


class Inbox:
    __slots__ = ("_capacity", "_closed", "_failure", "_items", "_readable", "_writable")

    def __init__(self, capacity: int) -> None:
        self._items: deque[Item] = deque()
        self._capacity = capacity
        self._readable = asyncio.Event()
        self._writable = asyncio.Event()
        self._writable.set()
        self._failure: TransportError | None = None
        self._closed = False

    @property
    def ended(self) -> bool:
        return self._closed or self._failure is not None

    async def put(self, item: Item) -> None:
        """Queue ``item``, waiting while the inbox is full; dropped once it has ended."""
        while len(self._items) >= self._capacity and not self.ended:
            self._writable.clear()
            await self._writable.wait()
        if self.ended:
            return
        self._items.append(item)
        self._readable.set()

    def fail(self, exc: TransportError) -> None:
        """The connection is lost: the reader drains what is queued, then gets ``exc``."""
        if self.ended:
            return
        self._failure = exc
        self._wake()

    def close(self) -> None:
        """We closed: the reader gets ``None`` (queued items are dropped)."""
        if self._closed:
            return
        self._closed = True
        self._items.clear()
        self._wake()

    async def get(self) -> Item | None:
        while True:
            if self._closed:
                return None
            if self._items:
                item = self._items.popleft()
                self._writable.set()
                return item
            if self._failure is not None:
                raise self._failure
            self._readable.clear()
            await self._readable.wait()

    def _wake(self) -> None:
        self._readable.set()
        self._writable.set()

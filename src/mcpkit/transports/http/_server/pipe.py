"""Messages bound for one SSE stream, whoever is (or is not) writing it right now.

A stream outlives HTTP connections in the legacy era: the client may vanish, the server may close
the connection on purpose (polling), and a later ``GET`` with ``Last-Event-ID`` picks the stream up
again. So the handler of a request never writes to a socket; it *emits* into the request's
:class:`EventPipe`, and the coroutine that owns the current HTTP response (if any) drains it.

States::

    PENDING ──(first message, slow handler, or close request)──> SSE ──(connection lost)──> DETACHED
       │  └─(handler done, nothing else sent)──> JSON                  <──(GET Last-Event-ID)──┘
       └─(connection lost before anything was sent)──> GONE

* **PENDING**: nothing was sent yet; messages wait in memory, unnumbered. If the handler finishes
  first and nothing else was emitted, the response is plain JSON (cheapest, and most requests).
* **SSE**: a writer is attached. With an event store every message is appended *before* it is
  queued, under the pipe's lock, so event ids follow emission order and a resuming reader can
  never miss or duplicate one (:meth:`EventPipe.resume` replays and attaches under the same lock).
* **DETACHED**: no writer; with a store messages are still appended (for a later resume),
  without one they are dropped. **GONE**/**JSON**: nothing more can reach the client.

The queue between emitter and writer is bounded (:data:`MAX_QUEUED_EVENTS`): a handler that
produces faster than the client reads waits, instead of growing memory.
"""

from __future__ import annotations

import asyncio
import enum
from collections import deque
from collections.abc import Callable
from typing import Final

from mcpkit.transports.http._server.event_store import EventStore

__all__ = ["MAX_QUEUED_EVENTS", "EventPipe", "PipeState"]

MAX_QUEUED_EVENTS: Final = 256
"""Messages waiting for the writer of one stream; an emitter beyond this waits for room."""


class PipeState(enum.Enum):
    PENDING = "pending"
    JSON = "json"
    SSE = "sse"
    DETACHED = "detached"
    GONE = "gone"


Item = tuple[str | None, bytes]
"""``(event id or None, message bytes)`` ready to be written as one SSE event."""


class EventPipe:
    """See the module docstring. ``store`` is ``None`` for streams that cannot be resumed."""

    __slots__ = (
        "_finishing",
        "_items",
        "_lock",
        "_room",
        "_wake",
        "close_prime",
        "close_requested",
        "close_retry",
        "ended",
        "final",
        "final_status",
        "generation",
        "on_emit",
        "session_id",
        "state",
        "store",
        "stream_id",
    )

    def __init__(
        self,
        stream_id: str,
        *,
        session_id: str | None = None,
        store: EventStore | None = None,
        state: PipeState = PipeState.PENDING,
    ) -> None:
        self.stream_id = stream_id
        self.session_id = session_id
        self.store = store if session_id is not None else None
        self.state = state
        self.final: bytes | None = None
        """The final response while PENDING (the writer sends it as JSON or as the last event)."""
        self.final_status = 200
        self.ended = False
        """Everything was emitted and queued: the final response, if any, is the last item."""
        self._finishing = False
        self.close_requested = False
        self.close_retry: int | None = None
        self.close_prime: str | None = None
        """Set when the stream was closed before its first byte: the id to prime it with."""
        self.generation = 0
        """Bumped when a new writer attaches; an older writer sees it and steps aside."""
        self.on_emit: Callable[[], None] | None = None
        """Called when a message is queued while PENDING, or the stream is asked to close: a
        handler running in the request's own task has no writer yet, and this is how it gets
        one (see ``_exchange``)."""
        self._items: deque[Item] = deque()
        # Made on first use: most requests are answered without anyone waiting on the pipe, and
        # a set() with no waiter means nothing here (every wait clears its event first).
        self._wake: asyncio.Event | None = None
        self._room: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None

    @property
    def resumable(self) -> bool:
        return self.store is not None

    @property
    def deliverable(self) -> bool:
        """Whether a message emitted now can still reach the client (now or on a resume)."""
        if self.state in (PipeState.PENDING, PipeState.SSE):
            return True
        return self.state is PipeState.DETACHED and self.resumable

    def wake(self) -> None:
        """Wake the writer (new items, an end, a close request, or a disconnect)."""
        if self._wake is not None:
            self._wake.set()
        if self._room is not None:
            self._room.set()

    async def wait(self) -> None:
        """For the writer: wait until :meth:`wake` is called (clears the signal first)."""
        if not self._items and not self.ended and not self.close_requested:
            if self._wake is None:
                self._wake = asyncio.Event()
            else:
                self._wake.clear()
            await self._wake.wait()

    def take(self) -> list[Item]:
        """For the writer: everything queued, oldest first."""
        items = list(self._items)
        self._items.clear()
        if self._room is not None:
            self._room.set()
        return items

    @property
    def has_items(self) -> bool:
        return bool(self._items)

    # -- emitter side --------------------------------------------------------------------------

    async def emit(self, data: bytes) -> None:
        """Queue a notification or server request for the client (see the module docstring)."""
        if self._finishing:
            return
        while len(self._items) >= MAX_QUEUED_EVENTS and self.state in (
            PipeState.PENDING,
            PipeState.SSE,
        ):
            if self._room is None:
                self._room = asyncio.Event()
            else:
                self._room.clear()
            await self._room.wait()
        state = self.state
        if state is PipeState.PENDING:
            self._items.append((None, data))
            if self._wake is not None:
                self._wake.set()
            if self.on_emit is not None:
                self.on_emit()
        elif state is PipeState.SSE or (state is PipeState.DETACHED and self.store is not None):
            async with self.lock:
                event_id = await self._append(data)
                if self.state is PipeState.SSE:
                    self._items.append((event_id, data))
                    if self._wake is not None:
                        self._wake.set()

    async def finish(self, data: bytes | None, status: int = 200) -> None:
        """The request is over: ``data`` is its final response (``None``: no response at all,
        e.g. a cancelled legacy request)."""
        if self._finishing:
            return
        self._finishing = True
        state = self.state
        if state is PipeState.PENDING:
            self.final = data
            self.final_status = status
        elif state is PipeState.SSE or (state is PipeState.DETACHED and self.store is not None):
            async with self.lock:
                if data is not None:
                    event_id = await self._append(data)
                    if self.state is PipeState.SSE:
                        self._items.append((event_id, data))
                await self._close_in_store()
        self.ended = True
        self.wake()

    def abandon(self) -> None:
        """The request ends without a response (it was cancelled); nothing more will come."""
        self._finishing = True
        self.ended = True
        self.wake()

    async def request_close(self, retry_ms: int | None) -> bool:
        """End the HTTP response *now* but keep the stream (SSE polling, SEP-1699).

        From this call on, the handler's messages go to the store only; the client comes back
        after ``retry_ms`` with ``Last-Event-ID``. Before any byte was sent the stream is primed
        first (:attr:`close_prime`), so the client has an id to resume from. ``False`` when the
        stream cannot be resumed (no event store), so closing it would lose messages.
        """
        if self.store is None or self.session_id is None or self._finishing:
            return False
        async with self.lock:
            if self.state is PipeState.PENDING:
                self.close_prime = await self.store.prime(self.session_id, self.stream_id)
                for _, data in self.take():
                    await self._append(data)
            elif self.state is not PipeState.SSE:
                return False
            self.state = PipeState.DETACHED  # queued items, already stored, are still flushed
            self.close_requested = True
            self.close_retry = retry_ms
        self.wake()
        if self.on_emit is not None:
            self.on_emit()  # the close is written by the writer: a request running inline needs one
        return True

    # -- writer side ---------------------------------------------------------------------------

    async def start_sse(self) -> tuple[str | None, list[Item]]:
        """PENDING → SSE. Returns the priming event id (``None`` if not resumable) and the items
        emitted so far, now numbered (the final response last, if it is already known)."""
        async with self.lock:
            self.state = PipeState.SSE
            self.generation += 1
            prime = None
            silent_end = self.ended and self.final is None and not self._items
            # nothing to resume from a stream that ends now with no event: no priming id either
            complete = getattr(self.store, "write_complete", None)
            if self.ended and not silent_end and complete is not None and self.session_id:
                # every event is known now: prime, append and close in one store call
                datas = [data for _, data in self.take()]
                if self.final is not None:
                    datas.append(self.final)
                    self.final = None
                prime, ids = await complete(self.session_id, self.stream_id, datas)
                return prime, list(zip(ids, datas, strict=True))
            if self.store is not None and self.session_id is not None and not silent_end:
                prime = await self.store.prime(self.session_id, self.stream_id)
            items: list[Item] = []
            for _, data in self.take():
                items.append((await self._append(data), data))
            if self.ended and self.final is not None:
                final, self.final = self.final, None
                items.append((await self._append(final), final))
            if self.ended:
                await self._close_in_store()
            return prime, items

    def to_json(self) -> bool:
        """PENDING → JSON when the final response is all there is; ``False`` otherwise.

        A request that ended with no response (cancelled) is never JSON: a JSON answer to a
        request must be one JSON object, and a cancelled request gets none. Its POST becomes an
        SSE stream that ends without an event, the one shape the spec allows for "no answer"
        (202/204 answer notifications and responses, not requests).
        """
        if (
            self.state is PipeState.PENDING
            and self.ended
            and self.final is not None
            and not self._items
        ):
            self.state = PipeState.JSON
            return True
        return False

    def detach(self, generation: int) -> list[Item]:
        """The writer of ``generation`` lost its connection (or closes it on purpose).

        From now on emitted messages only go to the store. Returns what was queued but not
        written (already stored, with ids): a writer closing on purpose may still send it.
        """
        if generation != self.generation:
            return []  # a newer writer already took over
        leftover = self.take()
        if self.state is PipeState.SSE:
            self.state = PipeState.DETACHED
        elif self.state is PipeState.PENDING:
            self.state = PipeState.GONE
            leftover = []  # never numbered: nobody can resume them
        self.close_requested = False
        if self._room is not None:
            self._room.set()
        return leftover

    async def attach(self, replay: list[Item] | None = None) -> tuple[int, list[Item]]:
        """A new writer takes the stream (a resumed ``GET``). Returns its generation and what to
        write first: ``replay`` (already read from the store by the caller, under our lock via
        :attr:`lock`) followed by anything queued."""
        self.state = PipeState.SSE
        self.generation += 1
        self.close_requested = False
        if self._wake is not None:
            self._wake.set()  # an older writer wakes up, sees it is superseded and steps aside
        return self.generation, [*(replay or []), *self.take()]

    @property
    def lock(self) -> asyncio.Lock:
        """Held while appending; a resume replays and attaches under it (no gap, no duplicate)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def _append(self, data: bytes) -> str | None:
        if self.store is None or self.session_id is None:
            return None
        return await self.store.append(self.session_id, self.stream_id, data)

    async def _close_in_store(self) -> None:
        if self.store is not None and self.session_id is not None:
            await self.store.close_stream(self.session_id, self.stream_id)

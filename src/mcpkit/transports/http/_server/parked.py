"""Requests whose client went away while their handler waits: they hold no serving slot, and
there are only so many of them.

A legacy session's request survives its client closing the stream (a disconnect is not a
cancellation: the client may resume with ``Last-Event-ID``, or answer the question the handler
asked). Its handler runs inline in the HTTP request's task, so that task lives on, and an ASGI
server counts it against its concurrency limit: a client that asks a few hundred questions and
hangs up on each got the whole server answering 503 to everyone until its sessions idled out, or
forever if it kept them alive with pings. So such a request is *parked*:

* its task is **released**: the serve path's guard does not count it as a request being served
  (:func:`serving`);
* parked requests are **bounded** per session, per peer and in all
  (:data:`MAX_PARKED_PER_SESSION`, :data:`MAX_PARKED_PER_PEER`, :data:`MAX_PARKED`): beyond a
  bound the oldest parked request of that session, peer or process is cancelled, as the session's
  end would, so their tasks and memory stay flat whatever a client does.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Collection
from typing import Any, Final, Protocol

__all__ = [
    "MAX_PARKED",
    "MAX_PARKED_PER_PEER",
    "MAX_PARKED_PER_SESSION",
    "ParkedRequests",
    "release",
    "serving",
]

logger = logging.getLogger("mcpkit.http")

MAX_PARKED_PER_SESSION: Final = 8
"""Requests one legacy session may have parked (client gone, handler waiting)."""
MAX_PARKED_PER_PEER: Final = 32
"""Parked requests of one peer (IPv4 address or IPv6 ``/64``), over all its sessions."""
MAX_PARKED: Final = 512
"""Parked requests in this process."""
EVICTED_REASON: Final = "too many requests whose client went away are waiting"

_released: set[asyncio.Task[Any]] = set()


def release(task: asyncio.Task[Any]) -> None:
    """``task`` (an HTTP request's) no longer holds a serving slot; until it ends."""
    if task not in _released and not task.done():
        _released.add(task)
        task.add_done_callback(_released.discard)


def serving(tasks: Collection[asyncio.Task[Any]]) -> int:
    """How many of an ASGI server's request ``tasks`` hold a serving slot (the released ones do
    not). Costs a pass over the released tasks only when there are any."""
    if not _released:
        return len(tasks)
    return len(tasks) - sum(1 for task in _released if task in tasks)


class Cancellable(Protocol):
    def cancel(self, reason: str) -> None: ...


class ParkedRequests:
    """The parked requests of one server's legacy sessions, oldest first (see the module
    docstring). Keys are the requests' handles; :meth:`unpark` when a request ends."""

    __slots__ = (
        "_by_peer",
        "_by_session",
        "_order",
        "max_per_peer",
        "max_per_session",
        "max_total",
    )

    def __init__(
        self,
        *,
        max_per_session: int = MAX_PARKED_PER_SESSION,
        max_per_peer: int = MAX_PARKED_PER_PEER,
        max_total: int = MAX_PARKED,
    ) -> None:
        self.max_per_session = max_per_session
        self.max_per_peer = max_per_peer
        self.max_total = max_total
        self._order: dict[Cancellable, tuple[str, str]] = {}
        self._by_session: Counter[str] = Counter()
        self._by_peer: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._order)

    def park(self, handle: Cancellable, session_id: str, peer: str) -> None:
        if handle in self._order:
            return
        self._order[handle] = (session_id, peer)
        self._by_session[session_id] += 1
        self._by_peer[peer] += 1
        if self._by_session[session_id] > self.max_per_session:
            self._evict(lambda s, _p: s == session_id, "session")
        if self._by_peer[peer] > self.max_per_peer:
            self._evict(lambda _s, p: p == peer, "peer")
        if len(self._order) > self.max_total:
            self._evict(lambda _s, _p: True, "process")

    def unpark(self, handle: Cancellable) -> None:
        owner = self._order.pop(handle, None)
        if owner is None:
            return
        session_id, peer = owner
        for counter, key in ((self._by_session, session_id), (self._by_peer, peer)):
            left = counter[key] - 1
            if left > 0:
                counter[key] = left
            else:
                del counter[key]

    def _evict(self, chosen: Any, scope: str) -> None:
        for handle, (session_id, peer) in self._order.items():
            if chosen(session_id, peer):
                logger.info(
                    "cancelled a request of session %s… (peer %s): its client went away and "
                    "the %s has too many such requests waiting",
                    session_id[:8],
                    peer,
                    scope,
                )
                self.unpark(handle)
                handle.cancel(EVICTED_REASON)
                return

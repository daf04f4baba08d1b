"""One of our requests awaiting its response: the future the caller waits on, and its deadline.

The value a connection's outbound table carries for each of our requests, wherever the
connection is driven: a stdio or memory :class:`~mcpkit._runtime.session.Session`, and a legacy
HTTP session's questions to its client (``transports/http/_server/legacy_sessions.py``).

The deadline is a loop timer, not a waiting task. Alone (:meth:`PendingRequest.arm` without a
:class:`SharedDeadlines`), a request costs one ``call_at`` handle. A session's requests share one
timer instead (:class:`SharedDeadlines`): it is set for the earliest deadline and checks the
requests when it fires, so a request whose deadline is not the earliest (every sequential call
with the default timeout) costs a set insertion and removal, not a timer handle pushed onto the
loop's heap, cancelled, and popped later. Progress does not touch a timer either way, it only
moves :attr:`PendingRequest.deadline`; a timer that fires before a moved deadline is set again
for it. This keeps a progress notification at a few attribute writes.
"""

from __future__ import annotations

import asyncio
import math
from typing import Final

from mcpkit._runtime.context import ProgressCallback
from mcpkit.protocol._errors import RequestTimeout
from mcpkit.types._jsonrpc import JSONObject

__all__ = ["DEFAULT_MAX_TOTAL_TIMEOUT", "PendingRequest", "SharedDeadlines"]

DEFAULT_MAX_TOTAL_TIMEOUT: Final = 600.0
"""How long progress notifications can keep one request alive in total when the caller set a
``timeout`` but no ``max_timeout`` (``max_timeout=math.inf`` lifts it; longer work belongs in a
task). A call without progress, or with ``timeout=None``, is not affected."""


class PendingRequest:
    """The runtime's half of an :class:`~mcpkit.protocol._inflight.OutboundRequest`."""

    __slots__ = (
        "_max_timeout",
        "_scheduled",
        "_shared",
        "_timer",
        "answered",
        "caller",
        "deadline",
        "expired",
        "future",
        "hard_deadline",
        "method",
        "progress_callback",
        "sent",
        "timeout",
    )

    def __init__(
        self,
        future: asyncio.Future[JSONObject],
        method: str,
        progress_callback: ProgressCallback | None,
    ) -> None:
        self.future = future
        self.method = method
        self.progress_callback = progress_callback
        self.timeout: float | None = None
        self._max_timeout: float | None = None
        self.deadline = 0.0
        self.hard_deadline: float | None = None
        self._scheduled = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._shared: SharedDeadlines | None = None
        self.caller: asyncio.Task[object] | None = None
        """The task waiting for this request (tracked while a deadline is armed, and on a pushed
        session for ``resume_now``)."""
        self.sent = False
        """The request was handed to the transport (until then, expiry interrupts the send)."""
        self.expired = False
        self.answered = False
        """The connection matched the peer's answer to this request (and with it removed the
        request from its table)."""

    def arm(
        self,
        loop: asyncio.AbstractEventLoop,
        timeout: float | None,
        max_timeout: float | None,
        shared: SharedDeadlines | None = None,
    ) -> None:
        """Start the deadline: ``timeout`` without news, never beyond ``max_timeout`` in total.
        Call from the task that waits for the answer. With ``shared``, the deadline joins those
        of its other requests on one timer; without, it gets a timer of its own."""
        now = loop.time()
        self.timeout = timeout
        if max_timeout is None and timeout is not None and self.progress_callback is not None:
            # progress may move the deadline: never let it do so forever (a hostile or stuck
            # peer reporting progress would hold the call open for good)
            max_timeout = max(DEFAULT_MAX_TOTAL_TIMEOUT, timeout)
        self._max_timeout = max_timeout
        self.hard_deadline = None if max_timeout is None else now + max_timeout
        self.deadline = self._next_deadline(now)
        self.caller = asyncio.current_task(loop)  # with the loop: no getpid() on Python 3.11
        if shared is not None:
            self._shared = shared
            shared.watch(self)
            return
        self._scheduled = self.deadline
        self._timer = loop.call_at(self.deadline, self._fire, loop)

    def progressed(self, now: float) -> None:
        """A progress notification arrived: the no-news deadline starts again from ``now``."""
        if (self._timer is not None or self._shared is not None) and self.timeout is not None:
            self.deadline = self._next_deadline(now)

    def disarm(self) -> None:
        if self._shared is not None:
            self._shared.unwatch(self)
            self._shared = None
        elif self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.caller = None

    def timeout_error(self) -> RequestTimeout:
        hit_max = self.hard_deadline is not None and self.deadline >= self.hard_deadline
        limit = self._max_timeout if hit_max or self.timeout is None else self.timeout
        return RequestTimeout(self.method, limit or 0.0, total=hit_max and self.timeout is not None)

    def _next_deadline(self, now: float) -> float:
        soft = None if self.timeout is None else now + self.timeout
        if self.hard_deadline is None:
            return soft if soft is not None else now
        return self.hard_deadline if soft is None else min(soft, self.hard_deadline)

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        if self.future.done():
            return
        if self.deadline > self._scheduled:  # progress moved the deadline since we were armed
            self._scheduled = self.deadline
            self._timer = loop.call_at(self.deadline, self._fire, loop)
            return
        self.expire()

    def expire(self) -> None:
        """The deadline passed: fail the caller's future with the timeout error, or, while the
        request is still being sent (the peer is not reading), interrupt the send."""
        if self.future.done():
            return
        self.expired = True
        self.future.set_exception(self.timeout_error())
        if not self.sent and self.caller is not None:
            self.caller.cancel()  # still stuck sending (the peer is not reading): interrupt it


class SharedDeadlines:
    """The deadlines of many pending requests on one loop timer, set for the earliest.

    A request joins with :meth:`watch` and leaves with :meth:`unwatch` (its answer came, or it
    failed). The timer is only moved when a request's deadline is earlier than the one it is set
    for; a request that left is simply not there when it fires. When it fires, every request
    whose deadline has come is expired, and the timer is set again for the earliest of the rest
    (a request whose deadline progress moved is among those). Sequential calls with the same
    timeout thus set the timer about once per timeout, not once per call.
    """

    __slots__ = ("_at", "_handle", "_loop", "_watched")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._watched: set[PendingRequest] = set()
        self._handle: asyncio.TimerHandle | None = None
        self._at = math.inf
        """When the timer is set for (``inf``: not set)."""

    def __len__(self) -> int:
        return len(self._watched)

    @property
    def armed_at(self) -> float | None:
        """When the timer fires next (loop time), ``None`` when it is not set."""
        return None if self._handle is None else self._at

    def watch(self, pending: PendingRequest) -> None:
        self._watched.add(pending)
        if pending.deadline < self._at:
            self._set(pending.deadline)

    def unwatch(self, pending: PendingRequest) -> None:
        self._watched.discard(pending)

    def close(self) -> None:
        """Stop the timer (the session is closing; its requests fail on their own)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._at = math.inf
        self._watched.clear()

    def _set(self, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._at = when
        self._handle = self._loop.call_at(when, self._fire)

    def _fire(self) -> None:
        # the loop runs a timer up to its clock resolution early: what was due at the time it
        # was set for is due now
        due_at = self._at
        self._handle = None
        self._at = math.inf
        expired = [pending for pending in self._watched if pending.deadline <= due_at]
        for pending in expired:
            self._watched.discard(pending)
            pending.expire()
        if self._watched:
            self._set(min(pending.deadline for pending in self._watched))

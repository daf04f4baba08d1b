"""One of our requests awaiting its response: the future the caller waits on, and its deadline.

The value a connection's outbound table carries for each of our requests, wherever the
connection is driven: a stdio or memory :class:`~mcpkit._runtime.session.Session`, and a legacy
HTTP session's questions to its client (``transports/http/_server/legacy_sessions.py``).

The deadline is a single loop timer, not a waiting task: a request costs one ``call_at`` handle
whatever the traffic. Progress does not touch the timer, it only moves :attr:`deadline`; when the
timer fires early it re-arms itself for the moved deadline. This keeps a progress notification
at a few attribute writes, and a request without progress at one timer.
"""

from __future__ import annotations

import asyncio
from typing import Final

from mcpkit._runtime.context import ProgressCallback
from mcpkit.protocol._errors import RequestTimeout
from mcpkit.types._jsonrpc import JSONObject

__all__ = ["DEFAULT_MAX_TOTAL_TIMEOUT", "PendingRequest"]

DEFAULT_MAX_TOTAL_TIMEOUT: Final = 600.0
"""How long progress notifications can keep one request alive in total when the caller set a
``timeout`` but no ``max_timeout`` (``max_timeout=math.inf`` lifts it; longer work belongs in a
task). A call without progress, or with ``timeout=None``, is not affected."""


class PendingRequest:
    """The runtime's half of an :class:`~mcpkit.protocol._inflight.OutboundRequest`."""

    __slots__ = (
        "_max_timeout",
        "_scheduled",
        "_timer",
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
        self.caller: asyncio.Task[object] | None = None
        """The task waiting for this request (only tracked while a deadline is armed)."""
        self.sent = False
        """The request was handed to the transport (until then, expiry interrupts the send)."""
        self.expired = False

    def arm(
        self, loop: asyncio.AbstractEventLoop, timeout: float | None, max_timeout: float | None
    ) -> None:
        """Start the deadline: ``timeout`` without news, never beyond ``max_timeout`` in total."""
        now = loop.time()
        self.timeout = timeout
        if max_timeout is None and timeout is not None and self.progress_callback is not None:
            # progress may move the deadline: never let it do so forever (a hostile or stuck
            # peer reporting progress would hold the call open for good)
            max_timeout = max(DEFAULT_MAX_TOTAL_TIMEOUT, timeout)
        self._max_timeout = max_timeout
        self.hard_deadline = None if max_timeout is None else now + max_timeout
        self.deadline = self._next_deadline(now)
        self.caller = asyncio.current_task()
        self._scheduled = self.deadline
        self._timer = loop.call_at(self.deadline, self._fire, loop)

    def progressed(self, now: float) -> None:
        """A progress notification arrived: the no-news deadline starts again from ``now``."""
        if self._timer is not None and self.timeout is not None:
            self.deadline = self._next_deadline(now)

    def disarm(self) -> None:
        if self._timer is not None:
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
        self.expired = True
        self.future.set_exception(self.timeout_error())
        if not self.sent and self.caller is not None:
            self.caller.cancel()  # still stuck sending (the peer is not reading): interrupt it

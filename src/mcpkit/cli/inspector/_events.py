"""What the inspector page is told as it happens: wire messages, progress, logs, questions.

Events fan out to every open page (usually one). Each page reads them as one long response of
newline-delimited JSON; a page that does not keep up loses its oldest events rather than making
the server's memory grow (:data:`MAX_QUEUED_EVENTS`), and is told how many it lost. The last
:data:`MAX_REPLAYED_EVENTS` are replayed to a page that (re)opens, so a reload shows the recent
wire traffic.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import AsyncIterator
from typing import Any, Final

__all__ = ["MAX_QUEUED_EVENTS", "MAX_REPLAYED_EVENTS", "EventHub", "ServerEvents"]

MAX_QUEUED_EVENTS: Final = 5_000
"""Events buffered for one page before its oldest are dropped."""
MAX_REPLAYED_EVENTS: Final = 2_000
"""Events kept for pages that open later (a reload, a second tab)."""


class _Subscriber:
    def __init__(self) -> None:
        self.queue: collections.deque[dict[str, Any]] = collections.deque()
        self.dropped = 0
        self.ready = asyncio.Event()


class EventHub:
    """Publish events to every subscribed page; bounded everywhere."""

    def __init__(self) -> None:
        self._subscribers: set[_Subscriber] = set()
        self._recent: collections.deque[dict[str, Any]] = collections.deque(
            maxlen=MAX_REPLAYED_EVENTS
        )
        self._sequence = 0
        self._started = time.monotonic()

    def publish(self, event_type: str, /, **fields: Any) -> dict[str, Any]:
        self._sequence += 1
        event = {"seq": self._sequence, "type": event_type, "t": self.elapsed_ms(), **fields}
        self._recent.append(event)
        for subscriber in self._subscribers:
            if len(subscriber.queue) >= MAX_QUEUED_EVENTS:
                subscriber.queue.popleft()
                subscriber.dropped += 1
            subscriber.queue.append(event)
            subscriber.ready.set()
        return event

    def for_server(self, server: str) -> ServerEvents:
        """One server's side of this hub (several servers share one page and one stream)."""
        return ServerEvents(self, server)

    @property
    def sequence(self) -> int:
        """The ``seq`` of the last event published (0: none yet)."""
        return self._sequence

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self._started) * 1000.0, 3)

    def recent(self) -> list[dict[str, Any]]:
        return list(self._recent)

    async def stream(self) -> AsyncIterator[dict[str, Any]]:
        """The recent events, then each new one as it is published, until the caller stops."""
        subscriber = _Subscriber()
        subscriber.queue.extend(self._recent)
        subscriber.ready.set()
        self._subscribers.add(subscriber)
        try:
            while True:
                await subscriber.ready.wait()
                subscriber.ready.clear()
                if subscriber.dropped:
                    yield {"type": "dropped", "count": subscriber.dropped}
                    subscriber.dropped = 0
                while subscriber.queue:
                    yield subscriber.queue.popleft()
        finally:
            self._subscribers.discard(subscriber)


class ServerEvents:
    """What one inspected server publishes: events of the shared hub tagged ``serverId``, so the
    page shows those of the server in view."""

    def __init__(self, hub: EventHub, server: str) -> None:
        self.shared = hub
        self.server = server

    def publish(self, event_type: str, /, **fields: Any) -> dict[str, Any]:
        return self.shared.publish(event_type, serverId=self.server, **fields)

    @property
    def sequence(self) -> int:
        return self.shared.sequence

    def elapsed_ms(self) -> float:
        return self.shared.elapsed_ms()

    def recent(self) -> list[dict[str, Any]]:
        return self.shared.recent()

    def stream(self) -> AsyncIterator[dict[str, Any]]:
        return self.shared.stream()

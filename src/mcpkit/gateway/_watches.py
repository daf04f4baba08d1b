"""The gateway's subscriptions to its backends' resources: one stream per backend, shared by
every client, counted, and ended when nobody needs them.

Clients subscribe through the gateway (``subscriptions/listen`` filters, ``resources/subscribe``);
the gateway follows those URIs on the backends and fans updates out. Following each URI with its
own backend stream, started once and never ended, let one listen naming thousands of URIs open
thousands of streams to one backend (its other callers then waited behind them) and keep them,
and their memory, after the listen closed. So:

* a backend is followed by **one** ``subscriptions/listen`` stream naming every URI some client
  wants from it; it is re-opened with the new set when that set changes;
* each URI is **counted**: a listen holds its URIs for as long as its stream is open and lets go
  when it ends; a URI nobody holds is dropped, and a backend nobody follows has no stream;
* a backend follows at most :data:`MAX_WATCHED_PER_BACKEND` URIs: beyond that a new URI is not
  agreed to (left out of the client's acknowledged filter).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Final

__all__ = ["MAX_WATCHED_PER_BACKEND", "Watches"]

logger = logging.getLogger("mcpkit.gateway")

MAX_WATCHED_PER_BACKEND: Final = 1024
"""Distinct resource URIs the gateway follows on one backend for all its clients together."""

Follow = Callable[[str, list[str]], Coroutine[Any, Any, None]]
"""``follow(backend, uris)``: follow ``uris`` on ``backend`` until cancelled."""
Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
"""Starts a follower as a task of the watches' owner (the gateway's ``TaskSet``)."""


class Watches:
    """Counted URIs per backend and the one task following each backend's set."""

    __slots__ = ("_follow", "_held", "_spawn", "_tasks", "max_per_backend")

    def __init__(
        self, follow: Follow, *, spawn: Spawn, max_per_backend: int = MAX_WATCHED_PER_BACKEND
    ) -> None:
        self._follow = follow
        self._spawn = spawn
        self._held: dict[str, Counter[str]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.max_per_backend = max_per_backend

    def hold(self, wanted: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """Hold each ``(backend, uri)``; returns those held (a full backend holds no new URI).
        Each backend whose set changed is re-followed once."""
        held_now: list[tuple[str, str]] = []
        changed: set[str] = set()
        for backend, uri in wanted:
            held = self._held.setdefault(backend, Counter())
            if uri not in held:
                if len(held) >= self.max_per_backend:
                    if not held:
                        del self._held[backend]
                    continue
                changed.add(backend)
            held[uri] += 1
            held_now.append((backend, uri))
        for backend in changed:
            self._restart(backend)
        return held_now

    def release(self, held: Iterable[tuple[str, str]]) -> None:
        """Let go of what :meth:`hold` returned."""
        changed: set[str] = set()
        for backend, uri in held:
            counts = self._held.get(backend)
            if counts is None or uri not in counts:
                continue
            left = counts[uri] - 1
            if left > 0:
                counts[uri] = left
                continue
            del counts[uri]
            changed.add(backend)
            if not counts:
                del self._held[backend]
        for backend in changed:
            self._restart(backend)

    def following(self, backend: str) -> list[str]:
        """The URIs followed on ``backend`` now (sorted)."""
        return sorted(self._held.get(backend, ()))

    def _restart(self, backend: str) -> None:
        task = self._tasks.pop(backend, None)
        if task is not None:
            task.cancel()
        uris = self.following(backend)
        if uris:
            task = self._spawn(self._follow(backend, uris))
            self._tasks[backend] = task
            task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        for backend, current in list(self._tasks.items()):
            if current is task:
                del self._tasks[backend]
        if not task.cancelled() and task.exception() is not None:
            logger.warning("following resources failed: %r", task.exception())

    @property
    def tasks(self) -> int:
        """Backend streams being followed (one per backend at most)."""
        return len(self._tasks)

    async def aclose(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        self._held.clear()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

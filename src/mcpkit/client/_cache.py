"""A result cache that follows the server's 2026 caching hints (server/utilities/caching).

* A result is fresh while ``now < received + ttlMs``; an absent or negative ``ttlMs`` means 0,
  so legacy results (which carry no hint) are never served from here.
* The key is the method plus the params that select the result (``cursor``, ``uri``); each page
  of a paginated list is its own entry.
* ``cacheScope`` is kept with each entry: ``private`` results are only ever reused by the client
  that fetched them (this cache belongs to one client and one authorization context), while
  ``public`` ones may be copied to a shared cache by a host (:meth:`public_entries`).
* A ``list_changed`` notification drops every page of that list; ``resources/updated`` drops the
  reads of that URI; an invalid cursor drops every page of its list.
* Retries of MRTR requests and ``input_required`` results are never stored (callers only store
  ``complete`` results of first-round requests).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final, Literal

__all__ = ["MAX_CACHE_ENTRIES", "CacheScope", "ResultCache", "ttl_of"]

MAX_CACHE_ENTRIES: Final = 1024
"""Entries kept per client; the least recently used go first."""

CacheScope = Literal["public", "private"]
CacheKey = tuple[str, str]

_LIST_OF: Final[dict[str, str]] = {
    "notifications/tools/list_changed": "tools/list",
    "notifications/prompts/list_changed": "prompts/list",
    "notifications/resources/list_changed": "resources/list",
}


def ttl_of(result: dict[str, Any]) -> tuple[float, CacheScope]:
    """``(ttl in seconds, scope)`` from a result's hints; absent or negative TTL means 0."""
    ttl = result.get("ttlMs")
    seconds = ttl / 1000.0 if isinstance(ttl, int | float) and not isinstance(ttl, bool) else 0.0
    scope = result.get("cacheScope")
    return max(seconds, 0.0), ("public" if scope == "public" else "private")


class _Entry:
    __slots__ = ("expires", "result", "scope")

    def __init__(self, result: dict[str, Any], expires: float, scope: CacheScope) -> None:
        self.result = result
        self.expires = expires
        self.scope = scope


class ResultCache:
    """Fresh results by (method, selector). Not thread-safe; one per client, used on its loop."""

    def __init__(
        self,
        *,
        max_entries: int = MAX_CACHE_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._entries: OrderedDict[CacheKey, _Entry] = OrderedDict()
        self._max = max_entries
        self._clock = clock

    def get(self, method: str, selector: str = "") -> dict[str, Any] | None:
        """The cached result if still fresh, else ``None`` (and the stale entry is dropped)."""
        key = (method, selector)
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self._clock() >= entry.expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry.result

    def put(self, method: str, selector: str, result: dict[str, Any]) -> None:
        """Store ``result`` if its hints allow it (a TTL of 0 stores nothing)."""
        ttl, scope = ttl_of(result)
        if ttl <= 0:
            self._entries.pop((method, selector), None)
            return
        self._entries[(method, selector)] = _Entry(result, self._clock() + ttl, scope)
        self._entries.move_to_end((method, selector))
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def invalidate_method(self, method: str) -> None:
        """Drop every entry (every page) of ``method``."""
        for key in [key for key in self._entries if key[0] == method]:
            del self._entries[key]

    def on_notification(self, method: str, params: dict[str, Any] | None) -> None:
        """Apply a server notification: list_changed drops that list; updated drops the reads."""
        listed = _LIST_OF.get(method)
        if listed is not None:
            self.invalidate_method(listed)
            if listed == "resources/list":
                self.invalidate_method("resources/templates/list")
            return
        if method == "notifications/resources/updated":
            uri = (params or {}).get("uri")
            if isinstance(uri, str):
                # The update may name a sub-resource of what was read (or the reverse), so drop
                # reads of the URI, of anything under it and of anything it is under.
                for key in [
                    key
                    for key in self._entries
                    if key[0] == "resources/read"
                    and (key[1].startswith(uri) or uri.startswith(key[1]))
                ]:
                    del self._entries[key]

    def public_entries(self) -> list[tuple[CacheKey, dict[str, Any]]]:
        """Fresh entries a host may share with other clients (``cacheScope: public``)."""
        now = self._clock()
        return [
            (key, entry.result)
            for key, entry in self._entries.items()
            if entry.scope == "public" and now < entry.expires
        ]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

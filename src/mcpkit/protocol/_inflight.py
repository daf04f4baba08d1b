"""Bookkeeping for requests in flight, in both directions.

:class:`OutboundRequests` holds *our* requests awaiting a response. Ids are integers from a
per-session counter and never reused, which satisfies both eras (legacy: never reused within the
session; modern: unique among in-flight requests). A response to an id we do not know (late after
a cancel or timeout, or simply bogus) resolves to ``None``: the caller logs and drops it, and never
answers it, since answering a response would start a ping-pong.

:class:`InboundRequests` holds the *peer's* requests we are serving, so that
``notifications/cancelled`` can find them and a second request reusing an in-flight id is refused
instead of silently mixing up two responses.

Both tables are bounded by named constants; the runtime attaches whatever it needs (a future, a
task) as ``value``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Final, Generic, TypeVar

import msgspec

from mcpkit.protocol._errors import InternalError, InvalidRequest, TooManyInFlight, UsageError
from mcpkit.types._jsonrpc import RequestId

__all__ = [
    "MAX_INBOUND_IN_FLIGHT",
    "MAX_IN_FLIGHT",
    "InboundRequest",
    "InboundRequests",
    "OutboundRequest",
    "OutboundRequests",
]

MAX_IN_FLIGHT: Final = 10_000
"""Our own requests awaiting responses on one connection."""
MAX_INBOUND_IN_FLIGHT: Final = 10_000
"""The peer's requests being served (or queued) at once on one connection."""

T = TypeVar("T")


class OutboundRequest(msgspec.Struct, Generic[T]):
    """One of our requests. ``started_at`` is the caller's clock reading (no clock here)."""

    id: int
    method: str
    value: T
    started_at: float | None = None
    progress_token: RequestId | None = None


class InboundRequest(msgspec.Struct, Generic[T]):
    """One of the peer's requests that we are serving."""

    id: RequestId
    method: str
    value: T
    cancelled: bool = False
    """Set once the peer cancelled it: the runtime must then send no response."""


class OutboundRequests(Generic[T]):
    """Our requests awaiting a response; see the module docstring."""

    __slots__ = ("_entries", "_ids", "limit")

    def __init__(self, limit: int = MAX_IN_FLIGHT, *, first_id: int = 1) -> None:
        if limit < 1:
            raise UsageError("limit must be at least 1")
        self.limit = limit
        self._ids = itertools.count(first_id)
        self._entries: dict[int, OutboundRequest[T]] = {}

    def add(
        self,
        method: str,
        value: T,
        *,
        now: float | None = None,
        progress_token: RequestId | None = None,
    ) -> int:
        """Register a request we are about to send and return its fresh id.

        Raises :class:`~mcpkit.protocol._errors.TooManyInFlight` when the table is full.
        """
        if len(self._entries) >= self.limit:
            raise TooManyInFlight(
                f"{len(self._entries)} requests are already awaiting responses (limit "
                f"{self.limit}); wait for some to complete"
            )
        request_id = next(self._ids)
        self._entries[request_id] = OutboundRequest(request_id, method, value, now, progress_token)
        return request_id

    def resolve(self, request_id: RequestId | None) -> OutboundRequest[T] | None:
        """Remove and return the request a response answers, or ``None`` if unknown.

        Ids are compared exactly: a string ``"1"`` does not answer request ``1``.
        """
        if type(request_id) is not int and (
            isinstance(request_id, bool) or not isinstance(request_id, int)
        ):
            return None
        return self._entries.pop(request_id, None)

    def get(self, request_id: RequestId) -> OutboundRequest[T] | None:
        if isinstance(request_id, bool) or not isinstance(request_id, int):
            return None
        return self._entries.get(request_id)

    def fail_all(self) -> list[OutboundRequest[T]]:
        """Remove and return every pending request (the connection died: fail them all)."""
        entries = list(self._entries.values())
        self._entries.clear()
        return entries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, request_id: object) -> bool:
        return self.get(request_id) is not None if isinstance(request_id, int | str) else False

    def __iter__(self) -> Iterator[OutboundRequest[T]]:
        return iter(list(self._entries.values()))


class InboundRequests(Generic[T]):
    """The peer's requests we are serving; see the module docstring."""

    __slots__ = ("_entries", "limit")

    def __init__(self, limit: int = MAX_INBOUND_IN_FLIGHT) -> None:
        if limit < 1:
            raise UsageError("limit must be at least 1")
        self.limit = limit
        self._entries: dict[RequestId, InboundRequest[T]] = {}
        """Keyed by the id itself: 1 and "1" are different JSON-RPC ids, and different keys."""

    def add(self, request_id: RequestId, method: str, value: T) -> InboundRequest[T]:
        """Start tracking a request; raises the JSON-RPC error to answer it with if we cannot.

        A duplicate of an in-flight id gets -32600 (the two responses could not be told apart);
        a full table gets -32603 with a message saying to retry later.
        """
        entries = self._entries
        if request_id in entries:
            raise InvalidRequest(
                f"Invalid Request: a request with id {request_id!r} is still in flight; "
                "use a new id for every request"
            )
        if len(entries) >= self.limit:
            raise InternalError(
                f"Too many requests in flight ({self.limit}); retry once some have completed"
            )
        entry = entries[request_id] = InboundRequest(request_id, method, value)
        return entry

    def get(self, request_id: RequestId) -> InboundRequest[T] | None:
        return self._entries.get(request_id)

    def remove(self, request_id: RequestId) -> InboundRequest[T] | None:
        """Stop tracking a request (its response was sent, or it was cancelled)."""
        return self._entries.pop(request_id, None)

    def clear(self) -> list[InboundRequest[T]]:
        """Remove and return everything (the connection is going away)."""
        entries = list(self._entries.values())
        self._entries.clear()
        return entries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, request_id: object) -> bool:
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            return False
        return request_id in self._entries

    def __iter__(self) -> Iterator[InboundRequest[T]]:
        return iter(list(self._entries.values()))

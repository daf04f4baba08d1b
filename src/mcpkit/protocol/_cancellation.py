"""Cancellation rules for ``notifications/cancelled``, both directions and both eras.

Inbound, a cancel can only ever refer to a request *the peer sent us*, so it is looked up in the
:class:`~mcpkit.protocol._inflight.InboundRequests` table and nowhere else; anything that does not
name one of those (unknown or already answered ids, ``initialize`` which MUST NOT be cancelled,
malformed params) is ignored, as the spec asks, because both sides must tolerate the race
between a response and a cancel. 2026-07-28 made ``requestId`` required (its absence is reported);
in legacy revisions it is optional (task cancels use ``tasks/cancel``), so it is simply ignored.

The one reverse case: in the modern era on stdio, a server ends a client's
``subscriptions/listen`` by sending ``notifications/cancelled`` for *the client's* request, which
:func:`subscription_ended` recognises.

Outbound, :func:`cancel_outbound` refuses what the spec forbids (cancelling ``initialize``, or a
request that is not ours) and removes the request from the table, so a late response is dropped.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

from mcpkit.protocol._errors import InvalidParams, LocalProtocolError
from mcpkit.protocol._inflight import (
    InboundRequest,
    InboundRequests,
    OutboundRequest,
    OutboundRequests,
)
from mcpkit.types._jsonrpc import JSONObject, RequestId
from mcpkit.types._versions import Era

__all__ = [
    "cancel_outbound",
    "cancel_params",
    "cancelled_request_id",
    "receive_cancel",
    "subscription_ended",
]

UNCANCELLABLE: Final = frozenset({"initialize"})
LISTEN: Final = "subscriptions/listen"

T = TypeVar("T")


def cancelled_request_id(params: JSONObject | None) -> RequestId | None:
    """The ``requestId`` a cancel names, or ``None`` if it names none (or a malformed one)."""
    value: Any = (params or {}).get("requestId")
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return value


def receive_cancel(
    params: JSONObject | None, inbound: InboundRequests[T], *, era: Era = "legacy"
) -> InboundRequest[T] | None:
    """Apply the peer's ``notifications/cancelled``.

    Returns the request to stop, marked ``cancelled`` (send no response for it; remove it from the
    table once its handler has stopped), or ``None`` when the cancel must be ignored (including a
    repeated cancel). In 2026-07-28 a cancel
    without a valid ``requestId`` is malformed: :class:`~mcpkit.protocol._errors.InvalidParams` is
    raised for the caller to log (a notification is never answered). In legacy revisions the field
    is optional, so its absence is silently ignored.
    """
    request_id = cancelled_request_id(params)
    if request_id is None:
        if era == "modern":
            raise InvalidParams(
                'notifications/cancelled: "requestId" (a string or integer) is required in '
                "2026-07-28"
            )
        return None
    entry = inbound.get(request_id)
    if entry is None or entry.cancelled or entry.method in UNCANCELLABLE:
        return None
    entry.cancelled = True
    return entry


def cancel_params(request_id: RequestId, reason: str | None = None) -> JSONObject:
    """The params of a ``notifications/cancelled`` for ``request_id``."""
    params: JSONObject = {"requestId": request_id}
    if reason is not None:
        params["reason"] = reason
    return params


def cancel_outbound(
    outbound: OutboundRequests[T], request_id: RequestId, reason: str | None = None
) -> tuple[OutboundRequest[T], JSONObject]:
    """Cancel one of our requests: returns its entry (now removed) and the notification params.

    Raises :class:`~mcpkit.protocol._errors.LocalProtocolError` for ``initialize`` (the spec
    forbids cancelling it) and for ids that are not our pending requests (only the sender of a
    request may cancel it; a completed one has nothing left to cancel).
    """
    entry = outbound.get(request_id)
    if entry is None:
        raise LocalProtocolError(f"request {request_id!r} is not one of our pending requests")
    if entry.method in UNCANCELLABLE:
        raise LocalProtocolError(f"{entry.method} must not be cancelled")
    outbound.resolve(request_id)
    return entry, cancel_params(request_id, reason)


def subscription_ended(
    params: JSONObject | None, outbound: OutboundRequests[T]
) -> OutboundRequest[T] | None:
    """Client side, modern stdio: did the server just end one of our ``subscriptions/listen``?

    Returns the (removed) listen request, or ``None`` when the notification names anything else,
    which is ignored.
    """
    request_id = cancelled_request_id(params)
    if request_id is None:
        return None
    entry = outbound.get(request_id)
    if entry is None or entry.method != LISTEN:
        return None
    outbound.resolve(request_id)
    return entry

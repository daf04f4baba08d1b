"""Cancellation rules."""

from __future__ import annotations

import pytest

from mcpkit.protocol._cancellation import (
    cancel_outbound,
    cancel_params,
    cancelled_request_id,
    receive_cancel,
    subscription_ended,
)
from mcpkit.protocol._errors import InvalidParams, LocalProtocolError
from mcpkit.protocol._inflight import InboundRequests, OutboundRequests


def test_cancelled_request_id() -> None:
    assert cancelled_request_id({"requestId": 3}) == 3
    assert cancelled_request_id({"requestId": "a"}) == "a"
    for bad in (None, {}, {"requestId": None}, {"requestId": True}, {"requestId": 1.5}):
        assert cancelled_request_id(bad) is None  # type: ignore[arg-type]


def test_peer_cancels_its_own_request() -> None:
    inbound: InboundRequests[str] = InboundRequests()
    inbound.add(7, "tools/call", "task")
    entry = receive_cancel({"requestId": 7, "reason": "user"}, inbound)
    assert entry is not None and entry.value == "task" and entry.cancelled
    assert receive_cancel({"requestId": 7}, inbound) is None  # repeated cancel is ignored
    assert inbound.remove(7) is entry  # the runtime removes it once the handler stopped


def test_unknown_or_completed_ids_are_ignored() -> None:
    inbound: InboundRequests[None] = InboundRequests()
    assert receive_cancel({"requestId": 1}, inbound) is None
    inbound.add(1, "tools/call", None)
    inbound.remove(1)
    assert receive_cancel({"requestId": 1}, inbound) is None
    inbound.add("1", "tools/call", None)
    assert receive_cancel({"requestId": 1}, inbound) is None  # "1" is not 1


def test_cancelling_initialize_is_ignored() -> None:
    inbound: InboundRequests[None] = InboundRequests()
    inbound.add(0, "initialize", None)
    assert receive_cancel({"requestId": 0}, inbound) is None
    assert not inbound.get(0).cancelled  # type: ignore[union-attr]


def test_peer_cannot_cancel_our_requests() -> None:
    # Only the inbound table is consulted: an id that exists only among OUR requests is ignored.
    inbound: InboundRequests[None] = InboundRequests()
    outbound: OutboundRequests[None] = OutboundRequests()
    our_id = outbound.add("sampling/createMessage", None)
    assert receive_cancel({"requestId": our_id}, inbound) is None
    assert our_id in outbound


def test_missing_request_id_legacy_ignored_modern_reported() -> None:
    inbound: InboundRequests[None] = InboundRequests()
    inbound.add(1, "tools/call", None)
    assert receive_cancel({"reason": "x"}, inbound, era="legacy") is None
    assert receive_cancel(None, inbound) is None
    with pytest.raises(InvalidParams, match="requestId"):
        receive_cancel({"reason": "x"}, inbound, era="modern")
    with pytest.raises(InvalidParams):
        receive_cancel({"requestId": None}, inbound, era="modern")
    assert receive_cancel({"requestId": 1}, inbound, era="modern") is not None


def test_cancel_outbound() -> None:
    outbound: OutboundRequests[str] = OutboundRequests()
    request_id = outbound.add("tools/call", "fut")
    entry, params = cancel_outbound(outbound, request_id, "timed out")
    assert entry.value == "fut"
    assert params == {"requestId": request_id, "reason": "timed out"}
    assert outbound.resolve(request_id) is None  # a late response is dropped
    with pytest.raises(LocalProtocolError, match="not one of our pending"):
        cancel_outbound(outbound, request_id)
    assert cancel_params("x") == {"requestId": "x"}


def test_initialize_must_not_be_cancelled() -> None:
    outbound: OutboundRequests[None] = OutboundRequests()
    request_id = outbound.add("initialize", None)
    with pytest.raises(LocalProtocolError, match="initialize must not be cancelled"):
        cancel_outbound(outbound, request_id)
    assert request_id in outbound


def test_server_ends_a_listen_subscription() -> None:
    outbound: OutboundRequests[str] = OutboundRequests()
    listen_id = outbound.add("subscriptions/listen", "stream")
    call_id = outbound.add("tools/call", "call")
    assert subscription_ended({"requestId": call_id}, outbound) is None
    assert call_id in outbound
    assert subscription_ended({"requestId": 999}, outbound) is None
    assert subscription_ended({}, outbound) is None
    entry = subscription_ended({"requestId": listen_id}, outbound)
    assert entry is not None and entry.value == "stream"
    assert listen_id not in outbound

"""In-flight request tables."""

from __future__ import annotations

import pytest

from mcpkit.protocol._codec import decode_message
from mcpkit.protocol._errors import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    InternalError,
    InvalidRequest,
    TooManyInFlight,
    UsageError,
)
from mcpkit.protocol._inflight import MAX_IN_FLIGHT, InboundRequests, OutboundRequests
from mcpkit.types._jsonrpc import Response


def test_ids_are_fresh_integers_never_reused() -> None:
    table: OutboundRequests[str] = OutboundRequests()
    seen = set()
    for i in range(100):
        request_id = table.add("ping", f"w{i}")
        assert isinstance(request_id, int) and request_id not in seen
        seen.add(request_id)
        if i % 2:
            assert table.resolve(request_id) is not None
    assert len(table) == 50
    for entry in table.fail_all():
        seen.add(entry.id)
    assert len(table) == 0
    assert table.add("ping", "x") not in seen  # even after everything resolved


def test_add_records_details() -> None:
    table: OutboundRequests[object] = OutboundRequests()
    marker = object()
    request_id = table.add("tools/call", marker, now=12.5, progress_token="t")
    entry = table.get(request_id)
    assert entry is not None
    assert (entry.method, entry.value, entry.started_at, entry.progress_token) == (
        "tools/call",
        marker,
        12.5,
        "t",
    )
    assert request_id in table


def test_response_to_unknown_id_resolves_to_none() -> None:
    table: OutboundRequests[None] = OutboundRequests()
    request_id = table.add("ping", None)
    response = decode_message(b'{"jsonrpc":"2.0","id":999,"result":{}}')
    assert isinstance(response, Response)
    assert table.resolve(response.id) is None
    assert len(table) == 1  # the real request is untouched
    # a late duplicate response after the first one resolved
    assert table.resolve(request_id) is not None
    assert table.resolve(request_id) is None


def test_string_id_does_not_match_integer_request() -> None:
    table: OutboundRequests[None] = OutboundRequests()
    request_id = table.add("ping", None)
    assert table.resolve(str(request_id)) is None
    assert table.resolve(True) is None
    assert table.resolve(None) is None
    assert str(request_id) not in table
    assert table.resolve(request_id) is not None


def test_bounded() -> None:
    table: OutboundRequests[None] = OutboundRequests(limit=3)
    ids = [table.add("ping", None) for _ in range(3)]
    with pytest.raises(TooManyInFlight, match="limit 3"):
        table.add("ping", None)
    table.resolve(ids[0])
    table.add("ping", None)
    assert OutboundRequests().limit == MAX_IN_FLIGHT
    with pytest.raises(UsageError):
        OutboundRequests(limit=0)


def test_fail_all_returns_every_pending_entry() -> None:
    table: OutboundRequests[str] = OutboundRequests()
    for name in "abc":
        table.add("ping", name)
    assert sorted(e.value for e in table.fail_all()) == ["a", "b", "c"]
    assert table.fail_all() == []


def test_iteration_is_a_snapshot() -> None:
    table: OutboundRequests[None] = OutboundRequests()
    for _ in range(3):
        table.add("ping", None)
    for entry in table:
        table.resolve(entry.id)
    assert len(table) == 0


# --- inbound --------------------------------------------------------------------------------


def test_inbound_duplicate_in_flight_id_is_rejected() -> None:
    table: InboundRequests[None] = InboundRequests()
    table.add(1, "tools/call", None)
    with pytest.raises(InvalidRequest) as info:
        table.add(1, "tools/list", None)
    assert info.value.code == INVALID_REQUEST
    assert "still in flight" in info.value.message
    assert table.get(1) is not None and table.get(1).method == "tools/call"  # type: ignore[union-attr]


def test_inbound_string_and_integer_ids_are_distinct() -> None:
    table: InboundRequests[None] = InboundRequests()
    table.add(1, "a", None)
    table.add("1", "b", None)
    assert len(table) == 2
    assert table.remove("1").method == "b"  # type: ignore[union-attr]
    assert 1 in table and "1" not in table


def test_inbound_id_may_be_reused_after_completion() -> None:
    table: InboundRequests[None] = InboundRequests()
    table.add("x", "a", None)
    assert table.remove("x") is not None
    assert table.remove("x") is None
    table.add("x", "b", None)


def test_inbound_bounded() -> None:
    table: InboundRequests[None] = InboundRequests(limit=2)
    table.add(1, "a", None)
    table.add(2, "a", None)
    with pytest.raises(InternalError) as info:
        table.add(3, "a", None)
    assert info.value.code == INTERNAL_ERROR and "retry" in info.value.message
    assert [e.id for e in table.clear()] == [1, 2]
    assert len(table) == 0
    with pytest.raises(UsageError):
        InboundRequests(limit=0)

"""The protocol's value classes are msgspec Structs (cheap to define at import), and keep the
behaviour they had as dataclasses: equality, hashing, immutability, what the repr shows."""

from __future__ import annotations

import pytest

from mcpkit.protocol._connection import Ignored, Rejected
from mcpkit.protocol._errors import InvalidRequest
from mcpkit.protocol._framing import FrameTooLarge
from mcpkit.protocol._inflight import InboundRequest
from mcpkit.protocol._meta import RequestMeta
from mcpkit.types._jsonrpc import Request


def test_frame_too_large_compares_without_its_head_sample() -> None:
    a, b = FrameTooLarge(10, 8, b'{"id": 1'), FrameTooLarge(10, 8, b"other")
    assert a == b and hash(a) == hash(b)
    assert a != FrameTooLarge(11, 8, b'{"id": 1')
    assert FrameTooLarge(10, 8).head == b""


def test_events_are_frozen_values() -> None:
    event = Ignored(Request(1, "ping"), "late", malformed=True)
    assert event == Ignored(Request(1, "ping"), "late", True)
    with pytest.raises(AttributeError):
        event.reason = "other"  # type: ignore[misc]
    rejected = Rejected(Request(7, "tools/list"), InvalidRequest("before initialize"))
    assert rejected.response().id == 7


def test_inbound_request_stays_mutable() -> None:
    entry = InboundRequest(1, "tools/call", "handler")
    entry.cancelled = True
    assert entry.cancelled


def test_request_meta_repr_leaves_out_the_raw_meta() -> None:
    meta = RequestMeta("2026-07-28", {}, raw={"secret": "x"})
    assert "secret" not in repr(meta)
    assert repr(meta).startswith("RequestMeta(protocol_version='2026-07-28'")
    assert meta.raw == {"secret": "x"}

"""The in-memory pair: ordering, backpressure, close semantics, the JSON round trip."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from mcpkit._runtime.stream import MessageStream
from mcpkit.protocol._errors import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ConnectionBroken,
    ConnectionClosed,
    MessageDecodeError,
    UsageError,
)
from mcpkit.transports import MemoryStream, memory_pair
from mcpkit.types._jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Message,
    Notification,
    Request,
    Response,
)

WAIT = 5.0  # bound on every wait; things happen immediately or the test fails


async def settle() -> None:
    """Let every runnable task run (used only to show that something stays blocked)."""
    for _ in range(10):
        await asyncio.sleep(0)


def test_ends_satisfy_the_stream_protocol() -> None:
    a, b = memory_pair()
    ends: tuple[MessageStream, MessageStream] = (a, b)  # a type error if they did not
    assert all(isinstance(end, MemoryStream) for end in ends)


async def test_messages_cross_in_order_both_ways() -> None:
    a, b = memory_pair()
    sent: list[Message] = [
        Request(id=1, method="tools/list"),
        Notification(method="notifications/progress", params={"progress": 1}),
        Response(id="x", result={"ok": True}),
        ErrorResponse(id=None, error=ErrorObject(code=-32700, message="Parse error")),
    ]
    for message in sent:
        await a.send(message)
    assert [await b.receive() for _ in sent] == sent
    await b.send(Response(id=1, result={}))
    assert await a.receive() == Response(id=1, result={})


async def test_serialize_hands_over_a_copy() -> None:
    a, b = memory_pair()
    params = {"nested": {"list": [1, 2]}}
    await a.send(Request(id=1, method="m", params=params))
    got = await b.receive()
    assert isinstance(got, Request)
    assert got.params == params
    assert got.params is not params
    params["nested"]["list"].append(3)
    assert got.params == {"nested": {"list": [1, 2]}}


async def test_serialize_rejects_what_a_real_transport_could_not_carry() -> None:
    a, b = memory_pair()
    with pytest.raises((TypeError, msgspec.EncodeError)):
        await a.send(Request(id=1, method="m", params={"o": object()}))
    with pytest.raises((TypeError, msgspec.EncodeError)):
        await a.send(Response(id=1, result={"f": print}))
    # The failed sends left nothing behind; the stream still works.
    await a.send(Request(id=2, method="m"))
    assert await b.receive() == Request(id=2, method="m")


async def test_serialize_shows_what_the_peer_would_really_get() -> None:
    a, b = memory_pair()
    await a.send(Notification(method="m", params={"s": {1}, "t": (1, 2)}))
    assert await b.receive() == Notification(method="m", params={"s": [1], "t": [1, 2]})


async def test_without_serialize_objects_pass_as_they_are() -> None:
    a, b = memory_pair(serialize=False)
    params = {"s": {1, 2}}
    message = Request(id=1, method="m", params=params)
    await a.send(message)
    assert await b.receive() is message


@pytest.mark.parametrize("serialize", [True, False])
async def test_raw_bytes_become_decode_error_items(serialize: bool) -> None:
    a, b = memory_pair(serialize=serialize)
    await a.send_raw(b"\xff\xfe not json")
    await a.send_raw(b"[1, 2]")
    await a.send(Notification(method="after"))
    garbage = await b.receive()
    assert isinstance(garbage, MessageDecodeError)
    assert garbage.error.code == PARSE_ERROR
    batch = await b.receive()
    assert isinstance(batch, MessageDecodeError)
    assert batch.error.code == INVALID_REQUEST
    assert await b.receive() == Notification(method="after")


async def test_send_waits_while_the_buffer_is_full() -> None:
    a, b = memory_pair(max_buffer=2)
    await a.send(Notification(method="1"))
    await a.send(Notification(method="2"))
    third = asyncio.create_task(a.send(Notification(method="3")))
    await settle()
    assert not third.done()  # backpressure: the receiver has not made room
    assert await b.receive() == Notification(method="1")
    await asyncio.wait_for(third, WAIT)
    assert [await b.receive() for _ in range(2)] == [
        Notification(method="2"),
        Notification(method="3"),
    ]


async def test_peer_close_drains_then_ends() -> None:
    a, b = memory_pair()
    await a.send(Notification(method="before-close"))
    await a.aclose()
    assert await b.receive() == Notification(method="before-close")
    assert await b.receive() is None
    assert await b.receive() is None
    with pytest.raises(ConnectionBroken):
        await b.send(Notification(method="to-nobody"))


async def test_pending_receive_ends_when_the_peer_closes() -> None:
    a, b = memory_pair()
    pending = asyncio.create_task(b.receive())
    await settle()
    assert not pending.done()
    await a.aclose()
    assert await asyncio.wait_for(pending, WAIT) is None


async def test_pending_send_breaks_when_the_peer_closes() -> None:
    a, b = memory_pair(max_buffer=1)
    await a.send(Notification(method="fills-the-buffer"))
    pending = asyncio.create_task(a.send(Notification(method="waits")))
    await settle()
    assert not pending.done()
    await b.aclose()
    with pytest.raises(ConnectionBroken):
        await asyncio.wait_for(pending, WAIT)


async def test_own_close() -> None:
    a, _b = memory_pair()
    pending = asyncio.create_task(a.receive())
    await settle()
    await a.aclose()
    await a.aclose()  # idempotent
    assert await asyncio.wait_for(pending, WAIT) is None
    assert await a.receive() is None
    with pytest.raises(ConnectionClosed):
        await a.send(Notification(method="m"))
    with pytest.raises(ConnectionClosed):
        await a.send_raw(b"{}")
    assert "closed" in repr(a)


def test_max_buffer_must_be_positive() -> None:
    with pytest.raises(UsageError, match="max_buffer"):
        memory_pair(max_buffer=0)

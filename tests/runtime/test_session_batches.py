"""A session serving a JSON-RPC batch (2025-03-26): one array back, cancels and duplicates
inside it, and the refusal everywhere else."""

from __future__ import annotations

import asyncio
from typing import Any

from _runtime_helpers import WAIT, session_with_raw_peer, wait_for

from mcpkit._runtime.session import RequestContext
from mcpkit.protocol._codec import encode_batch
from mcpkit.protocol._errors import INVALID_REQUEST, MessageDecodeError
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response


async def receive_batch(peer: Any) -> tuple[Any, ...]:
    item = await asyncio.wait_for(peer.stream.receive(), WAIT)
    assert isinstance(item, MessageDecodeError) and item.batch is not None, item
    return item.batch


async def test_answers_come_back_as_one_array_once_all_are_done() -> None:
    gate = asyncio.Event()
    started = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        if ctx.request.method == "test/slow":
            started.set()
            await gate.wait()
        return {"id": ctx.request.id}

    async with session_with_raw_peer(request_handler=handler) as (session, peer):
        session.protocol_version = "2025-03-26"
        await peer.stream.send_raw(
            encode_batch([Request(1, "test/quick"), Request(2, "test/slow")])
        )
        await wait_for(started)
        await peer.call(9, "test/quick")  # a single request is answered meanwhile, alone
        gate.set()
        batch = await receive_batch(peer)
        assert sorted(batch, key=lambda r: r.id) == [
            Response(1, {"id": 1}),
            Response(2, {"id": 2}),
        ]


async def test_a_cancelled_member_is_left_out_and_a_duplicate_id_refused() -> None:
    gate = asyncio.Event()
    started = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        if ctx.request.method == "test/hang":
            started.set()
            await gate.wait()
        return {"ok": True}

    async with session_with_raw_peer(request_handler=handler) as (session, peer):
        session.protocol_version = "2025-03-26"
        await peer.stream.send_raw(
            encode_batch(
                [
                    Request(1, "test/hang"),
                    Request(2, "test/quick"),
                    Request(2, "test/quick"),  # the same id while the first is in flight
                ]
            )
        )
        await wait_for(started)
        await peer.send(Notification("notifications/cancelled", {"requestId": 1}))
        batch = await receive_batch(peer)
        assert len(batch) == 2
        duplicate = next(m for m in batch if isinstance(m, ErrorResponse))
        assert duplicate.id == 2 and duplicate.error.code == INVALID_REQUEST
        assert Response(2, {"ok": True}) in batch
        assert not any(m.id == 1 for m in batch)


async def test_outside_2025_03_26_a_batch_gets_one_error() -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        raise AssertionError("a refused batch runs nothing")

    async with session_with_raw_peer(request_handler=handler) as (session, peer):
        for version in (None, "2025-06-18"):
            session.protocol_version = version
            await peer.stream.send_raw(encode_batch([Request(1, "test/x")]))
            answer = await peer.receive_response()
            assert isinstance(answer, ErrorResponse) and answer.id is None
            assert answer.error.code == INVALID_REQUEST

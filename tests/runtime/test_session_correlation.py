"""Request/response correlation, error answers, and what the session does with bad traffic."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import pytest
from _runtime_helpers import session_pair, session_with_raw_peer, wait_for

from _schema_check import SchemaCheck
from mcpkit._runtime.session import RequestContext
from mcpkit.protocol._errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    InvalidParams,
    JSONRPCError,
    MethodNotFound,
)
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Notification, Request, Response

CONCURRENT = 200


async def test_many_concurrent_requests_answered_out_of_order_each_get_their_own_result() -> None:
    gates = {i: asyncio.Event() for i in range(CONCURRENT)}
    started: set[int] = set()
    all_started = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        n = (ctx.request.params or {})["n"]
        started.add(n)
        if len(started) == CONCURRENT:
            all_started.set()
        await gates[n].wait()
        return {"n": n, "id": ctx.request.id}

    async with session_pair(handler, max_concurrent_requests=CONCURRENT) as (client, _):
        calls = [
            asyncio.create_task(client.send_request("test/echo", {"n": n}))
            for n in range(CONCURRENT)
        ]
        await wait_for(all_started)  # every request is in flight at once
        order = list(range(CONCURRENT))
        random.Random(7).shuffle(order)
        for n in order:  # answers go back in an order unrelated to the sending order
            gates[n].set()
        results = await asyncio.wait_for(asyncio.gather(*calls), 10)
    assert [r["n"] for r in results] == list(range(CONCURRENT))
    assert len({r["id"] for r in results}) == CONCURRENT  # a fresh id per request


async def test_ids_are_fresh_integers_and_responses_are_matched_by_exact_id() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        first = asyncio.create_task(session.send_request("test/a"))
        second = asyncio.create_task(session.send_request("test/b"))
        a = await peer.receive_request()
        b = await peer.receive_request()
        assert isinstance(a.id, int) and isinstance(b.id, int) and a.id != b.id
        # "1" is not 1: a string id never answers an integer request
        await peer.send(Response(str(a.id), {"wrong": True}))
        await peer.send(Response(b.id, {"which": "b"}))
        await peer.send(Response(a.id, {"which": "a"}))
        assert await asyncio.wait_for(first, 10) == {"which": "a"}
        assert await asyncio.wait_for(second, 10) == {"which": "b"}


async def test_responses_to_unknown_ids_are_dropped_and_never_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        return {"ok": True}

    async with session_with_raw_peer(request_handler=handler) as (_, peer):
        with caplog.at_level(logging.WARNING, logger="mcpkit.session"):
            await peer.send(Response(999, {"late": True}))
            await peer.send(ErrorResponse(998, ErrorObject(-32000, "late error")))
            await peer.send(ErrorResponse(None, ErrorObject(-32700, "unreadable")))
            # the very next thing the session sends is the answer to this: nothing in between
            assert await peer.call("r1", "test/ping") == Response("r1", {"ok": True})
        dropped = [r for r in caplog.records if "unknown request id" in r.getMessage()]
        assert len(dropped) == 2
        # "id": null names no request: it is logged as the peer's complaint, not as unknown
        unreadable = [r for r in caplog.records if "could not read" in r.getMessage()]
        assert len(unreadable) == 1 and "unreadable (-32700)" in unreadable[0].getMessage()


async def test_duplicate_in_flight_id_gets_invalid_request_and_the_first_still_answers() -> None:
    release = asyncio.Event()
    started = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        if ctx.request.method == "test/slow":
            started.set()
            await release.wait()
        return {"method": ctx.request.method}

    async with session_with_raw_peer(request_handler=handler) as (_, peer):
        await peer.request(1, "test/slow")
        await wait_for(started)
        duplicate = await peer.call(1, "test/other")
        assert isinstance(duplicate, ErrorResponse)
        assert duplicate.error.code == INVALID_REQUEST
        assert "still in flight" in duplicate.error.message
        # the string "1" is a different id, so it is served normally
        assert await peer.call("1", "test/other") == Response("1", {"method": "test/other"})
        release.set()
        assert await peer.receive_response() == Response(1, {"method": "test/slow"})
        # once answered, the id may be used again
        assert await peer.call(1, "test/again") == Response(1, {"method": "test/again"})


async def test_a_raising_handler_becomes_internal_error_and_the_session_keeps_serving(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        if ctx.request.method == "test/boom":
            raise RuntimeError("secret detail")
        if ctx.request.method == "test/group":
            raise ExceptionGroup("several", [ValueError("a"), KeyError("b")])
        return {"fine": True}

    async with session_with_raw_peer(request_handler=handler) as (_, peer):
        with caplog.at_level(logging.ERROR, logger="mcpkit.session"):
            for request_id, method in ((1, "test/boom"), (2, "test/group")):
                answer = await peer.call(request_id, method)
                assert isinstance(answer, ErrorResponse)
                assert answer.error.code == INTERNAL_ERROR
                assert method in answer.error.message
                assert "secret detail" not in answer.error.message  # internals stay in the log
        assert any("secret detail" in r.exc_text for r in caplog.records if r.exc_text)
        assert await peer.call(3, "test/ok") == Response(3, {"fine": True})


async def test_a_jsonrpc_error_from_a_handler_keeps_its_code_message_and_data() -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        method = ctx.request.method
        if method == "test/params":
            raise InvalidParams("Invalid params: 'n' must be a number", {"field": "n"})
        if method == "test/custom":
            raise JSONRPCError("Tool quota exhausted", {"retryAfter": 30}, code=-32042)
        raise MethodNotFound(f"Method not found: {method}")

    async with session_with_raw_peer(request_handler=handler) as (_, peer):
        params = await peer.call(1, "test/params")
        custom = await peer.call(2, "test/custom")
        unknown = await peer.call(3, "test/nope")
    assert params == ErrorResponse(
        1, ErrorObject(INVALID_PARAMS, "Invalid params: 'n' must be a number", {"field": "n"})
    )
    assert custom == ErrorResponse(
        2, ErrorObject(-32042, "Tool quota exhausted", {"retryAfter": 30})
    )
    assert isinstance(unknown, ErrorResponse) and unknown.error.code == METHOD_NOT_FOUND


async def test_a_result_that_cannot_be_encoded_is_answered_with_internal_error(
    schema_check: SchemaCheck,
) -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        if ctx.request.method == "test/bad":
            return {"value": object()}
        return {"fine": True}

    async with session_with_raw_peer(request_handler=handler) as (_, peer):
        answer = await peer.call(1, "test/bad")
        assert isinstance(answer, ErrorResponse) and answer.error.code == INTERNAL_ERROR
        assert "could not be encoded" in answer.error.message
        assert await peer.call(2, "test/fine") == Response(2, {"fine": True})
    # the observer saw the unencodable result before the transport refused it: expected here
    assert [v.message.startswith("Response(id=1") for v in schema_check.violations] == [True]
    schema_check.clear()


async def test_error_responses_raise_the_matching_error_class_marked_remote() -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        raise InvalidParams("Invalid params: no", {"why": "test"})

    async with session_pair(handler) as (client, _):
        with pytest.raises(InvalidParams) as caught:
            await client.send_request("test/x")
    assert caught.value.remote and caught.value.code == INVALID_PARAMS
    assert caught.value.data == {"why": "test"}


async def test_without_a_request_handler_every_request_gets_method_not_found() -> None:
    async with session_with_raw_peer() as (_, peer):
        answer = await peer.call(5, "tools/list")
    assert isinstance(answer, ErrorResponse) and answer.error.code == METHOD_NOT_FOUND


async def test_garbage_is_answered_with_the_decoders_code_and_the_session_keeps_serving() -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        return {}

    async with session_with_raw_peer(request_handler=handler) as (_, peer):
        await peer.stream.send_raw(b"{not json")
        parse = await peer.receive_response()
        assert isinstance(parse, ErrorResponse) and parse.error.code == PARSE_ERROR
        await peer.stream.send_raw(b'{"jsonrpc":"2.0","id":7,"method":42}')
        invalid = await peer.receive_response()
        assert isinstance(invalid, ErrorResponse) and invalid.error.code == INVALID_REQUEST
        assert invalid.id == 7
        # a broken *response* is never answered (no ping-pong)
        await peer.stream.send_raw(b'{"jsonrpc":"2.0","id":8,"result":3}')
        assert await peer.call(9, "test/ok") == Response(9, {})


async def test_inline_notification_handler_sees_notifications_in_arrival_order() -> None:
    seen: list[str] = []
    last = asyncio.Event()

    def on_note(note: Notification) -> None:
        seen.append(note.method)
        if note.method == "test/n9":
            last.set()
        if note.method == "test/n3":
            raise RuntimeError("a broken handler must not stop the others")

    async with session_with_raw_peer(notification_handler=on_note) as (_, peer):
        for i in range(10):
            await peer.notify(f"test/n{i}")
        await wait_for(last)
    assert seen == [f"test/n{i}" for i in range(10)]


async def test_async_notification_handler_may_send_requests_and_wait_for_answers() -> None:
    answered = asyncio.Event()
    results: list[dict[str, Any]] = []

    async def on_note(note: Notification) -> None:
        results.append(await session.send_request("test/lookup"))
        answered.set()

    async with session_with_raw_peer(notification_handler=on_note) as (session, peer):
        await peer.notify("test/changed")
        lookup = await peer.receive_request()  # the reader is free while the handler waits
        await peer.send(Response(lookup.id, {"v": 1}))
        await wait_for(answered)
    assert results == [{"v": 1}]


async def test_request_context_talks_back_with_the_requests_protocol_version() -> None:
    seen: dict[str, Any] = {}

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        seen["session"] = ctx.session
        seen["version"] = ctx.protocol_version
        seen["token"] = ctx.progress_token
        await ctx.send_notification("notifications/progress", {"progressToken": "t", "progress": 1})
        answer = await ctx.send_request("test/question", {"q": 1})
        return {"answer": answer}

    async with session_with_raw_peer(request_handler=handler) as (session, peer):
        session.protocol_version = "2025-06-18"
        await peer.request(1, "test/ask", {"_meta": {"progressToken": "t"}})
        progress = await peer.receive_notification()
        assert progress.params == {"progressToken": "t", "progress": 1}
        question = await peer.receive_request()
        assert isinstance(question, Request) and question.params == {"q": 1}
        await peer.send(Response(question.id, {"a": 2}))
        assert await peer.receive_response() == Response(1, {"answer": {"a": 2}})
    assert seen == {"session": session, "version": "2025-06-18", "token": "t"}

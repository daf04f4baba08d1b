"""``_step`` (run an awaitable until it would wait, finish it later) and the body reader built on
it: a body the ASGI server already holds is read with no deadline set, and one that has to be
waited for keeps every bound (408 for a slow body, 413 for a large one, a vanished client)."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import pytest

from mcpkit._runtime.step import Pending, finish, step
from mcpkit.transports.http._server.body import BodyError, read_body

Message = MutableMapping[str, Any]


async def test_step_returns_the_result_of_an_awaitable_that_does_not_wait() -> None:
    async def ready() -> int:
        return 5

    assert step(ready()) == 5


async def test_step_propagates_an_exception_raised_before_any_wait() -> None:
    async def fails() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        step(fails())


async def test_finish_completes_an_awaitable_that_had_to_wait() -> None:
    ready = asyncio.Event()

    async def waits() -> int:
        await ready.wait()
        return 7

    pending = step(waits())
    assert isinstance(pending, Pending)
    asyncio.get_running_loop().call_soon(ready.set)
    assert await finish(pending) == 7


async def test_finish_passes_a_future_result_and_exceptions_through() -> None:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()
    done.set_result(2)
    assert step(done) == 2  # an awaitable that is not a coroutine: through its __await__
    future: asyncio.Future[int] = loop.create_future()
    pending = step(future)
    assert isinstance(pending, Pending)
    loop.call_soon(future.set_result, 3)
    assert await finish(pending) == 3

    async def slow() -> None:
        async with asyncio.timeout(0.01):  # the task it runs in is the awaiting one
            await asyncio.sleep(10)

    slowly = step(slow())
    assert isinstance(slowly, Pending)
    with pytest.raises(TimeoutError):
        await finish(slowly)


async def test_a_pending_awaitable_that_is_never_finished_can_be_closed() -> None:
    cleaned = []

    async def waits() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.append(True)

    pending = step(waits())
    assert isinstance(pending, Pending)
    pending.close()
    assert cleaned == [True]


async def test_cancelling_the_awaiting_task_reaches_the_stepped_awaitable() -> None:
    started = asyncio.Event()

    async def sleeper() -> str:
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return "unwound"
        return "slept"

    async def outer() -> str:
        pending = step(sleeper())
        assert isinstance(pending, Pending)
        result: str = await finish(pending)
        return result

    task = asyncio.ensure_future(outer())
    await started.wait()
    task.cancel()
    assert await task == "unwound"


class _Receive:
    """An ASGI ``receive`` playing back messages; ``None`` means "never arrives"."""

    def __init__(self, *messages: Message | None) -> None:
        self.messages = list(messages)

    async def __call__(self) -> Message:
        message = self.messages.pop(0)
        if message is None:
            await asyncio.Event().wait()
        assert message is not None
        return message


def _chunk(body: bytes, more: bool = False) -> Message:
    return {"type": "http.request", "body": body, "more_body": more}


async def test_a_body_already_received_is_returned_as_it_is() -> None:
    body = b'{"jsonrpc":"2.0"}'
    assert await read_body(_Receive(_chunk(body)), str(len(body))) is body


async def test_a_body_in_several_messages_is_joined() -> None:
    gate = asyncio.Event()
    parts = [_chunk(b"ab", more=True), _chunk(b"cd", more=True), _chunk(b"ef")]

    async def receive() -> Message:
        if len(parts) == 2:
            await gate.wait()  # the second message has to be waited for
        return parts.pop(0)

    asyncio.get_running_loop().call_later(0.01, gate.set)
    assert await read_body(receive, None) == b"abcdef"


async def test_a_body_that_does_not_arrive_in_time_is_408() -> None:
    with pytest.raises(BodyError) as raised:
        await read_body(_Receive(None), "10", timeout=0.01)
    assert raised.value.status == 408


async def test_a_slow_rest_of_a_body_is_408_too() -> None:
    with pytest.raises(BodyError) as raised:
        await read_body(_Receive(_chunk(b"{", more=True), None), "10", timeout=0.01)
    assert raised.value.status == 408


async def test_an_oversized_body_is_413_with_its_head_whether_it_ends_or_stalls() -> None:
    head = b'{"jsonrpc":"2.0","id":4,"result":{"x":"' + b"y" * 64
    with pytest.raises(BodyError) as raised:
        await read_body(_Receive(_chunk(head)), str(len(head)), limit=16)
    assert raised.value.status == 413  # announced over the limit: refused before reading
    with pytest.raises(BodyError) as raised:
        await read_body(_Receive(_chunk(head)), None, limit=16)
    assert raised.value.status == 413 and raised.value.head.startswith(b'{"jsonrpc"')
    stalls = _Receive(_chunk(head, more=True), None)
    with pytest.raises(BodyError) as raised:
        await read_body(stalls, str(len(head) + 10), limit=len(head) // 2, timeout=0.01)
    assert raised.value.status == 413 and raised.value.head.startswith(b'{"jsonrpc"')


async def test_a_client_that_leaves_while_sending_is_reported_without_a_status() -> None:
    with pytest.raises(BodyError) as raised:
        await read_body(_Receive({"type": "http.disconnect"}), "10")
    assert raised.value.status is None

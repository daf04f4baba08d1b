"""The stdio client's pushed end: the server's answers are decoded and resolved in the read
callback of its stdout pipe (no reader task to wake), and what the pull path said about a
server that went away, or a call that timed out, it still says. Real server processes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import ConnectionBroken, RequestTimeout
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types._jsonrpc import Notification

from .conftest import raw_server

pytestmark = pytest.mark.no_schema_check  # the raw server's own messages are not ours to check


def _readers() -> list[str]:
    return [task.get_name() for task in asyncio.all_tasks() if "reader" in task.get_name()]


async def test_answers_are_pushed_without_a_reader_task() -> None:
    async with Client(raw_server("--call", "ok")) as client:
        assert _readers() == []
        for n in range(3):
            result = await client.call_tool("t", {"x": n})
            assert result.content[0].text == f"ok {{'x': {n}}}"  # type: ignore[union-attr]
        assert _readers() == []


async def test_a_server_that_dies_mid_call_is_named_with_its_exit_code_and_stderr() -> None:
    async with Client(raw_server("--call", "crash")) as client:
        with pytest.raises(ConnectionBroken) as broken:
            await client.call_tool("t")
        message = str(broken.value)
        assert "peer closed the connection" in message
        assert "the server exited with code 3" in message
        assert "raw_server: crashing on purpose" in message
        # a call after the end is refused at once, with the same explanation
        with pytest.raises(ConnectionBroken) as again:
            await client.call_tool("t")
        assert "the server exited with code 3" in str(again.value)
        assert "raw_server: crashing on purpose" in str(again.value)


async def test_a_call_past_its_timeout_fails_and_is_cancelled_on_the_server() -> None:
    sent: list[Any] = []
    cancelled = asyncio.Event()

    def observe(message: Any, *_: Any) -> None:
        sent.append(message)
        if isinstance(message, Notification) and message.method == "notifications/cancelled":
            cancelled.set()

    add_outbound_observer(observe)
    try:
        async with Client(raw_server("--call", "hang"), timeout=0.3) as client:
            with pytest.raises(RequestTimeout) as caught:
                await client.call_tool("t")
            assert caught.value.timeout == 0.3
            assert "tools/call got no response within 0.3 s" in str(caught.value)
            await asyncio.wait_for(cancelled.wait(), 10)  # sent by a session task, just after
            calls = [m for m in sent if getattr(m, "method", None) == "tools/call"]
            cancels = [m for m in sent if getattr(m, "method", None) == "notifications/cancelled"]
            assert len(calls) == 1 and len(cancels) == 1
            assert cancels[0].params == {"requestId": calls[0].id, "reason": "request timed out"}
            assert client.connected  # and the connection goes on serving
            assert len(await client.list_tools()) == 1
    finally:
        remove_outbound_observer(observe)


def test_the_pushed_end_works_on_uvloop() -> None:
    # uvloop's transports do not derive from asyncio's transport classes: the pipe ends must
    # not insist that they do (the REST facade and the gateway run stdio servers under uvicorn)
    import uvloop

    async def main() -> tuple[str, str]:
        async with Client(raw_server("--call", "ok")) as client:
            result = await client.call_tool("t", {"x": 1})
            text = result.content[0].text  # type: ignore[union-attr]
        async with Client(raw_server("--call", "crash")) as client:
            with pytest.raises(ConnectionBroken) as broken:
                await client.call_tool("t")
        return text, str(broken.value)

    text, broken = uvloop.run(main())
    assert text == "ok {'x': 1}"
    assert "the server exited with code 3" in broken

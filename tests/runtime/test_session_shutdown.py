"""Closing, a peer hanging up, a child process dying mid-call: nothing waits, nothing leaks.

The stdio tests run a real child process (``fixtures/stdio_peer.py``: a Session on its own
stdin/stdout) through the real stdio client transport.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from _runtime_helpers import WAIT, RawPeer, session_with_raw_peer, wait_for

from mcpkit._runtime.session import RequestContext, Session
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    MessageDecodeError,
    UsageError,
)
from mcpkit.transports._memory import memory_pair
from mcpkit.transports._stdio_client import StdioServerParameters, stdio_client
from mcpkit.types._jsonrpc import Message, Notification, RequestId

CHILD = str(Path(__file__).parent / "fixtures" / "stdio_peer.py")
PENDING = 5


async def settle(tasks: list[asyncio.Task[Any]]) -> list[BaseException | None]:
    """Wait (bounded) until every task is done; return how each ended."""
    _, still_running = await asyncio.wait(tasks, timeout=WAIT)
    assert not still_running, f"{len(still_running)} request(s) still waiting"
    return [None if t.cancelled() else t.exception() for t in tasks]


async def test_aclose_fails_pending_requests_with_connection_closed_and_stops_handlers() -> None:
    started = asyncio.Event()
    stopped = asyncio.Event()

    async def handler(ctx: RequestContext) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()
        return {}

    ours, theirs = memory_pair()
    peer = RawPeer(theirs)
    async with Session(ours, request_handler=handler, name="ours") as session:
        calls = [asyncio.create_task(session.send_request("test/x")) for _ in range(PENDING)]
        for _ in range(PENDING):
            await peer.receive_request()
        await peer.request(1, "test/served")
        await wait_for(started)
        await session.aclose()
        outcomes = await settle(calls)
        assert all(isinstance(e, ConnectionClosed) for e in outcomes), outcomes
        assert stopped.is_set()  # the handler was cancelled by the close
        with pytest.raises(ConnectionClosed):
            await session.send_request("test/after")
    await peer.receive_eof()  # and it sent no response for the request it was serving


async def test_peer_eof_fails_every_pending_request_at_once_with_connection_broken() -> None:
    async with session_with_raw_peer(name="client") as (session, peer):
        calls = [asyncio.create_task(session.send_request("test/x")) for _ in range(PENDING)]
        for _ in range(PENDING):
            await peer.receive_request()
        assert not session.input_ended
        await peer.stream.aclose()
        outcomes = await settle(calls)
        assert all(isinstance(e, ConnectionBroken) for e in outcomes), outcomes
        assert len({id(e) for e in outcomes}) == 1  # one event failed them all together
        assert "closed the connection" in str(outcomes[0])
        await asyncio.wait_for(session.wait_input_ended(), WAIT)
        assert session.input_ended
        with pytest.raises(ConnectionBroken):
            await session.send_request("test/after")


async def test_a_receive_failure_in_the_transport_fails_pending_requests() -> None:
    class FailingStream:
        def __init__(self) -> None:
            self.fail = asyncio.Event()
            self.sent: list[Message] = []

        async def send(self, message: Message) -> None:
            self.sent.append(message)
            self.fail.set()

        async def receive(self) -> Message | MessageDecodeError | None:
            await self.fail.wait()
            raise RuntimeError("a transport bug")

        async def aclose(self) -> None:
            pass

    async with Session(FailingStream(), name="client") as session:
        with pytest.raises(ConnectionBroken, match="receive failed"):
            await asyncio.wait_for(session.send_request("test/x"), WAIT)


async def test_a_stdio_child_that_exits_mid_call_fails_every_pending_request_at_once() -> None:
    params = StdioServerParameters(sys.executable, [CHILD], name="stdio-peer")
    async with stdio_client(params) as stream, Session(stream, name="parent") as session:
        assert await session.send_request("test/echo", {"up": 1}, timeout=WAIT) == {
            "echo": {"up": 1}
        }
        waiting = [
            asyncio.create_task(session.send_request("test/wait", {"key": f"k{i}"}))
            for i in range(PENDING)
        ]
        # the child reads in order: once this is answered, every wait is being served there
        await session.send_request("test/echo", {}, timeout=WAIT)
        dying = asyncio.create_task(session.send_request("test/exit", {"code": 3}))
        outcomes = await settle([*waiting, dying])
        assert all(isinstance(e, ConnectionBroken) for e in outcomes), outcomes
        assert len({id(e) for e in outcomes}) == 1  # all at once, from the one EOF
        assert session.input_ended
        with pytest.raises(ConnectionBroken):
            await session.send_request("test/echo")
    assert stream.returncode == 3


async def test_stdio_out_of_order_answers_and_cancellation_through_a_real_child() -> None:
    cancelled_notes: list[Notification] = []
    note_seen = asyncio.Event()

    hang_started = asyncio.Event()

    def on_note(note: Notification) -> None:
        if note.method == "test/handler_cancelled":
            cancelled_notes.append(note)
            note_seen.set()
        elif note.method == "test/hang_started":
            hang_started.set()

    params = StdioServerParameters(sys.executable, [CHILD], name="stdio-peer")
    before = asyncio.all_tasks()
    async with (
        stdio_client(params) as stream,
        Session(stream, notification_handler=on_note, name="parent") as session,
    ):
        keys = [f"k{i}" for i in range(20)]
        waits = [
            asyncio.create_task(session.send_request("test/wait", {"key": k}, timeout=WAIT))
            for k in keys
        ]
        await session.send_request("test/echo", {}, timeout=WAIT)
        for key in reversed(keys):  # the child answers in the reverse order
            await session.send_request("test/release", {"key": key}, timeout=WAIT)
        assert await asyncio.wait_for(asyncio.gather(*waits), WAIT) == [{"key": k} for k in keys]

        hang_ids: list[RequestId] = []
        hang = asyncio.create_task(session.send_request("test/hang", on_request_id=hang_ids.append))
        await wait_for(hang_started)  # the child's handler is running
        hang.cancel()
        with pytest.raises(asyncio.CancelledError):
            await hang
        await wait_for(note_seen)  # the child's handler was cancelled by our cancel
        assert cancelled_notes[0].params == {
            "id": hang_ids[0],
            "reason": "cancelled by the caller",
        }
        assert await session.send_request("test/echo", {"still": "up"}, timeout=WAIT) == {
            "echo": {"still": "up"}
        }
    assert asyncio.all_tasks() == before


async def test_no_task_is_left_behind_after_close() -> None:
    blocked = asyncio.Event()

    async def server_handler(ctx: RequestContext) -> dict[str, Any]:
        await ctx.send_notification("test/hello")
        token = ctx.progress_token
        if token is not None:
            await ctx.send_notification(
                "notifications/progress", {"progressToken": token, "progress": 1}
            )
        await asyncio.Event().wait()
        return {}

    async def client_notes(note: Notification) -> None:
        blocked.set()
        await asyncio.Event().wait()  # a notification handler that never finishes

    async def slow_progress(progress: float, total: float | None, message: str | None) -> None:
        await asyncio.Event().wait()  # a progress callback that never finishes

    before = asyncio.all_tasks()
    client_end, server_end = memory_pair()
    async with (
        Session(server_end, request_handler=server_handler, name="server"),
        Session(client_end, notification_handler=client_notes, name="client") as client,
    ):
        calls = [
            asyncio.create_task(client.send_request("test/x", progress_callback=slow_progress))
            for _ in range(PENDING)
        ]
        await wait_for(blocked)
        assert len(asyncio.all_tasks()) > len(before) + PENDING  # handlers, readers, callbacks
    outcomes = await settle(calls)
    assert all(isinstance(e, ConnectionClosed) for e in outcomes), outcomes
    assert asyncio.all_tasks() == before


async def test_users_never_see_an_exception_group(caplog: pytest.LogCaptureFixture) -> None:
    async def handler(ctx: RequestContext) -> dict[str, Any]:
        await ctx.send_notification("test/note")
        await ctx.send_notification(
            "notifications/progress", {"progressToken": ctx.progress_token, "progress": 1}
        )
        if ctx.request.method == "test/wait":
            await asyncio.Event().wait()
        return {"ok": True}

    async def failing_note_handler(note: Notification) -> None:
        raise RuntimeError("notification handler bug")

    def failing_progress(progress: float, total: float | None, message: str | None) -> None:
        raise RuntimeError("progress callback bug")

    client_end, server_end = memory_pair()
    with (
        caplog.at_level(logging.ERROR, logger="mcpkit.session"),
        pytest.raises(ValueError) as caught,
    ):
        async with (
            Session(server_end, request_handler=handler, name="server"),
            Session(client_end, notification_handler=failing_note_handler, name="client") as c,
        ):
            assert await c.send_request("test/ok", progress_callback=failing_progress) == {
                "ok": True
            }
            waiting = asyncio.create_task(c.send_request("test/wait"))
            raise ValueError("the user's own error")
    assert type(caught.value) is ValueError  # not wrapped in a group
    outcome = (await settle([waiting]))[0]
    assert type(outcome) is ConnectionClosed
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "notification handler for test/note failed" in logged
    assert "progress callback failed" in logged


async def test_closing_from_another_task_ends_the_owner_cleanly() -> None:
    ours, theirs = memory_pair()
    session = Session(ours, name="client")

    async def owner() -> None:
        async with session:
            await session.send_request("test/x")

    task = asyncio.create_task(owner())
    peer = RawPeer(theirs)
    await peer.receive_request()
    await session.aclose()
    outcome = (await settle([task]))[0]
    assert type(outcome) is ConnectionClosed
    await theirs.aclose()


async def test_a_session_is_entered_once_and_cannot_send_before() -> None:
    ours, _ = memory_pair()
    session = Session(ours)
    with pytest.raises(ConnectionClosed):
        await session.send_request("test/x")
    async with session:
        with pytest.raises(UsageError):
            await session.__aenter__()
    with pytest.raises(UsageError):
        await session.__aenter__()

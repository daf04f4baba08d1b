"""Helpers for the runtime tests: a hand-driven peer, session pairs, and a virtual clock.

* :class:`RawPeer` is one end of a real in-memory pair driven by the test itself, so a test can
  send exactly what a misbehaving or slow peer would, and see exactly what the session sent.
  ``receive`` is a bounded wait; "nothing else was sent" is proven by sending a request and
  checking that the very next message is its response.
* :func:`in_virtual_time` runs an async test on an event loop whose clock jumps straight to the
  next timer when nothing else can run. Deadlines, progress resets and ``max_timeout`` are then
  exact and instant instead of racing a busy machine's wall clock; a test that would hang fails
  at once with :class:`VirtualDeadlock` instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import selectors
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Final, TypeVar

from mcpkit._runtime.session import Session
from mcpkit.protocol._errors import MessageDecodeError
from mcpkit.transports._memory import DEFAULT_MAX_BUFFER, MemoryStream, memory_pair
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)

WAIT: Final = 10.0
"""Upper bound for anything a test waits for (seconds; virtual seconds under a virtual clock)."""
VIRTUAL_START: Final = 1000.0

T = TypeVar("T")


class RawPeer:
    """The far end of a session, driven message by message by the test."""

    def __init__(self, stream: MemoryStream) -> None:
        self.stream = stream

    async def send(self, message: Message) -> None:
        await self.stream.send(message)

    async def request(
        self, request_id: RequestId, method: str, params: JSONObject | None = None
    ) -> None:
        await self.send(Request(request_id, method, params))

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        await self.send(Notification(method, params))

    async def receive(self) -> Message:
        item = await asyncio.wait_for(self.stream.receive(), WAIT)
        assert item is not None, "the session closed the connection"
        assert not isinstance(item, MessageDecodeError), item
        return item

    async def receive_request(self) -> Request:
        item = await self.receive()
        assert isinstance(item, Request), item
        return item

    async def receive_notification(self) -> Notification:
        item = await self.receive()
        assert isinstance(item, Notification), item
        return item

    async def receive_response(self) -> Response | ErrorResponse:
        item = await self.receive()
        assert isinstance(item, Response | ErrorResponse), item
        return item

    async def call(
        self, request_id: RequestId, method: str, params: JSONObject | None = None
    ) -> Response | ErrorResponse:
        """Send a request; the next message from the session must be its response."""
        await self.request(request_id, method, params)
        response = await self.receive_response()
        assert response.id == request_id, f"expected the response to {request_id!r}, got {response}"
        return response

    async def receive_eof(self) -> None:
        assert await asyncio.wait_for(self.stream.receive(), WAIT) is None


@contextlib.asynccontextmanager
async def session_with_raw_peer(
    *, max_buffer: int = DEFAULT_MAX_BUFFER, **session_kwargs: Any
) -> AsyncIterator[tuple[Session, RawPeer]]:
    """A real :class:`Session` on one end of a memory pair, and a :class:`RawPeer` on the other."""
    ours, theirs = memory_pair(max_buffer)
    peer = RawPeer(theirs)
    try:
        async with Session(ours, **session_kwargs) as session:
            yield session, peer
    finally:
        await theirs.aclose()


@contextlib.asynccontextmanager
async def session_pair(
    server_handler: Callable[..., Awaitable[JSONObject]] | None = None, **server_kwargs: Any
) -> AsyncIterator[tuple[Session, Session]]:
    """Two real sessions connected by a memory pair: (client, server)."""
    client_end, server_end = memory_pair()
    async with (
        Session(
            server_end, request_handler=server_handler, name="server", **server_kwargs
        ) as server,
        Session(client_end, name="client") as client,
    ):
        yield client, server


async def wait_for(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), WAIT)


# -- virtual time ------------------------------------------------------------------------------


class VirtualDeadlock(RuntimeError):
    """Nothing was ready, no timer was due, and nothing could ever wake the loop."""


class _JumpingSelector(selectors.DefaultSelector):
    """Polls without blocking; a wait for a timer advances the virtual clock instead."""

    def __init__(self) -> None:
        super().__init__()
        self.now = VIRTUAL_START

    def select(self, timeout: float | None = None) -> list[Any]:
        ready: list[Any] = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            raise VirtualDeadlock("nothing is scheduled and nothing can wake the loop: a hang")
        self.now += timeout
        return ready


class VirtualClockLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._jumping = _JumpingSelector()
        super().__init__(self._jumping)

    def time(self) -> float:
        return self._jumping.now


def in_virtual_time(test: Callable[..., Coroutine[Any, Any, T]]) -> Callable[..., T]:
    """Run an async test function on a :class:`VirtualClockLoop` (a plain sync test to pytest)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> T:
        with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
            return runner.run(test(*args, **kwargs))

    return run

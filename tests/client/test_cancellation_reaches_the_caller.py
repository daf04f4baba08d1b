"""A cancelled caller always sees its own cancellation (issue #26), at each former swallow site.

Each site used to wait for a child it had stopped with ``with suppress(CancelledError): await
child`` (or ``await shield(child)``): a cancellation aimed at the *caller* while it waited was
eaten, so the caller carried on as if nothing had happened — ``Host.stop()``/``Client.aclose()``
returned normally to a task being cancelled, and a listen subscription's runner re-listened
after ``aclose`` had cancelled it. The tests cancel the caller exactly while it waits for a child
that is slow to stop, so the children here are stand-ins whose unwinding the test controls (a
real server cannot be made to hold a cancellation open at a chosen moment).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit.client._renewal import RenewalTracker
from mcpkit.client._subscriptions import Subscription
from mcpkit.client.host._supervisor import ServerSupervisor
from mcpkit.types._jsonrpc import Notification

WAIT = 5.0
"""Bound on waits for what should happen at once: a hang fails the test instead of blocking."""


class Unwinding:
    """A step that, once cancelled, keeps unwinding until the test releases it."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.unwinding = asyncio.Event()
        self.release = asyncio.Event()

    async def hold(self) -> None:
        self.reached.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.unwinding.set()
            await self.release.wait()
            raise


async def _cancel_while_waiting(caller: asyncio.Task[Any], step: Unwinding) -> None:
    """Cancel ``caller`` once it waits for the unwinding child; it must end cancelled."""
    await asyncio.wait_for(step.unwinding.wait(), WAIT)
    assert not caller.done()  # it is waiting for the child
    caller.cancel()
    await asyncio.wait({caller}, timeout=WAIT)
    assert caller.done(), "the cancelled caller is still waiting for its child"
    assert caller.cancelled(), f"the caller's cancellation was swallowed: {caller!r}"


# -- client/_renewal.py: RenewalTracker.aclose -------------------------------------------------


async def test_closing_the_renewal_tracker_does_not_swallow_the_callers_cancellation() -> None:
    step = Unwinding()
    tracker = RenewalTracker(step.hold)
    loop = asyncio.get_running_loop()
    waiter = loop.create_task(tracker.catch_up(1))  # starts the catch-up
    await asyncio.wait_for(step.reached.wait(), WAIT)
    closing = loop.create_task(tracker.aclose())
    await _cancel_while_waiting(closing, step)
    step.release.set()
    await asyncio.wait({waiter}, timeout=WAIT)
    assert waiter.done()


# -- client/host/_supervisor.py: ServerSupervisor.stop -----------------------------------------


class _SlowClosingClient:
    """Enough of a ``Client`` for the supervisor: it connects at once and closes slowly."""

    def __init__(self, closing: Unwinding) -> None:
        self._closing = closing
        self._renewal_listeners: list[Any] = []
        self.server_capabilities: dict[str, Any] = {}
        self.disconnected = asyncio.Event()

    async def __aenter__(self) -> _SlowClosingClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closing.unwinding.set()
        await self._closing.release.wait()

    async def wait_disconnected(self) -> None:
        await self.disconnected.wait()

    def _disconnect_error(self) -> BaseException | None:
        return None


async def test_stopping_a_supervised_server_does_not_swallow_the_callers_cancellation() -> None:
    closing = Unwinding()
    supervisor = ServerSupervisor("slow", lambda: _SlowClosingClient(closing))  # type: ignore[arg-type,return-value]
    supervisor.start()
    assert await supervisor.wait_settled(WAIT) == "ready"
    stopping = asyncio.get_running_loop().create_task(supervisor.stop())
    await _cancel_while_waiting(stopping, closing)
    closing.release.set()  # the supervisor goes on closing its client by itself
    assert await supervisor.wait_for(lambda s: s.state == "stopped", WAIT)
    await asyncio.wait_for(supervisor.stop(), WAIT)


# -- client/_subscriptions.py: Subscription.aclose and the listen runner -----------------------


class _ListenClient:
    """Enough of a 2026 ``Client`` for a subscription: ``subscriptions/listen`` is acknowledged,
    then (``end_stream``) ended by the server; a cancelled request unwinds slowly."""

    era = "modern"
    name = "stand-in"
    _cache = None

    def __init__(self, step: Unwinding, *, end_stream: bool) -> None:
        self._step = step
        self._end_stream = end_stream
        self._listeners: set[Any] = set()
        self.listens = 0

    def _apply_change(self, note: Notification) -> None:
        pass

    async def _request(
        self, method: str, params: Any, *, timeout: Any, on_notification: Any
    ) -> Any:
        assert method == "subscriptions/listen"
        self.listens += 1
        ack = {"notifications": params["notifications"]}
        await on_notification(Notification("notifications/subscriptions/acknowledged", ack))
        if self._end_stream:
            await on_notification(Notification("notifications/cancelled", {"requestId": 1}))
        await self._step.hold()


async def test_closing_a_subscription_does_not_swallow_the_callers_cancellation() -> None:
    step = Unwinding()
    subscription = Subscription(
        _ListenClient(step, end_stream=False),  # type: ignore[arg-type]
        tools=True,
        prompts=False,
        resources=False,
        resource_uris=[],
        on_resync=None,
    )
    await asyncio.wait_for(subscription.start(), WAIT)
    runner = subscription._task
    assert runner is not None
    closing = asyncio.get_running_loop().create_task(subscription.aclose())
    await _cancel_while_waiting(closing, step)
    step.release.set()
    await asyncio.wait({runner}, timeout=WAIT)
    assert runner.cancelled()


async def test_the_listen_runner_stopped_while_the_server_ends_the_stream_stays_stopped() -> None:
    # The server ended the stream; while the runner waits for its request to finish, aclose
    # cancels the runner. It must end, not carry on and re-listen.
    step = Unwinding()
    client = _ListenClient(step, end_stream=True)
    subscription = Subscription(
        client,  # type: ignore[arg-type]
        tools=True,
        prompts=False,
        resources=False,
        resource_uris=[],
        on_resync=None,
    )
    await asyncio.wait_for(subscription.start(), WAIT)
    runner = subscription._task
    assert runner is not None
    await _cancel_while_waiting(runner, step)
    step.release.set()
    assert client.listens == 1
    await asyncio.wait_for(subscription.aclose(), WAIT)

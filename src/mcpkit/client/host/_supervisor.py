"""One long-lived connection per server, owned by a task of its own.

Why a task: a ``Client`` is an ``async with`` object that owns tasks (its session's reader and
handlers). Entering it in one task and leaving it in another breaks structured concurrency, so a
host that may close a server from *any* task (a web request, a signal handler, a test) gives each
connection to a supervisor task that opens it, keeps it, and closes it. ``stop()`` from anywhere
just asks that task to finish and waits for it.

The supervisor also restarts: when the server goes away (a stdio child exits, the connection
breaks) it reconnects after a backoff that doubles from :data:`RESTART_INITIAL_DELAY` up to
:data:`RESTART_MAX_DELAY`, and gives up after :data:`MAX_RESTARTS` consecutive failures. A
connection that lived at least :data:`STABLE_AFTER` seconds resets the count. While a server is
down, calls to it fail at once with :class:`~mcpkit.client._errors.ServerUnavailable` — nothing
waits for a server that may never come back.

With a live connection the supervisor also keeps the host's view fresh: it listens for
``list_changed`` (legacy notifications, or a 2026 ``subscriptions/listen`` stream when the
server offers ``listChanged``) and calls ``on_change``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

from mcpkit._runtime.concurrency import TaskScope, cancel_and_wait, join, race
from mcpkit._runtime.tasks import TaskSet
from mcpkit.client._client import Client
from mcpkit.client._errors import ServerUnavailable
from mcpkit.protocol._capabilities import has_capability
from mcpkit.protocol._errors import MCPError
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification

__all__ = [
    "MAX_RESTARTS",
    "RESTART_INITIAL_DELAY",
    "RESTART_MAX_DELAY",
    "STABLE_AFTER",
    "ServerState",
    "ServerSupervisor",
]

logger = logging.getLogger("mcpkit.host")

RESTART_INITIAL_DELAY: Final = 0.5
RESTART_MAX_DELAY: Final = 30.0
MAX_RESTARTS: Final = 5
"""Consecutive failed (re)connections before a server is given up on."""
STABLE_AFTER: Final = 60.0
"""A connection that lived this long resets the failure count."""

ServerState = Literal["starting", "ready", "restarting", "failed", "stopped"]


class ServerSupervisor:
    """Owns the :class:`Client` of one server; see the module docstring."""

    def __init__(
        self,
        name: str,
        make_client: Callable[[], Client],
        *,
        on_change: Callable[[str], None] | None = None,
        restart: bool = True,
        max_restarts: int = MAX_RESTARTS,
        initial_delay: float = RESTART_INITIAL_DELAY,
        max_delay: float = RESTART_MAX_DELAY,
    ) -> None:
        self.name = name
        self._make_client = make_client
        self._on_change = on_change
        self._restart = restart
        self._max_restarts = max_restarts
        self._initial_delay = initial_delay
        self._max_delay = max_delay
        self.state: ServerState = "starting"
        self.last_error: BaseException | None = None
        self.connections = 0
        """How many times a connection was established (1 + restarts that succeeded)."""
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._tasks: TaskSet | None = None
        """Owns the supervising task (made in :meth:`start`: a host is built outside a loop)."""
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        """Set when the first attempt finished (ready or failed) and after every change."""
        self._changes = asyncio.Condition()

    # -- control (from any task) ---------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._tasks = TaskSet(asyncio.get_running_loop(), f"host {self.name}", logger)
            self._task = self._tasks.spawn(self._run(), name=f"mcpkit-host-{self.name}")

    async def wait_settled(self, timeout: float | None = None) -> ServerState:
        """Wait until the server is ready or has failed (bounded by ``timeout``)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)
        return self.state

    async def stop(self) -> None:
        """Close the connection and end the supervisor. Idempotent, callable from any task.

        The supervising task closes its client itself when it sees the stop (an ``async with``
        is left by the task that entered it); this waits for that. A cancellation of the caller
        while it waits is the caller's and propagates; the supervisor goes on stopping.
        """
        self._stop.set()
        await join(self._task)
        if self._tasks is not None and self._task is not asyncio.current_task():
            await self._tasks.aclose()  # it has ended: nothing is left to cancel
        self.state = "stopped"

    @property
    def client(self) -> Client:
        """The live client; :class:`ServerUnavailable` when the server is not connected."""
        client = self._client
        if client is None or self.state != "ready" or not client.connected:
            reason = f" ({self.last_error})" if self.last_error else ""
            raise ServerUnavailable(f"server {self.name!r} is {self.state}{reason}")
        return client

    # -- the supervising task ------------------------------------------------------------------

    async def _run(self) -> None:
        failures = 0
        delay = self._initial_delay
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                await self._serve_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure of one server stays with that server
                self.last_error = exc
                logger.warning("server %r: %s: %s", self.name, type(exc).__name__, exc)
            self._client = None
            if self._stop.is_set():
                break
            if time.monotonic() - started >= STABLE_AFTER:
                failures, delay = 0, self._initial_delay
            failures += 1
            if not self._restart or failures > self._max_restarts:
                logger.error("server %r: giving up after %d failed attempts", self.name, failures)
                await self._set_state("failed")
                return
            await self._set_state("restarting")
            logger.info("server %r: reconnecting in %.1f s", self.name, delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)
            delay = min(delay * 2, self._max_delay)
        await self._set_state("stopped")

    async def _set_state(self, state: ServerState) -> None:
        self.state = state
        self._settled.set()
        async with self._changes:
            self._changes.notify_all()

    async def wait_for(
        self, predicate: Callable[[ServerSupervisor], bool], timeout: float | None = None
    ) -> bool:
        """Wait (bounded) until ``predicate(self)`` holds after some state change; returns it."""

        async def wait() -> None:
            async with self._changes:
                await self._changes.wait_for(lambda: predicate(self))

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wait(), timeout)
        return predicate(self)

    async def _serve_once(self) -> None:
        async with self._make_client() as client:
            self._client = client
            self.connections += 1
            self.last_error = None
            await self._set_state("ready")
            if self._on_change is not None and self.connections > 1:
                self._on_change(self.name)  # a restarted server may offer something else
            renewed = asyncio.Event()

            def session_renewed(_event: object) -> None:
                # a replaced legacy HTTP session may offer something else too (told before the
                # requests that met the expiry are sent again)
                renewed.set()
                self._changed()

            client._renewal_listeners.append(session_renewed)
            async with TaskScope(f"host {self.name} watcher", logger) as scope:
                watcher = scope.spawn(self._watch_changes(client, renewed))
                # Only a stop request or the server going away ends the connection; the change
                # watcher failing is logged by itself and never restarts a working server.
                while True:
                    first = await race(
                        _labelled("stop", self._stop.wait()),
                        _labelled("gone", client.wait_disconnected()),
                        _labelled("renewed", renewed.wait()),
                    )
                    if first is None or first.result() != "renewed":
                        break
                    # watch what the new session's capabilities offer
                    await cancel_and_wait(watcher)
                    renewed.clear()
                    watcher = scope.spawn(self._watch_changes(client, renewed))
            if not self._stop.is_set():
                error = client._disconnect_error()
                raise error if error is not None else ServerUnavailable("disconnected")

    async def _watch_changes(self, client: Client, renewed: asyncio.Event) -> None:
        """Tell the host when the server's lists change (both eras). A resync because the
        session was replaced (``renewed`` set) was told already."""
        caps = client.server_capabilities
        wanted = {
            kind: has_capability(caps, (kind, "listChanged"))
            for kind in ("tools", "prompts", "resources")
        }
        if not any(wanted.values()) or self._on_change is None:
            return
        try:
            async with client.listen(
                tools=wanted["tools"],
                prompts=wanted["prompts"],
                resources=wanted["resources"],
                on_resync=lambda: None if renewed.is_set() else self._changed(),
            ) as subscription:
                async for note in subscription:
                    if isinstance(note, SubscriptionsAcknowledgedNotification):
                        continue  # the first one, and each re-listen's (its resync tells)
                    self._changed()
        except MCPError as exc:
            logger.info("server %r: not watching for changes: %s", self.name, exc)

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self.name)

    def describe(self) -> dict[str, Any]:
        """A status row: state, negotiated protocol, last error."""
        row: dict[str, Any] = {"state": self.state, "connections": self.connections}
        client = self._client
        if client is not None and client._negotiated is not None:
            row["era"] = client.era
            row["protocol_version"] = client.protocol_version
            row["server_info"] = client.server_info
        if self.last_error is not None:
            row["error"] = f"{type(self.last_error).__name__}: {self.last_error}"
        return row


async def _labelled(label: str, awaitable: Awaitable[Any]) -> str:
    """``label`` once ``awaitable`` is done: which of the waits :func:`race` saw end first.

    A wait that fails has ended too (the disconnect error is read from the client after).
    """
    with contextlib.suppress(Exception):
        await awaitable
    return label

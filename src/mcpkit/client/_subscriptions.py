"""Change notifications as one async iterator, in both eras (:meth:`Client.listen`).

**2026-07-28** (basic/patterns/subscriptions): a ``subscriptions/listen`` request whose stream
carries the notifications the client opted in to. The server's first message for it is
``notifications/subscriptions/acknowledged`` with the agreed subset; on stdio every notification
of the stream is tagged with the listen request's id, which the channel uses to route it here.
The server may end the stream (a graceful result, or ``notifications/cancelled`` on stdio); the
subscription then re-listens after a backoff and calls ``on_resync`` once the new stream is
acknowledged, because changes in the gap were not seen. Leaving the ``async with`` cancels the
request, which tells the server (``notifications/cancelled`` on stdio, a closed stream on HTTP).

**Legacy**: change notifications arrive on the session at any time; the subscription taps them,
``resources/subscribe``-s the requested URIs, and yields a synthesised acknowledgement first, so
code written for one era works against the other. When a legacy HTTP server replaces an expired
session (:mod:`mcpkit.client._renewal`), the client subscribes the URIs again; the subscription
agrees again with the new session's capabilities, yields a new acknowledgement and calls
``on_resync``, as a 2026 re-listen does (changes in the gap were not seen).

The queue between the connection and the consumer is bounded: a server that floods
notifications cannot grow memory without bound. On overflow the excess is dropped, caches are
still invalidated (that happens before queueing), and ``on_resync`` tells the consumer to
re-read what it cares about.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from mcpkit._runtime.concurrency import race
from mcpkit._runtime.tasks import TaskSet
from mcpkit.client._errors import ServerMisbehaved
from mcpkit.client._typed import ChangeNotification, decode_notification
from mcpkit.protocol._capabilities import agree_listen_filter
from mcpkit.protocol._errors import JSONRPCError, MCPError, TransportError
from mcpkit.types._jsonrpc import JSONObject, Notification
from mcpkit.types._method_names import CANCELLED_NOTIFICATION

if TYPE_CHECKING:
    from mcpkit.client._client import Client
    from mcpkit.client._renewal import SessionRenewed

__all__ = [
    "ACK_TIMEOUT",
    "MAX_QUEUED_NOTIFICATIONS",
    "RELISTEN_INITIAL_DELAY",
    "RELISTEN_MAX_DELAY",
    "ResyncCallback",
    "Subscription",
]

logger = logging.getLogger("mcpkit.client")

MAX_QUEUED_NOTIFICATIONS: Final = 1000
"""Notifications waiting for the consumer; beyond this they are dropped and a resync signalled."""
RELISTEN_INITIAL_DELAY: Final = 0.5
RELISTEN_MAX_DELAY: Final = 30.0
"""Backoff between re-listens doubles from the initial delay up to this bound."""
ACK_TIMEOUT: Final = 30.0
"""Seconds to wait for the first acknowledgement when entering the subscription."""

ResyncCallback = Callable[[], Awaitable[None] | None]

_CHANGE_METHODS: Final = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
}


_PASSED_AS_IS: Final = frozenset({"notifications/tasks"})
"""Stream notifications without a typed model here, handed to the consumer as they came."""


class _End:
    """Queue sentinel: the subscription ended (``error`` says why, if it failed)."""

    def __init__(self, error: BaseException | None) -> None:
        self.error = error


class Subscription:
    """Use ``async with client.listen(...) as sub: async for note in sub: ...``."""

    def __init__(
        self,
        client: Client,
        *,
        tools: bool,
        prompts: bool,
        resources: bool,
        resource_uris: list[str],
        on_resync: ResyncCallback | None,
        task_ids: list[str] | None = None,
    ) -> None:
        self._client = client
        self.requested: JSONObject = {}
        if tools:
            self.requested["toolsListChanged"] = True
        if prompts:
            self.requested["promptsListChanged"] = True
        if resources:
            self.requested["resourcesListChanged"] = True
        if resource_uris:
            self.requested["resourceSubscriptions"] = list(resource_uris)
        if task_ids:
            self.requested["taskIds"] = list(task_ids)
        self._on_resync = on_resync
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._queued = 0
        self._overflowed = False
        self._task: asyncio.Task[None] | None = None
        self._tasks: TaskSet | None = None
        """Owns the runner (made in :meth:`start`); :meth:`aclose` cancels and awaits it."""
        self._acked = asyncio.Event()
        self._ended = False
        self._error: BaseException | None = None
        self.agreed: JSONObject | None = None
        """The subset of ``requested`` the server acknowledged."""
        self.relistens = 0
        """How many times the stream was re-opened after the server ended it (legacy: how many
        times the server replaced the session)."""

    # -- consumer side -------------------------------------------------------------------------

    async def __aenter__(self) -> Subscription:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self, *, ack_timeout: float = ACK_TIMEOUT) -> None:
        """Open the subscription and wait for the server's acknowledgement."""
        if self._task is not None:
            return
        runner = self._run_modern() if self._client.era == "modern" else self._run_legacy()
        if self._tasks is None:
            self._tasks = TaskSet(asyncio.get_running_loop(), "listen", logger)
        self._task = self._tasks.spawn(runner, name="mcpkit-listen")
        try:
            await race(self._acked.wait(), self._task, timeout=ack_timeout)
        except asyncio.CancelledError:
            # the caller gave up before the acknowledgement: the stream must not outlive it
            # (``async with`` never reaches ``__aexit__`` when ``__aenter__`` is cancelled)
            await self.aclose()
            raise
        if not self._acked.is_set():
            error = self._peek_error()
            await self.aclose()
            if error is not None:
                raise error
            raise ServerMisbehaved(
                f"subscriptions/listen was not acknowledged within {ack_timeout:g} s"
            )

    def _peek_error(self) -> BaseException | None:
        return self._error

    def __aiter__(self) -> AsyncIterator[ChangeNotification]:
        return self

    async def __anext__(self) -> ChangeNotification:
        if self._task is None:
            await self.start()
        if self._ended and self._queue.empty():
            raise StopAsyncIteration
        item = await self._queue.get()
        if isinstance(item, _End):
            self._ended = True
            if item.error is not None:
                raise item.error
            raise StopAsyncIteration
        self._queued -= 1
        if self._overflowed and self._queued == 0:
            self._overflowed = False
            await self._resync()
        typed: ChangeNotification = item
        return typed

    async def aclose(self) -> None:
        """Stop listening (tells the server). Idempotent.

        Cancels the runner and waits for it; a cancellation of the caller while it waits is
        the caller's and propagates (the iterator is ended either way).
        """
        task, self._task = self._task, None
        self._client._listeners.discard(self._tap)
        try:
            if task is not None and self._tasks is not None:
                await self._tasks.aclose()
        finally:
            if task is not None:
                self._ended = True
                self._queue.put_nowait(_End(None))

    async def _resync(self) -> None:
        if self._on_resync is None:
            return
        try:
            outcome = self._on_resync()
            if outcome is not None:
                await outcome
        except Exception:
            logger.exception("%s: resync callback failed", self._client.name)

    # -- producer side -------------------------------------------------------------------------

    def _offer(self, note: Notification) -> None:
        typed: Any = decode_notification(note)
        if typed is None:
            if note.method not in _PASSED_AS_IS:
                return
            typed = note
        if self._queued >= MAX_QUEUED_NOTIFICATIONS:
            if not self._overflowed:
                logger.warning(
                    "%s: more than %d notifications waiting; dropping until the consumer "
                    "catches up, then resyncing",
                    self._client.name,
                    MAX_QUEUED_NOTIFICATIONS,
                )
            self._overflowed = True
            return
        self._queued += 1
        self._queue.put_nowait(typed)

    def _finish(self, error: BaseException | None) -> None:
        if error is not None and self._error is None:
            self._error = error
        self._queue.put_nowait(_End(error))

    async def _run_modern(self) -> None:
        client = self._client
        delay = RELISTEN_INITIAL_DELAY
        try:
            while True:
                ended_by_server: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                first_ack = not self._acked.is_set()

                async def sink(
                    note: Notification,
                    *,
                    first: bool = first_ack,
                    ended_by_server: asyncio.Future[None] = ended_by_server,
                ) -> None:
                    if note.method == CANCELLED_NOTIFICATION:
                        if not ended_by_server.done():
                            ended_by_server.set_result(None)
                        return
                    if note.method == "notifications/subscriptions/acknowledged":
                        params = note.params or {}
                        agreed = params.get("notifications")
                        self.agreed = agreed if isinstance(agreed, dict) else {}
                        self._acked.set()
                        if not first:
                            if client._cache is not None:
                                client._cache.clear()
                            await self._resync()
                    else:
                        client._apply_change(note)
                    self._offer(note)

                # the request is race's own: the server ending the stream cancels and awaits it
                request = await race(
                    client._request(
                        "subscriptions/listen",
                        {"notifications": dict(self.requested)},
                        timeout=None,
                        on_notification=sink,
                    ),
                    ended_by_server,
                )
                error = None
                if request not in (None, ended_by_server) and not request.cancelled():
                    error = request.exception()
                if error is not None:
                    if isinstance(error, TransportError) or not self._acked.is_set():
                        self._finish(error)
                        return
                    logger.info("%s: listen stream failed (%s); re-listening", client.name, error)
                else:
                    logger.info("%s: the server ended the listen stream; re-listening", client.name)
                    if self._acked.is_set():
                        delay = RELISTEN_INITIAL_DELAY
                self.relistens += 1
                await asyncio.sleep(delay)
                delay = min(delay * 2, RELISTEN_MAX_DELAY)
        except asyncio.CancelledError:
            raise
        except MCPError as exc:
            self._finish(exc)

    def _tap(self, note: Notification) -> None:
        """Legacy: the client's default notification path hands every change to us."""
        method = note.method
        field = _CHANGE_METHODS.get(method)
        if field is not None and self.requested.get(field):
            self._offer(note)
        elif method == "notifications/resources/updated":
            uri = (note.params or {}).get("uri")
            wanted = self.requested.get("resourceSubscriptions") or []
            if isinstance(uri, str) and any(uri.startswith(w) for w in wanted):
                self._offer(note)

    async def _renewed(self, event: SessionRenewed) -> None:
        """Legacy: the session was replaced (the client already subscribed the URIs again)."""
        agreed = agree_listen_filter(event.current.capabilities, self.requested)
        self.agreed = agreed
        self.relistens += 1
        self._offer(
            Notification("notifications/subscriptions/acknowledged", {"notifications": agreed})
        )
        await self._resync()

    async def _run_legacy(self) -> None:
        client = self._client
        agreed = agree_listen_filter(client.server_capabilities, self.requested)
        subscribed: list[str] = []
        try:
            for uri in agreed.get("resourceSubscriptions", []):
                await client.subscribe_resource(uri)
                subscribed.append(uri)
            client._listeners.add(self._tap)
            client._renewal_listeners.append(self._renewed)
            self.agreed = agreed
            self._offer(
                Notification("notifications/subscriptions/acknowledged", {"notifications": agreed})
            )
            self._acked.set()
            await client.wait_disconnected()
            self._finish(client._disconnect_error())
        except (JSONRPCError, TransportError, ServerMisbehaved) as exc:
            self._finish(exc)
        finally:
            client._listeners.discard(self._tap)
            with contextlib.suppress(ValueError):
                client._renewal_listeners.remove(self._renewed)
            for uri in subscribed:
                if client.connected:
                    with contextlib.suppress(MCPError):
                        await client.unsubscribe_resource(uri)

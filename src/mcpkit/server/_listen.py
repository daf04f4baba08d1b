"""2026-07-28 ``subscriptions/listen``: long-lived requests that carry change notifications.

Each listen request is acknowledged first (with the subset of the requested filter the server
supports), then receives the notifications it opted into, each tagged with its
``subscriptionId`` (the listen request's id). The client ends it by cancelling (stdio) or closing
the stream (HTTP); when the server shuts down, every listener gets its graceful final result.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcpkit.protocol._capabilities import agree_listen_filter
from mcpkit.protocol._errors import InvalidParams
from mcpkit.server._request import Outbound, RequestInfo
from mcpkit.types import meta as keys
from mcpkit.types._base import RESULT_TYPE_COMPLETE, RESULT_TYPE_KEY
from mcpkit.types._jsonrpc import JSONObject, RequestId

SUBSCRIPTION_ID: Final = keys.SUBSCRIPTION_ID
MAX_RESOURCE_SUBSCRIPTIONS: Final = 1000
"""URIs one listen request may watch."""

Relay = Callable[[str, list[Any]], Awaitable[None]]
"""Hands a publication (kind, arguments) to the other workers (see :attr:`ListenHub.relay`)."""

TaskFilter = Callable[[list[str], RequestInfo], Awaitable[list[str]]]
"""Agrees to a listen request's ``taskIds`` (Tasks extension): the ids this client may follow,
or -32021 when the request did not declare the extension."""


class _Listener:
    __slots__ = ("ended", "flags", "outbound", "subscription_id", "task_ids", "uris")

    def __init__(
        self,
        subscription_id: RequestId,
        outbound: Outbound,
        flags: set[str],
        uris: set[str],
        task_ids: set[str],
    ) -> None:
        self.subscription_id = subscription_id
        self.outbound = outbound
        self.flags = flags
        self.uris = uris
        self.task_ids = task_ids
        self.ended = asyncio.Event()
        """Set to end this stream with its final result (shutdown, or its connection ending)."""

    async def send(self, method: str, params: JSONObject | None) -> None:
        body = dict(params or {})
        body["_meta"] = {SUBSCRIPTION_ID: self.subscription_id}
        with contextlib.suppress(Exception):  # a vanished listener must not stop the others
            await self.outbound.send_notification(method, body)


class ListenHub:
    """The open listen streams of this process, and fan-out to them."""

    def __init__(self) -> None:
        self._listeners: set[_Listener] = set()
        self._changed: asyncio.Event | None = None
        self.relay: Relay | None = None
        """Also hands every publication to the other workers of a deployment (set by a shared
        state backend such as ``mcpkit.contrib.redis``); they deliver it with :meth:`deliver`."""

    async def wait_count(self, count: int) -> None:
        """Wait until exactly ``count`` listen streams are open (tests, graceful shutdown)."""
        while len(self._listeners) != count:
            if self._changed is None:
                self._changed = asyncio.Event()
            await self._changed.wait()
            self._changed = None

    def _notify_change(self) -> None:
        if self._changed is not None:
            self._changed.set()

    @property
    def count(self) -> int:
        return len(self._listeners)

    async def serve(
        self,
        info: RequestInfo,
        requested: JSONObject,
        capabilities: JSONObject,
        *,
        task_filter: TaskFilter | None = None,
    ) -> JSONObject:
        """Acknowledge the listen request, then stream what it asked for until it ends.

        ``requested`` is its ``params.notifications``, already decoded against
        ``SubscriptionFilter`` by the handler (the shape is checked there, once)."""
        wanted = requested.get("resourceSubscriptions")
        if wanted is not None and len(wanted) > MAX_RESOURCE_SUBSCRIPTIONS:
            raise InvalidParams(
                f"at most {MAX_RESOURCE_SUBSCRIPTIONS} resourceSubscriptions per listen"
            )
        # The subset this server honours is the protocol core's rule (by capability).
        agreed: JSONObject = agree_listen_filter(capabilities, requested)
        flags = {flag for flag, value in agreed.items() if value is True}
        uris = set(agreed.get("resourceSubscriptions", ()))
        task_ids: set[str] = set()
        wanted_tasks = requested.get("taskIds")
        if wanted_tasks is not None and task_filter is not None:  # without tasks: left out
            agreed_tasks = await task_filter(wanted_tasks, info)
            task_ids = set(agreed_tasks)
            agreed["taskIds"] = agreed_tasks
        sid = info.request_id
        listener = _Listener(sid, info.outbound, flags, uris, task_ids)
        await info.outbound.send_notification(
            "notifications/subscriptions/acknowledged",
            {"notifications": agreed, "_meta": {SUBSCRIPTION_ID: sid}},
        )
        self._listeners.add(listener)
        self._notify_change()
        try:
            await listener.ended.wait()
        finally:
            self._listeners.discard(listener)
            self._notify_change()
        return {RESULT_TYPE_KEY: RESULT_TYPE_COMPLETE, "_meta": {SUBSCRIPTION_ID: sid}}

    async def publish(self, flag: str, method: str, params: JSONObject | None) -> None:
        await self.deliver("flag", [flag, method, params])
        if self.relay is not None:
            await self.relay("flag", [flag, method, params])

    async def publish_resource(self, uri: str) -> None:
        await self.deliver("resource", [uri])
        if self.relay is not None:
            await self.relay("resource", [uri])

    async def publish_task(self, task_id: str, task: JSONObject) -> None:
        """``notifications/tasks`` (a full ``DetailedTask``) to listeners following ``task_id``."""
        await self.deliver("task", [task_id, task])
        if self.relay is not None:
            await self.relay("task", [task_id, task])

    async def deliver(self, kind: str, args: list[Any]) -> None:
        """Send one publication to this process's listeners (``kind``: ``flag``, ``resource``
        or ``task``, with the arguments of the matching ``publish*`` method)."""
        for listener in list(self._listeners):
            if kind == "flag" and args[0] in listener.flags:
                await listener.send(args[1], args[2])
            elif kind == "resource" and args[0] in listener.uris:
                await listener.send("notifications/resources/updated", {"uri": args[0]})
            elif kind == "task" and args[0] in listener.task_ids:
                await listener.send("notifications/tasks", args[1])

    async def close_all(self) -> None:
        """End every listen stream gracefully (server shutdown)."""
        self.close_where(lambda _outbound: True)

    def close_where(self, owned: Callable[[Outbound], bool]) -> int:
        """End the listen streams whose outbound ``owned`` accepts (one connection ending: its
        stdin closed, or the process was told to stop); returns how many. Each gets its final
        result at once instead of holding the connection's drain open."""
        ended = 0
        for listener in list(self._listeners):
            if owned(listener.outbound) and not listener.ended.is_set():
                listener.ended.set()
                ended += 1
        return ended

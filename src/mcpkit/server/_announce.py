"""Telling clients that something changed: list changes and resource updates, in both eras.

Legacy sessions get ``notifications/{kind}/list_changed`` and ``notifications/resources/updated``
on their notification channel (or, with a shared state backend, through ``legacy_fanout``, which
reaches the sessions other workers hold); 2026-07-28 clients get them on their
``subscriptions/listen`` streams (the :class:`~mcpkit.server._listen.ListenHub`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable

from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._lifecycle import ServerState
from mcpkit.server._listen import ListenHub
from mcpkit.server._request import LegacyConnection
from mcpkit.types._jsonrpc import JSONObject

__all__ = ["Announcer", "LegacyFanout"]

LegacyFanout = Callable[[str, JSONObject | None, str | None], Awaitable[None]]
"""``(method, params, uri)``: deliver a list change (``uri`` ``None``) or a resource update to
the legacy sessions that should see it (see :attr:`Announcer.legacy_fanout`)."""

logger = logging.getLogger("mcpkit.server")


class Announcer:
    """The legacy connections of this process, the listen streams, and the announcements."""

    __slots__ = ("_background", "_connections", "legacy_fanout", "listen_hub", "loop")

    def __init__(self) -> None:
        self._connections: weakref.WeakSet[LegacyConnection] = weakref.WeakSet()
        self._background: TaskSet | None = None
        """Owns the announcements ``changed`` starts (made on first use, on the running loop);
        :meth:`aclose` cancels and awaits them."""
        self.listen_hub = ListenHub()
        self.legacy_fanout: LegacyFanout | None = None
        """Delivers list changes and resource updates to legacy sessions instead of this
        process's own connections (set by a shared state backend: with many workers a session
        is not tied to one process, and each must be told once)."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop the server runs on: a change made in a worker thread is announced there."""

    def track(self, connection: LegacyConnection) -> None:
        self._connections.add(connection)

    @property
    def open_sessions(self) -> int:
        """Legacy sessions with an id not ended yet (counted on demand, never kept)."""
        return sum(
            1
            for conn in list(self._connections)
            if conn.session_id is not None and conn.lifecycle.state is not ServerState.CLOSED
        )

    def changed(self, kind: str) -> None:
        """A registry changed: announce it soon, from whatever thread made the change."""
        # (asyncio's non-raising form: set-up code registering 1,000 tools would otherwise
        # raise and catch a RuntimeError per tool, ~8 k instructions each)
        if asyncio._get_running_loop() is None:
            # no loop here: a sync tool in a worker thread, or set-up code
            loop = self.loop
            if loop is not None and loop.is_running():
                loop.call_soon_threadsafe(self._announce_soon, kind)
        else:
            self._announce_soon(kind)

    def _announce_soon(self, kind: str) -> None:
        """Start announcing a list change, owned by this announcer (on the running loop)."""
        loop = asyncio.get_running_loop()
        background = self._background
        if background is None or background.loop is not loop:
            background = self._background = TaskSet(loop, "announcements", logger)
        background.spawn(self.list_changed(kind), name=f"mcpkit-{kind}-list-changed")

    async def aclose(self) -> None:
        """Cancel the announcements still running and wait for them (server shutdown)."""
        background, self._background = self._background, None
        if background is not None and background.loop is asyncio.get_running_loop():
            await background.aclose()

    async def list_changed(self, kind: str) -> None:
        method = f"notifications/{kind}/list_changed"
        if self.legacy_fanout is not None:
            await self.legacy_fanout(method, None, None)
        else:
            for conn in list(self._connections):
                if conn.initialized and conn.notify is not None:
                    with contextlib.suppress(Exception):
                        await conn.notify.send_notification(method, None)
        await self.listen_hub.publish(f"{kind}ListChanged", method, None)

    async def resource_updated(self, uri: str) -> None:
        method = "notifications/resources/updated"
        if self.legacy_fanout is not None:
            await self.legacy_fanout(method, {"uri": uri}, uri)
        else:
            for conn in list(self._connections):
                if uri in conn.subscriptions and conn.notify is not None:
                    with contextlib.suppress(Exception):
                        await conn.notify.send_notification(method, {"uri": uri})
        await self.listen_hub.publish_resource(uri)

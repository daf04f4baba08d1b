"""Carrying tasks through the gateway: which backend holds each task a client started.

A task is the backend's: when a call through the gateway is answered with a task (a 2026
``CreateTaskResult``, or a 2025-11-25 ``CreateTaskResult{task}``), the gateway remembers which
backend holds it and which client started it, and forwards that client's later task requests
(``tasks/get``, ``tasks/update``, ``tasks/cancel``; 2025-11-25 also ``tasks/result``) there, so
the task behaves exactly as it does directly. Another client naming the task gets what an
unknown task gets. The table is bounded (:data:`MAX_ROUTED_TASKS`, the oldest forgotten) and
keeps a route for as long as the backend said the task lives (``ttlMs``), at most
:data:`MAX_ROUTE_SECONDS`. A 2025-11-25 backend's ``notifications/tasks/status`` go to the
session of the client that started the task, and to no other; a 2026 client's listen
``taskIds`` naming its task makes the gateway follow that task on the backend's own listen
stream and pass its ``notifications/tasks`` on (:class:`GatewayTasks`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from mcpkit.server.middleware import RequestView
from mcpkit.server.tasks import TaskManager
from mcpkit.types import Era

__all__ = ["MAX_ROUTED_TASKS", "MAX_ROUTE_SECONDS", "GatewayTasks", "TaskRoute", "TaskRoutes"]

logger = logging.getLogger("mcpkit.gateway")

MAX_ROUTED_TASKS: Final = 10_000
FOLLOW_READY_SECONDS: Final = 10.0
"""How long a client's listen waits for the backend's own listen of its task to be in place
before it is acknowledged anyway (a backend that does not answer must not hold the client)."""
"""Task routes the gateway keeps (beyond this the oldest are forgotten)."""
MAX_ROUTE_SECONDS: Final = 86_400.0
"""The longest a route is kept (a task without a ``ttlMs`` lives until its backend forgets it)."""


@dataclass(frozen=True, slots=True)
class TaskRoute:
    backend: str
    client: str
    """The gateway client that started the task (only it may reach the task)."""
    era: Era
    """The era the task was started in (each era sees only its own tasks, as directly)."""
    expires: float
    notify: Any = None
    """2025-11-25: the session of the client that started it (``send_notification``), where
    the backend's ``notifications/tasks/status`` for it go."""


class TaskRoutes:
    """Task id → the backend holding it, for the client that started it."""

    def __init__(self, max_routes: int = MAX_ROUTED_TASKS) -> None:
        self._routes: OrderedDict[str, TaskRoute] = OrderedDict()
        self._max = max_routes

    def add(
        self,
        task_id: str,
        backend: str,
        client: str,
        era: Era,
        ttl_ms: object,
        notify: Any = None,
    ) -> None:
        """Remember a task the backend created for ``client``."""
        seconds = ttl_ms / 1000 if isinstance(ttl_ms, int | float) and ttl_ms > 0 else None
        lifetime = min(seconds, MAX_ROUTE_SECONDS) if seconds is not None else MAX_ROUTE_SECONDS
        expires = time.monotonic() + lifetime
        self._routes[task_id] = TaskRoute(backend, client, era, expires, notify)
        self._routes.move_to_end(task_id)
        while len(self._routes) > self._max:
            self._routes.popitem(last=False)

    def find(self, task_id: object, client: str, era: Era) -> TaskRoute | None:
        """The route of ``task_id`` if ``client`` started it in ``era`` and it is still kept."""
        if not isinstance(task_id, str):
            return None
        route = self._routes.get(task_id)
        if route is None:
            return None
        if route.expires < time.monotonic():
            del self._routes[task_id]
            return None
        if route.client != client or route.era != era:
            return None
        return route

    def held_by(self, task_id: object, backend: str) -> TaskRoute | None:
        """The live route of ``task_id`` if ``backend`` holds it (whoever started it)."""
        route = self._routes.get(task_id) if isinstance(task_id, str) else None
        if route is None or route.backend != backend or route.expires < time.monotonic():
            return None
        return route

    def owned(self, client: str, era: Era) -> list[tuple[str, TaskRoute]]:
        """Every live route of ``client`` in ``era`` (2025-11-25 ``tasks/list``)."""
        now = time.monotonic()
        return [
            (task_id, route)
            for task_id, route in self._routes.items()
            if route.client == client and route.era == era and route.expires >= now
        ]


class GatewayTasks(TaskManager):
    """The gateway's task manager: it answers for task ids no backend holds (as a server does
    for a task it does not know), and agrees to a 2026 listen's ``taskIds`` naming a backend's
    task the listening client started, which ``follow`` then follows on the backend."""

    def __init__(
        self,
        routes: TaskRoutes,
        client_of: Callable[[RequestView], str],
        follow: Callable[[str, TaskRoute], asyncio.Future[None]],
    ) -> None:
        super().__init__()
        self._routes = routes
        self._client_of = client_of
        self._follow = follow

    async def agree_listen(self, task_ids: list[str], info: Any) -> list[str]:
        # (``info``: the request, as the manager is given it; read as a RequestView here)
        agreed = await super().agree_listen(task_ids, info)  # the extension and the bound
        client = self._client_of(info)
        following: list[asyncio.Future[None]] = []
        for task_id in dict.fromkeys(task_ids):
            route = self._routes.find(task_id, client, "modern")
            if route is not None and task_id not in agreed:
                agreed.append(task_id)
                following.append(self._follow(task_id, route))
        if following:
            # The acknowledgement promises the client every change from now on: the backend's
            # listen must be in place first, or a change right after the ack is never relayed.
            _, pending = await asyncio.wait(following, timeout=FOLLOW_READY_SECONDS)
            if pending:
                logger.warning(
                    "%d backend task listens not acknowledged within %.0f s; "
                    "acknowledging the client's listen anyway",
                    len(pending),
                    FOLLOW_READY_SECONDS,
                )
        return agreed

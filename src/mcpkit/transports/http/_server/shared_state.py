"""What an HTTP app needs from state shared by several worker processes (``HttpOptions.state``).

One process keeps its sessions, event logs and keys in memory. Several workers behind a load
balancer must share them; a backend such as :class:`mcpkit.contrib.redis.RedisState` bundles
the shared stores and the machinery that connects the workers (a message bus, heartbeats, a
shared key ring), and the app enters :meth:`SharedState.running` for its life.
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol, runtime_checkable

from mcpkit.transports.http._server.event_store import EventStore
from mcpkit.transports.http._server.session_store import SessionStore

__all__ = ["SharedState"]


@runtime_checkable
class SharedState(Protocol):
    """Shared stores plus what runs while an app uses them (see the module docstring)."""

    @property
    def event_store(self) -> EventStore: ...

    @property
    def session_store(self) -> SessionStore: ...

    def running(self, app: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        """Connect ``app`` (an :class:`~mcpkit.transports.http._server.asgi.McpHttpApp`) to the
        other
        workers for its lifespan; entered after the server's own lifespan started."""
        ...

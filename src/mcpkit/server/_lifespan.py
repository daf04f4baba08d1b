"""The user's lifespan: entered once per process however many transports serve the server.

``state`` is what the lifespan yielded; a :class:`~mcpkit.server._context.Context` reads it
through this object (``ctx.lifespan``), not through the server.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

__all__ = ["Lifespan"]

if TYPE_CHECKING:
    LifespanFactory = Callable[[Any], contextlib.AbstractAsyncContextManager[Any]]
    """``lifespan(server)``: an async context manager whose value is the lifespan state."""


class Lifespan:
    """Counts the transports using the server; the first enters the lifespan, the last leaves."""

    __slots__ = ("_factory", "_lock", "_stack", "_users", "state")

    def __init__(self, factory: LifespanFactory | None) -> None:
        self._factory = factory
        self._users = 0
        self._stack: contextlib.AsyncExitStack | None = None
        self._lock = asyncio.Lock()
        self.state: Any = None
        """What the lifespan yielded (``None`` without a lifespan, or outside it)."""

    @contextlib.asynccontextmanager
    async def running(
        self, owner: Any, on_last_exit: Callable[[], Awaitable[None]]
    ) -> AsyncIterator[None]:
        """Hold the lifespan open; ``on_last_exit`` runs before it closes, when the last
        user leaves (the server stops its listen streams and tasks there)."""
        async with self._lock:
            self._users += 1
            if self._users == 1 and self._factory is not None:
                stack = contextlib.AsyncExitStack()
                self.state = await stack.enter_async_context(self._factory(owner))
                self._stack = stack
        try:
            yield
        finally:
            async with self._lock:
                self._users -= 1
                if self._users == 0:
                    await on_last_exit()
                    if self._stack is not None:
                        stack, self._stack = self._stack, None
                        await stack.aclose()
                        self.state = None

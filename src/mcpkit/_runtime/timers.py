"""A deadline of one object that has no task of its own: armed, disarmed, armed again.

An object driven by callbacks (an HTTP connection's protocol object, parsing bytes as they
arrive) has no task to run ``asyncio.timeout`` in; its deadline is a loop timer. :class:`Timer`
is that timer with its two owners spelled out: the object, which disarms it when the deadline no
longer applies (the headers arrived, the connection was lost), and a
:class:`~mcpkit._runtime.tasks.TaskSet`, whose close cancels it if the object never does. Layers
above the runtime use this (or a ``TaskSet``) instead of calling the loop's timer methods.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from mcpkit._runtime.tasks import TaskSet

__all__ = ["Timer"]


class Timer:
    """Calls ``callback`` once ``delay`` seconds after :meth:`arm`, unless disarmed first."""

    __slots__ = ("_callback", "_handle", "_owner")

    def __init__(self, owner: TaskSet, callback: Callable[[], object]) -> None:
        self._owner = owner
        self._callback = callback
        self._handle: asyncio.TimerHandle | None = None

    @property
    def armed(self) -> bool:
        """Whether the deadline is running (armed, and neither fired nor disarmed since)."""
        return self._handle is not None

    def arm(self, delay: float) -> None:
        """Start (or restart) the deadline: ``delay`` seconds from now."""
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._owner.timer(delay, self._fire)

    def disarm(self) -> None:
        """Stop the deadline (nothing happens if it is not running)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        self._callback()

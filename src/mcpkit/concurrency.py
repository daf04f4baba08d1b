"""Structured concurrency for code built on mcpkit: the runtime's own primitives, public.

mcpkit starts no task without an owner that cancels *and awaits* it, and never swallows a
cancellation aimed at its caller (``docs/architecture.md``, "Tasks and cancellation"). Code that
extends mcpkit — the gateway, the integrations under ``mcpkit.contrib``, your own middleware or
backends — follows the same rule with the same tools:

* :class:`TaskSet` — the owner a long-lived object holds: ``spawn`` a child, ``timer`` a
  ``call_later`` it owns, ``aclose`` to cancel and await them all;
* :class:`TaskScope` — the same as an ``async with`` block, for helpers that live in one call;
* :class:`Timer` — one object's deadline that is armed, disarmed and re-armed, owned by a
  ``TaskSet``;
* :func:`cancel_and_wait` / :func:`join` — stop a child (or wait for it to end on its own)
  without swallowing the caller's cancellation;
* :func:`race` — wait for the first of several awaitables, cancel and await the rest.
"""

from __future__ import annotations

from mcpkit._runtime.concurrency import TaskScope, cancel_and_wait, join, race
from mcpkit._runtime.tasks import TaskSet
from mcpkit._runtime.timers import Timer

__all__ = ["TaskScope", "TaskSet", "Timer", "cancel_and_wait", "join", "race"]

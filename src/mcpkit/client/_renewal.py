"""What a client does when the server replaces its session (a legacy HTTP session that expired).

A legacy Streamable HTTP server may forget a session (a restart, an idle timeout, another worker)
and answer 404. The transport then starts a new session through the connection
(:meth:`~mcpkit.protocol._connection.ClientConnection.start_renewal` /
:meth:`~mcpkit.protocol._connection.ClientConnection.finish_renewal`): from that moment the
connection holds the new session's verdict — revision, capabilities, server info, instructions,
which may all differ from the old one's — and checks and shapes every request by it. The request
that met the 404 fails with :class:`~mcpkit.protocol._errors.SessionReplaced`, and the client
catches up, once per renewal, before it sends that request again:

1. ``client.negotiated`` (and ``protocol_version``, ``server_capabilities``, ``server_info``,
   ``instructions``) is the connection's verdict, rebuilt from it;
2. what was cached from the old session is dropped (list pages, tool definitions);
3. what this client had set in the old session is set again when the new server allows it: the
   log level (``logging/setLevel``) and ``resources/subscribe`` of each URI still subscribed —
   the spec starts a new session from nothing, and a client that asked for ``debug`` logs or
   for updates of a resource still wants them;
4. the change is logged (INFO with the new verdict; WARNING naming what differs) and told:
   :meth:`~mcpkit.client.Client.listen` subscriptions yield a new acknowledgement and call
   ``on_resync``, a :class:`~mcpkit.client.Host` forgets the server's lists and calls
   ``on_change``, and ``Client(session_renewed_handler=...)`` gets a :class:`SessionRenewed`.

Then the request goes again as another request — a fresh id, its own deadline, through
``Client.request_hook`` again if one is set — through the connection: gated by the new
capabilities (a missing one is the :class:`~mcpkit.protocol._errors.MissingServerCapability` a
fresh client would get, and nothing is sent) and shaped for the new revision. It is sent again
once: a second :class:`~mcpkit.protocol._errors.SessionReplaced` is raised to the caller.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from mcpkit._runtime.tasks import TaskSet

if TYPE_CHECKING:
    from mcpkit.client._negotiate import Negotiated

__all__ = [
    "RenewalTracker",
    "SessionRenewed",
    "SessionRenewedHandler",
    "tell",
    "verdict_changes",
]

logger = logging.getLogger("mcpkit.client")


@dataclass(frozen=True, slots=True)
class SessionRenewed:
    """The server replaced the client's session: what the old one and the new one agreed.

    ``previous.session_id`` / ``current.session_id`` are the ``Mcp-Session-Id`` of each.
    """

    previous: Negotiated
    current: Negotiated

    @property
    def changes(self) -> list[str]:
        """What differs between the two verdicts, in words (empty: only the session id)."""
        return verdict_changes(self.previous, self.current)


SessionRenewedHandler = Callable[[SessionRenewed], Awaitable[None] | None]
"""Told each time the session is replaced, after the client restored what it had set in the old
one and before the requests that met the expiry are sent again."""

_CATCHING_UP: Final[ContextVar[bool]] = ContextVar("mcpkit_client_renewal", default=False)
"""Set in the task that runs the catch-up: its own requests never wait for it, nor retry."""


def verdict_changes(previous: Negotiated, current: Negotiated) -> list[str]:
    """What a user may rely on that the new verdict changed."""
    changes = []
    if previous.protocol_version != current.protocol_version:
        changes.append(f"protocol {previous.protocol_version} -> {current.protocol_version}")
    if previous.capabilities != current.capabilities:
        before, after = set(previous.capabilities), set(current.capabilities)
        lost, gained = sorted(before - after), sorted(after - before)
        detail = (
            ", ".join([*(f"-{name}" for name in lost), *(f"+{name}" for name in gained)])
            or "options changed"
        )
        changes.append(f"capabilities ({detail})")
    if previous.server_info != current.server_info:
        changes.append(
            f"server {previous.server_info.get('name', '?')} "
            f"{previous.server_info.get('version', '?')} -> "
            f"{current.server_info.get('name', '?')} {current.server_info.get('version', '?')}"
        )
    if previous.instructions != current.instructions:
        changes.append("instructions")
    return changes


class RenewalTracker:
    """Runs a client's catch-up once per renewal of its session; see the module docstring.

    ``apply`` is the catch-up. Every task that learns of a renewal (a request that met it, a
    request sent after it, the transport's notification) awaits :meth:`catch_up`: the first
    starts ``apply`` in a task of its own (so cancelling one caller does not cut it short),
    the others wait for the same run. The runs are children of the tracker's :class:`TaskSet`
    (made on first use: a client is built outside any event loop), which :meth:`aclose` cancels
    and awaits.
    """

    __slots__ = ("_applied", "_apply", "_task", "_tasks")

    def __init__(self, apply: Callable[[], Awaitable[None]]) -> None:
        self._apply = apply
        self._applied = 0
        self._task: asyncio.Task[None] | None = None
        self._tasks: TaskSet | None = None

    def start_at(self, renewals: int) -> None:
        """A new connection: ``renewals`` is its count, nothing to catch up on."""
        self._applied = renewals

    def behind(self, renewals: int) -> bool:
        """Whether the connection's count moved past the last catch-up (cheap: the hot path)."""
        return renewals != self._applied and not _CATCHING_UP.get()

    def may_retry(self) -> bool:
        """Whether a request that met a renewal may be sent again: not the catch-up's own
        (a session that expires again at once is not chased)."""
        return not _CATCHING_UP.get()

    async def catch_up(self, renewals: int) -> None:
        """Wait until the catch-up for ``renewals`` ran (started here if no one did)."""
        if _CATCHING_UP.get():
            return  # the catch-up's own requests
        if renewals != self._applied:
            self._applied = renewals
            if self._tasks is None:
                self._tasks = TaskSet(asyncio.get_running_loop(), "client catch-up", logger)
            self._task = self._tasks.spawn(self._run(self._task), name="mcpkit-client-catch-up")
        task = self._task
        if task is not None and not task.done():
            await asyncio.shield(task)

    async def _run(self, before: asyncio.Task[None] | None) -> None:
        _CATCHING_UP.set(True)
        if before is not None and not before.done():
            await asyncio.gather(before, return_exceptions=True)
        try:
            await self._apply()
        except Exception:
            logger.exception("catching up with a replaced session failed")

    async def aclose(self) -> None:
        """Cancel a catch-up still running and wait for it (not when called from inside it).

        A cancellation of the caller while it waits is the caller's: it propagates.
        """
        self._task = None
        if self._tasks is not None:
            await self._tasks.aclose()


async def tell(listener: Callable[[SessionRenewed], Any], event: SessionRenewed) -> None:
    """Call one listener; its failure is logged, never the client's."""
    try:
        outcome = listener(event)
        if asyncio.iscoroutine(outcome) or isinstance(outcome, asyncio.Future):
            await outcome
    except Exception:
        logger.exception("a session-renewed listener failed")

"""Legacy Streamable HTTP sessions (``Mcp-Session-Id``): creation, lookup, idle reaping, a cap.

Only protocol versions up to 2025-11-25 have sessions; a 2026-07-28 server is stateless. A legacy
server mints an id when it answers ``initialize``, the client sends it on every later request, and
the session lives until the client sends DELETE or it sits idle too long.

Design for many idle sessions (the budget is ≤ 4 KiB of server memory per idle session):

* one small ``__slots__`` record per session, no per-session task, timer or lock;
* one ordered map, least recently seen first, so :meth:`MemorySessionStore.reap` looks only at
  sessions that are actually idle, however many there are;
* time is an argument (``now``, from a monotonic clock), so the store never reads a clock and
  the tests need no sleeps.

The store never removes a session on its own initiative except through :meth:`SessionStore.reap`
and :meth:`SessionStore.delete`, which hand back the removed records so the server can release
what it attached to them (streams, event logs, its per-session engine in
:attr:`SessionRecord.state`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final, Protocol, runtime_checkable

from mcpkit.protocol._errors import MCPError, UsageError
from mcpkit.protocol._http_routing import new_session_id

__all__ = [
    "MAX_SESSIONS",
    "SESSION_IDLE_TIMEOUT_SECONDS",
    "MemorySessionStore",
    "SessionRecord",
    "SessionLimitReached",
    "SessionStore",
    "StateUnavailable",
]

MAX_SESSIONS: Final = 10_000
"""Open sessions one server keeps at most; beyond that ``initialize`` is refused."""
SESSION_IDLE_TIMEOUT_SECONDS: Final = 30 * 60.0
"""A session idle this long is reaped (its client then gets 404 and initializes again)."""


class SessionLimitReached(MCPError):
    """No room for another session. Answer 503; reaping idle sessions may make room."""


class StateUnavailable(MCPError):
    """A shared state backend (Redis) did not answer in time. The HTTP app answers 503 with this
    message and the next request tries again; the server recovers when the backend returns."""


class SessionRecord:
    """One legacy HTTP session. ``state`` is the server's own per-session object (process-local)."""

    __slots__ = ("created_at", "id", "last_seen", "protocol_version", "snapshot", "state")

    def __init__(self, session_id: str, protocol_version: str, now: float, state: Any) -> None:
        self.id = session_id
        self.protocol_version = protocol_version
        self.created_at = now
        self.last_seen = now
        self.state = state
        self.snapshot: dict[str, Any] | None = None
        """A shared store's copy of the connection state (another worker rebuilds from it)."""

    def __repr__(self) -> str:
        return f"SessionRecord(id={self.id[:8]}…, protocol_version={self.protocol_version!r})"


@runtime_checkable
class SessionStore(Protocol):
    """Where a legacy HTTP server keeps its sessions (memory by default; Redis for many workers)."""

    async def create(
        self, *, protocol_version: str, now: float, state: Any = None
    ) -> SessionRecord:
        """A new session with a fresh unguessable id; :class:`SessionLimitReached` if full."""
        ...

    async def get(self, session_id: str) -> SessionRecord | None:
        """The session, or ``None`` if unknown (never created, deleted or reaped)."""
        ...

    async def touch(self, session_id: str, now: float) -> SessionRecord | None:
        """Mark the session used at ``now`` and return it; ``None`` if unknown or already idle.

        An idle session is not removed here: :meth:`reap` does that and reports it, so the server
        can clean up. The server answers ``None`` with 404 either way.
        """
        ...

    async def delete(self, session_id: str) -> SessionRecord | None:
        """Remove the session (client DELETE); returns it, or ``None`` if it was unknown."""
        ...

    async def reap(self, now: float) -> list[SessionRecord]:
        """Remove and return every session idle for longer than the timeout."""
        ...


class MemorySessionStore:
    """A :class:`SessionStore` in this process's memory (a few hundred bytes per idle session)."""

    def __init__(
        self,
        *,
        max_sessions: int = MAX_SESSIONS,
        idle_timeout: float = SESSION_IDLE_TIMEOUT_SECONDS,
    ) -> None:
        if max_sessions < 1 or idle_timeout <= 0:
            raise UsageError("max_sessions and idle_timeout must be positive")
        self._max = max_sessions
        self._timeout = idle_timeout
        self._sessions: OrderedDict[str, SessionRecord] = OrderedDict()  # least recently seen first

    def __len__(self) -> int:
        return len(self._sessions)

    async def create(
        self, *, protocol_version: str, now: float, state: Any = None
    ) -> SessionRecord:
        if len(self._sessions) >= self._max:
            raise SessionLimitReached(
                f"this server already holds {self._max} sessions (max_sessions); try again "
                "later, or raise max_sessions / lower the idle timeout"
            )
        session_id = new_session_id()
        while session_id in self._sessions:  # 256 random bits: never in practice
            session_id = new_session_id()
        session = SessionRecord(session_id, protocol_version, now, state)
        self._sessions[session_id] = session
        return session

    async def get(self, session_id: str) -> SessionRecord | None:
        return self._sessions.get(session_id)

    async def touch(self, session_id: str, now: float) -> SessionRecord | None:
        return self.touch_now(session_id, now)

    def touch_now(self, session_id: str, now: float) -> SessionRecord | None:
        """:meth:`touch` without awaiting: the server looks a session up on every request."""
        session = self._sessions.get(session_id)
        if session is None or now - session.last_seen > self._timeout:
            return None
        if now > session.last_seen:
            session.last_seen = now
        self._sessions.move_to_end(session_id)
        return session

    async def delete(self, session_id: str) -> SessionRecord | None:
        return self._sessions.pop(session_id, None)

    async def reap(self, now: float) -> list[SessionRecord]:
        reaped: list[SessionRecord] = []
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.last_seen <= self._timeout:
                break
            reaped.append(self._sessions.popitem(last=False)[1])
        return reaped

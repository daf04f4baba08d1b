"""What the server keeps per legacy HTTP session, and the sessions' lifecycle (reaping, DELETE).

A session is the server's half of one ``initialize`` conversation over many HTTP requests. It is
deliberately task-free when idle (the budget is a few KiB per idle session): the connection
state from the server framework, the standalone ``GET`` stream's pipe (created on first use), and
three small tables that are empty most of the time:

* ``inflight`` — the handler tasks of the client's requests, so ``notifications/cancelled`` and
  session end can cancel them;
* ``pending`` — our server→client requests (sampling, elicitation, roots) awaiting the client's
  answer, which arrives as a separate POST;
* ``pipes`` — POST streams that may still be resumed with ``Last-Event-ID`` while their handler
  runs.

:class:`LegacySessions` wraps the pluggable :class:`~mcpkit.transports.http.session_store.
SessionStore`: it creates sessions, looks them up, ends them (DELETE, idle reaping, shutdown) and
releases everything attached (tasks cancelled, pending requests failed, events deleted).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcpkit.protocol.codec import encode_message
from mcpkit.protocol.errors import ConnectionClosed, JSONRPCError, RequestTimeout
from mcpkit.protocol.shape import prepare_outbound
from mcpkit.transports.http._peers import UNKNOWN_PEER, PeerTable
from mcpkit.transports.http._pipe import EventPipe, PipeState
from mcpkit.transports.http._servable import HttpServable
from mcpkit.transports.http.event_store import EventStore
from mcpkit.transports.http.session_store import SessionLimitReached, SessionRecord, SessionStore
from mcpkit.types.jsonrpc import ErrorResponse, JSONObject, Request, RequestId, Response

__all__ = [
    "GET_STREAM_ID",
    "MAX_SESSIONS_PER_PEER",
    "REAP_INTERVAL_SECONDS",
    "LegacySessionState",
    "LegacySessions",
    "PeerSessionLimitReached",
]

logger = logging.getLogger("mcpkit.http")

GET_STREAM_ID: Final = "get"
"""The stream id of a session's standalone GET stream (one per session, resumable)."""
REAP_INTERVAL_SECONDS: Final = 30.0
"""How often idle sessions are looked for (they are reaped after the store's idle timeout)."""
LOCAL_COPY_IDLE_SECONDS: Final = 300.0
"""With a shared session store, a session this process has not served for this long is dropped
from its memory (not from the store): each worker keeps only the sessions it is serving."""
MAX_PENDING_SERVER_REQUESTS: Final = 256
"""Server→client requests one session may have awaiting an answer."""
MAX_SESSIONS_PER_PEER: Final = 2_500
"""Sessions one peer (IPv4 address or IPv6 ``/64``) may hold in this process: a quarter of the
default table, so one client cannot fill it. At the cap the peer's own least recently used idle
session is ended to make room (clients that never send DELETE keep working)."""


Relay = Callable[[str, str, Any], Awaitable[None]]
"""``(kind, session id, payload)``: hand something to the other workers of a deployment."""


class PeerSessionLimitReached(SessionLimitReached):
    """One peer holds its maximum of sessions and all of them are busy (answer 429)."""


class LegacySessionState:
    """The server's per-session state (see the module docstring)."""

    __slots__ = (
        "_ids",
        "_stream_tag",
        "_streams",
        "closed",
        "connection",
        "get_pipe",
        "id",
        "inflight",
        "peer",
        "pending",
        "pipes",
        "saved",
        "seen",
        "store",
    )

    def __init__(
        self,
        session_id: str,
        connection: Any,
        store: EventStore | None,
        peer: str = UNKNOWN_PEER,
        *,
        shared: bool = False,
    ) -> None:
        self.id = session_id
        self.peer = peer
        self.connection = connection
        self.store = store
        self.get_pipe: EventPipe | None = None
        self.inflight: dict[RequestId, asyncio.Task[None]] = {}
        self.pending: dict[RequestId, asyncio.Future[Response | ErrorResponse]] = {}
        self.pipes: dict[str, EventPipe] = {}
        self.closed = False
        self.saved: Any = None
        self.seen = 0.0
        """When this process last served the session (shared stores: idle copies are dropped)."""
        """The connection snapshot last written to a shared session store."""
        self._ids = itertools.count(1)
        self._streams = itertools.count(1)
        self._stream_tag = ""
        if shared:
            # Other workers serve this session too: our stream and request ids must not collide
            # with theirs (ids stay below 2**53 for JavaScript clients), and messages for the
            # client go to the shared GET stream whoever holds its connection.
            self._ids = itertools.count(secrets.randbelow(2**52) + 1)
            self._stream_tag = secrets.token_hex(4) + "-"
            self.ensure_get_pipe()

    @property
    def protocol_version(self) -> str | None:
        version = getattr(self.connection, "protocol_version", None)
        return version if isinstance(version, str) else None

    @property
    def busy(self) -> bool:
        """Whether the session is in use right now (a handler runs or its GET stream is open)."""
        if any(not task.done() for task in self.inflight.values()):
            return True
        return self.get_pipe is not None and self.get_pipe.state is PipeState.SSE

    def new_stream_id(self) -> str:
        return f"post-{self._stream_tag}{next(self._streams)}"

    def ensure_get_pipe(self) -> EventPipe:
        """The standalone stream's pipe; it exists from the first GET for the session's life."""
        if self.get_pipe is None:
            self.get_pipe = EventPipe(
                GET_STREAM_ID, session_id=self.id, store=self.store, state=PipeState.DETACHED
            )
        return self.get_pipe

    # -- server → client requests ------------------------------------------------------------

    async def request(
        self,
        pipe: EventPipe | None,
        method: str,
        params: JSONObject | None,
        timeout: float | None,
    ) -> JSONObject:
        """Send a request to the client on ``pipe`` (or the GET stream) and await its answer."""
        target = pipe if pipe is not None and pipe.deliverable else self.get_pipe
        if self.closed:
            raise ConnectionClosed(f"session {self.id[:8]}… has ended")
        if target is None or not target.deliverable:
            raise ConnectionClosed(
                f"cannot send {method} to the client: its request stream is gone and it has no "
                "GET stream open (enable an event store for resumable streams)"
            )
        if len(self.pending) >= MAX_PENDING_SERVER_REQUESTS:
            raise ConnectionClosed(
                f"session {self.id[:8]}… already awaits {MAX_PENDING_SERVER_REQUESTS} answers "
                "from the client"
            )
        request_id: RequestId = next(self._ids)
        future: asyncio.Future[Response | ErrorResponse] = (
            asyncio.get_running_loop().create_future()
        )
        self.pending[request_id] = future
        try:
            message = prepare_outbound(
                Request(request_id, method, params), self.protocol_version, method
            )
            await target.emit(encode_message(message))
            try:
                async with asyncio.timeout(timeout):
                    answer = await future
            except TimeoutError:
                raise RequestTimeout(method, timeout or 0.0) from None
        finally:
            self.pending.pop(request_id, None)
        if isinstance(answer, ErrorResponse):
            raise JSONRPCError.from_error_object(answer.error)
        return answer.result

    def resolve(self, answer: Response | ErrorResponse) -> bool:
        """The client answered one of our requests; ``False`` if we were not waiting for it."""
        future = self.pending.get(answer.id) if answer.id is not None else None
        if future is None or future.done():
            return False
        future.set_result(answer)
        return True

    # -- cancellation and the end ------------------------------------------------------------

    def cancel(self, request_id: object) -> bool:
        """``notifications/cancelled`` from the client: stop that request's handler."""
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            return False
        task = self.inflight.get(request_id)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    async def close(self, *, only_here: bool = False) -> None:
        """End the session: cancel handlers, fail pending requests, end streams, drop events.

        ``only_here``: end only this process's part of a session that lives on in a shared
        store (shutdown, an idle local copy, or another worker ended it and drops the events):
        its streams and events in the store are left alone.
        """
        if self.closed:
            return
        self.closed = True
        tasks = [t for t in self.inflight.values() if not t.done()]
        for task in tasks:
            task.cancel()
        for future in self.pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed(f"session {self.id[:8]}… ended"))
        if self.get_pipe is not None:
            if only_here:
                self.get_pipe.abandon()  # the shared GET stream goes on (other workers write it)
            else:
                await self.get_pipe.finish(None)
        for pipe in list(self.pipes.values()):
            pipe.wake()
        if tasks:
            await asyncio.wait(tasks)
        lifecycle = getattr(self.connection, "lifecycle", None)
        with contextlib.suppress(Exception):
            if lifecycle is not None:
                lifecycle.close()
        if self.store is not None and not only_here:
            try:
                await self.store.delete_session(self.id)
            except Exception:
                logger.exception("could not delete the events of session %s…", self.id[:8])


class LegacySessions:
    """Creates, finds and ends legacy sessions over a :class:`SessionStore`."""

    def __init__(
        self,
        server: HttpServable,
        store: SessionStore,
        event_store: EventStore | None,
        *,
        max_per_peer: int = MAX_SESSIONS_PER_PEER,
    ) -> None:
        self._server = server
        self._store = store
        self._event_store = event_store
        self._local: dict[str, LegacySessionState] = {}
        """Sessions created by this process (their state cannot leave it)."""
        self._peers = PeerTable()
        self._max_per_peer = max_per_peer
        self.on_reaped: Callable[[list[str]], None] | None = None
        """Called with the ids of the sessions each reaper pass ended, once they are released
        (metrics, logs; tests wait on it instead of polling)."""
        self.clock: Callable[[], float] = time.time
        """Wall-clock seconds (shared stores compare times across processes); tests replace it."""
        self.shared = bool(getattr(store, "shared", False))
        """The store is shared by several workers: a session this process did not create is
        rebuilt from the store's snapshot, and answers, cancellations and session ends that
        concern another worker go through :attr:`relay`."""
        self.relay: Relay | None = None
        self.on_rebuild: Callable[[LegacySessionState], None] | None = None
        """Set by the endpoint: wires a rebuilt session's connection (its GET-stream outbound)."""

    def __len__(self) -> int:
        return len(self._local)

    @property
    def event_store(self) -> EventStore | None:
        return self._event_store

    def held_by(self, peer: str) -> int:
        """Sessions ``peer`` holds in this process."""
        return self._peers.count(peer)

    async def create(self, protocol_version: str, peer: str = UNKNOWN_PEER) -> LegacySessionState:
        """A new session for ``peer``.

        Raises ``SessionLimitReached`` when the store is full, and ``PeerSessionLimitReached``
        when the peer holds :data:`MAX_SESSIONS_PER_PEER` sessions that are all busy; an idle one
        of the peer's own is ended first when there is one.
        """
        if not self.shared and self._peers.count(peer) >= self._max_per_peer:
            await self._evict_one_of(peer)
        if self.shared:
            # The store counts sessions (and peers) across workers. This process's view of a
            # session's use is partial (other workers serve it too), so it never ends one of
            # them to make room: the per-peer table here stays out of it.
            create: Any = self._store.create
            session = await create(protocol_version=protocol_version, now=self.clock(), peer=peer)
        else:
            session = await self._store.create(protocol_version=protocol_version, now=self.clock())
        state = LegacySessionState(
            session.id,
            self._server.new_connection(session.id),
            self._event_store,
            peer,
            shared=self.shared,
        )
        state.seen = self.clock()
        session.state = state
        self._local[session.id] = state
        if not self.shared:
            self._peers.add(peer, session.id)
        return state

    async def _evict_one_of(self, peer: str) -> None:
        for session_id in self._peers.oldest(peer):
            state = self._local.get(session_id)
            if state is None or not state.busy:
                logger.info(
                    "peer %s holds %d sessions (max_sessions_per_peer): ended its least recently "
                    "used idle session %s…",
                    peer,
                    self._max_per_peer,
                    session_id[:8],
                )
                if not await self.end(session_id):
                    self._peers.remove(peer, session_id)
                return
        raise PeerSessionLimitReached(
            f"this client ({peer}) already holds {self._max_per_peer} busy sessions "
            "(max_sessions_per_peer); end some with DELETE or try again later"
        )

    def _forget(self, session_id: str) -> LegacySessionState | None:
        state = self._local.pop(session_id, None)
        if state is not None:
            self._peers.remove(state.peer, session_id)
        return state

    async def find(self, session_id: str) -> LegacySessionState | None:
        """The live session with this id (marking it used), or ``None`` (→ 404)."""
        session = await self._store.touch(session_id, self.clock())
        if session is None:
            return None
        state = _state_of(session) or self._local.get(session_id)
        if self.shared:
            if state is None:
                state = self._rebuild(session)
            elif session.snapshot is not None and session.snapshot != state.saved:
                self._refresh(state, session.snapshot)  # another worker changed it
        if state is None or state.closed:
            return None
        state.seen = self.clock()
        self._peers.used(state.peer, session_id)
        return state

    def _rebuild(self, session: SessionRecord) -> LegacySessionState | None:
        """Serve a session another worker created, from the shared store's snapshot."""
        if session.snapshot is None:
            return None  # its initialize has not been answered yet
        connection = self._server.new_connection(session.id)
        state = LegacySessionState(session.id, connection, self._event_store, shared=True)
        self._refresh(state, session.snapshot)
        if self.on_rebuild is not None:
            self.on_rebuild(state)
        self._local[session.id] = state
        return state

    @staticmethod
    def _refresh(state: LegacySessionState, snapshot: dict[str, Any]) -> None:
        restore = getattr(state.connection, "restore", None)
        if restore is not None:
            restore(snapshot)
        state.saved = snapshot

    async def sync(self, state: LegacySessionState) -> None:
        """Write the session's connection state to a shared store if it changed."""
        if not self.shared:
            return
        snapshot_of = getattr(state.connection, "snapshot", None)
        save = getattr(self._store, "save_snapshot", None)
        if snapshot_of is None or save is None:
            return
        snapshot = snapshot_of()
        if snapshot != state.saved:
            await save(state.id, snapshot, state.saved)
            state.saved = snapshot

    async def forward(self, kind: str, session_id: str, payload: Any) -> None:
        """Hand an answer (``answer``) or a cancellation (``cancel``) this process could not
        use to the other workers; the one waiting for it acts on it."""
        if self.relay is not None:
            await self.relay(kind, session_id, payload)

    async def on_relayed(self, kind: str, session_id: str, payload: Any) -> None:
        """Another worker relayed something about a session (see :meth:`forward`)."""
        state = self._local.get(session_id)
        if state is None:
            return
        if kind == "answer" and isinstance(payload, Response | ErrorResponse):
            state.resolve(payload)
        elif kind == "cancel":
            state.cancel(payload)
        elif kind == "end":
            self._forget(session_id)
            await state.close(only_here=True)

    async def end(self, session_id: str) -> bool:
        """DELETE: end the session; ``False`` if it was unknown."""
        session = await self._store.delete(session_id)
        local = self._forget(session_id)
        state = _state_of(session) or local
        if session is not None and self.shared:
            await self.forward("end", session_id, None)  # its handlers may run elsewhere
            if state is None and self._event_store is not None:
                await self._event_store.delete_session(session_id)
        if state is None:
            return session is not None
        await state.close()
        return True

    async def discard(self, state: LegacySessionState) -> None:
        """Forget a session that never got going (its ``initialize`` failed)."""
        await self._store.delete(state.id)
        self._forget(state.id)
        await state.close()

    async def reap(self) -> int:
        """End every idle session; returns how many."""
        reaped = await self._store.reap(self.clock())
        for session in reaped:
            local = self._forget(session.id)
            state = _state_of(session) or local
            if self.shared:
                await self.forward("end", session.id, None)
            if state is not None:
                await state.close()
        if self.shared:
            await self._drop_idle_copies()
        if reaped:
            logger.info("reaped %d idle session(s)", len(reaped))
            if self.on_reaped is not None:
                self.on_reaped([session.id for session in reaped])
        return len(reaped)

    async def _drop_idle_copies(self) -> None:
        """Shared stores: forget this process's copy of sessions it has not served for
        :data:`LOCAL_COPY_IDLE_SECONDS` and that have nothing running here. The session lives
        on in the store (and on other workers); a later request rebuilds the copy."""
        limit = self.clock() - LOCAL_COPY_IDLE_SECONDS
        for session_id, state in list(self._local.items()):
            if state.seen < limit and not state.busy and not state.pending and not state.pipes:
                self._forget(session_id)
                await state.close(only_here=True)

    async def reap_forever(self, interval: float = REAP_INTERVAL_SECONDS) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.reap()
            except Exception:
                logger.exception("reaping idle sessions failed; trying again later")

    async def close_all(self) -> None:
        """Server shutdown: end every session this process holds.

        With a shared store the sessions live on (other workers serve them): only this
        process's part of them ends (its handlers and pending requests).
        """
        for session_id in list(self._local):
            if self.shared:
                state = self._forget(session_id)
                if state is not None:
                    await state.close(only_here=True)
            else:
                await self.end(session_id)


def _state_of(session: SessionRecord | None) -> LegacySessionState | None:
    state = session.state if session is not None else None
    return state if isinstance(state, LegacySessionState) else None

"""What the server keeps per legacy HTTP session, and the sessions' lifecycle (reaping, DELETE).

A session is the server's half of one ``initialize`` conversation over many HTTP requests. Its
protocol state is one :class:`~mcpkit.protocol._connection.ServerConnection`, the same engine a
stdio or memory session runs on: every message the client POSTs to the session (requests,
answers to our requests, notifications, batches) is fed to it, and every message the server
writes to the client passes its one send point (:meth:`LegacySessionState.send`). So the
handshake lifecycle, duplicate ids, cancellation both ways, late or bogus answers, the rule that
only ping and logging go out before ``notifications/initialized``, and the revision's wire
shape are decided there, not here. This module keeps only what needs an event loop:

* each request's :class:`RequestHandle` (its handler task, and why the session stopped it),
  attached to the engine's in-flight entry so ``notifications/cancelled`` and the session's end
  reach it;
* a :class:`~mcpkit._runtime.pending.PendingRequest` per server→client request (sampling,
  elicitation, roots) — the runtime's own, as a stdio session holds: the future the tool waits
  on and its deadline, one loop timer —, attached to the engine's entry for that request and
  resolved when the client POSTs the answer;
* ``pipes`` — POST streams that may still be resumed with ``Last-Event-ID`` while their handler
  runs — and the standalone ``GET`` stream's pipe (created on first use).

Idle, a session holds no task and its tables are empty (the budget is a few KiB per idle
session).

:class:`LegacySessions` wraps the pluggable :class:`~mcpkit.transports.http._server.session_store.
SessionStore`: it creates sessions, looks them up, ends them (DELETE, idle reaping, shutdown) and
releases everything attached (tasks cancelled, pending requests failed, events deleted).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcpkit._runtime.pending import PendingRequest
from mcpkit.protocol._cancellation import cancel_params, cancelled_request_id
from mcpkit.protocol._codec import encode_message
from mcpkit.protocol._connection import (
    CancelReceived,
    Event,
    Ignored,
    NotificationReceived,
    ServerConnection,
)
from mcpkit.protocol._errors import (
    ConnectionClosed,
    JSONRPCError,
    LocalProtocolError,
    RequestTimeout,
)
from mcpkit.protocol._inflight import InboundRequest, OutboundRequests
from mcpkit.transports.http._server.event_store import EventStore, post_stream_id
from mcpkit.transports.http._server.parked import ParkedRequests
from mcpkit.transports.http._server.peers import UNKNOWN_PEER, PeerTable
from mcpkit.transports.http._server.pipe import EventPipe, PipeState
from mcpkit.transports.http._server.servable import HttpServable
from mcpkit.transports.http._server.session_store import (
    MemorySessionStore,
    SessionLimitReached,
    SessionRecord,
    SessionStore,
)
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)
from mcpkit.types._method_names import CANCELLED_NOTIFICATION as CANCELLED

__all__ = [
    "GET_STREAM_ID",
    "MAX_SESSIONS_PER_PEER",
    "REAP_INTERVAL_SECONDS",
    "LegacySessionState",
    "LegacySessions",
    "PeerSessionLimitReached",
    "RequestHandle",
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
MAX_SESSION_REQUESTS: Final = 4096
"""The client's requests one session may have in flight at once; more are refused (-32603)."""
CLOSE_GRACE_SECONDS: Final = 5.0
"""How long a session's end waits for its cancelled requests to unwind."""
MAX_SESSIONS_PER_PEER: Final = 2_500
"""Sessions one peer (IPv4 address or IPv6 ``/64``) may hold in this process: a quarter of the
default table, so one client cannot fill it. At the cap the peer's own least recently used idle
session is ended to make room (clients that never send DELETE keep working)."""


Relay = Callable[[str, str, Any], Awaitable[None]]
"""``(kind, session id, payload)``: hand something to the other workers of a deployment."""
PRINCIPAL_SNAPSHOT_KEY: Final = "mcpkit.principal"
"""Where a shared store's session snapshot keeps who created the session."""


class PeerSessionLimitReached(SessionLimitReached):
    """One peer holds its maximum of sessions and all of them are busy (answer 429)."""


class RequestHandle:
    """What the session holds of one request it serves: the task running its handler, and why
    the session stopped it (``None`` while nobody did). Stopping goes through :meth:`cancel`, so
    whoever serves the request can tell the session's cancellation (the client's
    ``notifications/cancelled``, the session's end) from the HTTP server cancelling it."""

    __slots__ = ("reason", "task")

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        self.reason: str | None = None

    def cancel(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        if self.task is not None and not self.task.done():
            self.task.cancel()

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


SessionEngine = ServerConnection[PendingRequest, RequestHandle]
"""A session's protocol state: the runtime's pending requests ride on our requests, handles on
the client's."""


def new_engine(supported_versions: Any, *, shared: bool = False) -> SessionEngine:
    """The protocol state of one session, sized for it (the tables stay empty while idle)."""
    engine: SessionEngine = ServerConnection(
        tuple(supported_versions),
        max_outbound=MAX_PENDING_SERVER_REQUESTS,
        max_inbound=MAX_SESSION_REQUESTS,
    )
    if shared:
        # Other workers serve this session too: our request ids must not collide with theirs
        # (ids stay below 2**53 for JavaScript clients).
        engine.outbound = OutboundRequests(
            MAX_PENDING_SERVER_REQUESTS, first_id=secrets.randbelow(2**52) + 1
        )
    return engine


class LegacySessionState:
    """The server's per-session state (see the module docstring).

    ``engine`` is the session's protocol state; ``connection`` the server framework's per-session
    state, which shares the engine's lifecycle (so the dispatcher never feeds it again).
    """

    __slots__ = (
        "_stream_tag",
        "_streams",
        "closed",
        "connection",
        "engine",
        "get_pipe",
        "id",
        "parked",
        "peer",
        "pipes",
        "principal",
        "saved",
        "seen",
        "store",
    )

    def __init__(
        self,
        session_id: str,
        engine: SessionEngine,
        connection: Any,
        store: EventStore | None,
        peer: str = UNKNOWN_PEER,
        *,
        shared: bool = False,
        parked: ParkedRequests | None = None,
    ) -> None:
        self.id = session_id
        self.peer = peer
        self.principal: str | None = None
        """Who created the session (:func:`~mcpkit.protocol._principal.principal_of`); only
        they may use or end it."""
        self.parked = parked if parked is not None else ParkedRequests()
        """The server's table of requests whose client went away (bounded: see ``_parked``)."""
        self.engine = engine
        self.connection = connection
        self.store = store
        self.get_pipe: EventPipe | None = None
        self.pipes: dict[str, EventPipe] = {}
        self.closed = False
        self.saved: Any = None
        """The connection snapshot last written to a shared session store."""
        self.seen = 0.0
        """When this process last served the session (shared stores: idle copies are dropped)."""
        self._streams = itertools.count(1)
        self._stream_tag = ""
        if shared:
            # Our stream ids must not collide with other workers', and messages for the client
            # go to the shared GET stream whoever holds its connection.
            self._stream_tag = secrets.token_hex(4) + "-"
            self.ensure_get_pipe()

    @property
    def protocol_version(self) -> str | None:
        return self.engine.protocol_version

    @property
    def busy(self) -> bool:
        """Whether the session is in use right now (a handler runs or its GET stream is open)."""
        if any(entry.value.running for entry in self.engine.inbound):
            return True
        return self.get_pipe is not None and self.get_pipe.state is PipeState.SSE

    def new_stream_id(self, request_id: RequestId | None = None) -> str:
        """A POST stream's id; it carries ``request_id`` (:func:`post_stream_id`)."""
        return post_stream_id(f"post-{self._stream_tag}{next(self._streams)}", request_id)

    def ensure_get_pipe(self) -> EventPipe:
        """The standalone stream's pipe; it exists from the first GET for the session's life."""
        if self.get_pipe is None:
            self.get_pipe = EventPipe(
                GET_STREAM_ID, session_id=self.id, store=self.store, state=PipeState.DETACHED
            )
        return self.get_pipe

    # -- the send point ----------------------------------------------------------------------

    def send(
        self, message: Message, protocol_version: str | None = None, method: str | None = None
    ) -> Message:
        """Every message the server writes to this session's client passes here: the engine
        checks it against the lifecycle, shapes it for the negotiated revision and lets the
        outbound observers see it; the result is what to encode."""
        return self.engine.send(message, protocol_version, method)

    # -- the client's requests ---------------------------------------------------------------

    def admit(self, request: Request) -> InboundRequest[RequestHandle]:
        """Let the engine judge one of the client's requests and start tracking it; raises the
        JSON-RPC error to answer it with (a reused in-flight id -32600, a second ``initialize``,
        too many in flight -32603)."""
        return self.engine.receive_request(request, RequestHandle())

    def started(
        self, request_id: RequestId, task: asyncio.Task[Any] | None, pipe: EventPipe | None
    ) -> InboundRequest[RequestHandle] | None:
        """The admitted request ``request_id`` now runs in ``task`` (``None``: inline, in the
        calling task); a resumable ``pipe`` is kept for ``Last-Event-ID`` while it runs. Both are
        forgotten when the task ends (running inline: at :meth:`done`, which the caller owes)."""
        entry = self.engine.inbound.get(request_id)
        if entry is None:
            return None
        handle = entry.value
        handle.task = task if task is not None else asyncio.current_task()
        if pipe is not None and pipe.resumable:
            self.pipes[pipe.stream_id] = pipe
        if task is not None:

            def forget(_: object) -> None:
                self.done(entry, pipe)

            task.add_done_callback(forget)
            if handle.reason is not None:  # cancelled before its task existed
                task.cancel()
        return entry

    def started_inline(
        self, entry: InboundRequest[RequestHandle], task: asyncio.Task[Any], pipe: EventPipe | None
    ) -> InboundRequest[RequestHandle] | None:
        """:meth:`started` for the admitted ``entry``, served in ``task``, the caller's own (an
        HTTP request's task, which outlives the handler): the caller owes :meth:`done`.
        ``None`` when the engine no longer tracks it (the session ended)."""
        if self.engine.inbound.get(entry.id) is not entry:
            return None
        entry.value.task = task
        if pipe is not None and pipe.store is not None:
            self.pipes[pipe.stream_id] = pipe
        return entry

    def done(self, entry: InboundRequest[RequestHandle], pipe: EventPipe | None = None) -> None:
        """The request is over (answered, cancelled or abandoned): the engine forgets it."""
        self.parked.unpark(entry.value)
        if self.engine.inbound.get(entry.id) is entry:
            self.engine.request_done(entry.id)
        if pipe is not None and self.pipes.get(pipe.stream_id) is pipe:
            del self.pipes[pipe.stream_id]

    # -- notifications from the client -------------------------------------------------------

    def receive_notification(self, note: Notification) -> Event:
        """Feed a client notification to the engine and act on what it says: a cancel stops the
        named request's handler (no answer is due). The event tells the caller the rest:
        :class:`NotificationReceived` for the server (``notifications/initialized``, …),
        :class:`Ignored` for a message to drop (a cancel naming nothing in flight here)."""
        event = self.engine.receive_notification(note)
        if isinstance(event, CancelReceived):
            handle: RequestHandle = event.entry.value
            handle.cancel(event.reason)
        elif isinstance(event, Ignored):
            level = logging.WARNING if event.malformed else logging.DEBUG
            logger.log(level, "session %s…: ignored %s: %s", self.id[:8], note.method, event.reason)
        return event

    def cancel(self, request_id: RequestId) -> bool:
        """A cancel another worker relayed: stop that request's handler if it runs here."""
        note = Notification(CANCELLED, cancel_params(request_id, "cancelled by the client"))
        return isinstance(self.receive_notification(note), CancelReceived)

    # -- server → client requests ------------------------------------------------------------

    async def request(
        self,
        pipe: EventPipe | None,
        method: str,
        params: JSONObject | None,
        timeout: float | None,
    ) -> JSONObject:
        """Send a request to the client on ``pipe`` (or the GET stream) and await its answer.

        The engine gives it its id and refuses what may not be sent now (anything but ping
        before ``notifications/initialized``, a capability the client did not declare, too many
        awaiting answers). When we stop waiting (deadline, the caller cancelled), the client is
        told with ``notifications/cancelled`` and a late answer is dropped.
        """
        target = pipe if pipe is not None and pipe.deliverable else self.get_pipe
        if self.closed:
            raise ConnectionClosed(f"session {self.id[:8]}… has ended")
        if target is None or not target.deliverable:
            raise ConnectionClosed(
                f"cannot send {method} to the client: its request stream is gone and it has no "
                "GET stream open (enable an event store for resumable streams)"
            )
        loop = asyncio.get_running_loop()
        pending = PendingRequest(loop.create_future(), method, None)
        engine = self.engine
        request = engine.start_request(method, params, pending)
        request_id: int = request.id  # type: ignore[assignment]  # ours are integers
        try:
            await target.emit(encode_message(self.send(request, None, method)))
            # The deadline counts from here: the request is out (an emit never waits on the
            # client reading: the pipe buffers, or the event store keeps it for a resume).
            pending.sent = True
            if timeout is not None:
                pending.arm(loop, timeout, None)
            try:
                return await pending.future
            except RequestTimeout:
                await self._cancel_remote(target, request_id, "request timed out")
                raise
            except asyncio.CancelledError:
                future = pending.future
                if future.done() and not future.cancelled():
                    future.exception()  # mark retrieved: an answer may have raced the cancel
                await asyncio.shield(self._cancel_remote(target, request_id, "cancelled"))
                raise
        finally:
            pending.disarm()
            engine.end_request(request_id)

    async def _cancel_remote(self, target: EventPipe, request_id: int, reason: str) -> None:
        """Tell the client we gave up on one of our requests (never ``initialize``-like ones:
        the engine returns nothing to send then)."""
        note = self.engine.cancel_request(request_id, reason)
        if note is None or self.closed or not target.deliverable:
            return
        try:
            await target.emit(encode_message(self.send(note, None, note.method)))
        except Exception as exc:  # the stream went away meanwhile: nothing else to do
            logger.debug("session %s…: could not send a cancel: %r", self.id[:8], exc)

    def resolve(self, answer: Response | ErrorResponse) -> bool:
        """The client answered one of our requests; ``False`` if we were not waiting for it
        (late after a timeout or cancel, bogus, or another worker's)."""
        if answer.id is None:
            return False
        entry = self.engine.receive_response(answer)
        if entry is None:
            return False
        future = entry.value.future
        if future.done():
            return True
        if isinstance(answer, ErrorResponse):
            future.set_exception(JSONRPCError.from_error_object(answer.error))
        else:
            future.set_result(answer.result)
        return True

    # -- the end -----------------------------------------------------------------------------

    async def close(self, *, only_here: bool = False) -> None:
        """End the session: cancel handlers, fail pending requests, end streams, drop events.

        ``only_here``: end only this process's part of a session that lives on in a shared
        store (shutdown, an idle local copy, or another worker ended it and drops the events):
        its streams and events in the store are left alone.
        """
        if self.closed:
            return
        self.closed = True
        engine = self.engine
        for pending in engine.fail_all():
            future = pending.value.future
            if not future.done():
                future.set_exception(ConnectionClosed(f"session {self.id[:8]}… ended"))
                future.exception()  # mark retrieved: the tool may be gone already
        served = engine.close()  # closes the lifecycle too: nothing more is processed
        tasks = [entry.value.task for entry in served if entry.value.running]
        for entry in served:
            entry.value.cancel("the session ended")
        if self.get_pipe is not None:
            if only_here:
                self.get_pipe.abandon()  # the shared GET stream goes on (other workers write it)
            else:
                await self.get_pipe.finish(None)
        for pipe in list(self.pipes.values()):
            pipe.wake()
        current = asyncio.current_task()
        waiting = [task for task in tasks if task is not None and task is not current]
        if waiting:
            # an inline request's task is its HTTP request's: it still ends its response
            await asyncio.wait(waiting, timeout=CLOSE_GRACE_SECONDS)
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
        self.parked = ParkedRequests()
        """Requests of these sessions whose client went away (bounded; see ``_parked``)."""
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
        self._memory = store if type(store) is MemorySessionStore else None
        """The store, when it is the default in-memory one (exactly: a subclass may override
        ``touch``, so it is awaited): :meth:`lookup` then finds a session without awaiting."""
        self.local = self._memory is not None
        """Sessions are found without awaiting (:meth:`lookup`): the default in-memory store."""
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
            try:
                session = await self._store.create(
                    protocol_version=protocol_version, now=self.clock()
                )
            except SessionLimitReached:
                if not await self._make_room_for(peer):
                    raise
                session = await self._store.create(
                    protocol_version=protocol_version, now=self.clock()
                )
        state = self._new_state(session.id, peer)
        state.seen = self.clock()
        session.state = state
        self._local[session.id] = state
        if not self.shared:
            self._peers.add(peer, session.id)
        return state

    def _new_state(self, session_id: str, peer: str) -> LegacySessionState:
        """A session's state: its engine, and the server's per-session state sharing the
        engine's lifecycle (which only the engine feeds)."""
        engine = new_engine(self._server.supported_versions, shared=self.shared)
        connection = self._server.new_connection(session_id, lifecycle=engine.lifecycle)
        return LegacySessionState(
            session_id,
            engine,
            connection,
            self._event_store,
            peer,
            shared=self.shared,
            parked=self.parked,
        )

    async def _make_room_for(self, peer: str) -> bool:
        """The table is full: end the least recently used idle session of the peer holding the
        most, if that peer holds more than ``peer`` (a few peers at their cap must not keep every
        other peer out). ``False`` when no peer holds more, or its sessions are all busy."""
        biggest = self._peers.largest()
        if biggest is None or biggest == peer:
            return False
        if self._peers.count(biggest) <= self._peers.count(peer):
            return False
        try:
            await self._evict_one_of(biggest)
        except PeerSessionLimitReached:
            return False
        return True

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
        if self._memory is not None:
            return self.lookup(session_id)
        now = self.clock()
        session = await self._store.touch(session_id, now)
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
        state.seen = now
        self._peers.used(state.peer, session_id)
        return state

    def lookup(self, session_id: str) -> LegacySessionState | None:
        """:meth:`find` when :attr:`local`, without awaiting (every request does it)."""
        assert self._memory is not None
        now = self.clock()
        session = self._memory.touch_now(session_id, now)
        if session is None:
            return None
        state = _state_of(session) or self._local.get(session_id)
        if state is None or state.closed:
            return None
        state.seen = now
        self._peers.used(state.peer, session_id)
        return state

    def send_from_snapshot(self, snapshot: Any, message: Message) -> Message | None:
        """``message`` as the session a shared store's ``snapshot`` describes sends it: through
        the send point of an engine rebuilt from it (shaped for the session's revision, seen by
        the outbound observers), or ``None`` when its lifecycle forbids it now (before
        ``notifications/initialized``, or no snapshot yet). For fan-out to sessions other
        workers may hold: nothing is touched, kept or tracked."""
        if not isinstance(snapshot, dict):
            return None
        engine = new_engine(self._server.supported_versions)
        restore = getattr(
            self._server.new_connection(None, lifecycle=engine.lifecycle), "restore", None
        )
        if restore is not None:
            restore(snapshot)
        try:
            return engine.send(message)
        except LocalProtocolError:
            return None

    def _rebuild(self, session: SessionRecord) -> LegacySessionState | None:
        """Serve a session another worker created, from the shared store's snapshot."""
        if session.snapshot is None:
            return None  # its initialize has not been answered yet
        state = self._new_state(session.id, UNKNOWN_PEER)
        self._refresh(state, session.snapshot)
        if self.on_rebuild is not None:
            self.on_rebuild(state)
        self._local[session.id] = state
        return state

    @staticmethod
    def _refresh(state: LegacySessionState, snapshot: dict[str, Any]) -> None:
        restore = getattr(state.connection, "restore", None)
        owner = snapshot.get(PRINCIPAL_SNAPSHOT_KEY)
        state.principal = owner if isinstance(owner, str) else None
        if restore is not None:
            restore({k: v for k, v in snapshot.items() if k != PRINCIPAL_SNAPSHOT_KEY})
        state.saved = snapshot

    async def sync(self, state: LegacySessionState) -> None:
        """Write the session's connection state to a shared store if it changed."""
        if not self.shared:
            return
        snapshot_of = getattr(state.connection, "snapshot", None)
        save = getattr(self._store, "save_snapshot", None)
        if snapshot_of is None or save is None:
            return
        snapshot = {**snapshot_of(), PRINCIPAL_SNAPSHOT_KEY: state.principal}
        if snapshot != state.saved:
            await save(state.id, snapshot, state.saved)
            state.saved = snapshot

    async def receive_answer(
        self, state: LegacySessionState, answer: Response | ErrorResponse
    ) -> None:
        """The client POSTed an answer to a server→client request: resolve ours, hand another
        worker's on, drop the rest (late or bogus; a response is never answered)."""
        if state.resolve(answer):
            return
        if self.shared:
            await self.forward("answer", state.id, answer)  # another worker may wait for it
        else:
            logger.debug("dropped an answer to unknown server request %r", answer.id)

    async def receive_notification(self, state: LegacySessionState, note: Notification) -> bool:
        """The client POSTed a notification: the session's engine takes it (a cancel stops its
        handler here, or goes to the worker running it). ``True`` when the server should see
        it too; the caller then calls :meth:`sync` (``initialized`` changes the session)."""
        event = state.receive_notification(note)
        if isinstance(event, NotificationReceived):
            return True
        if isinstance(event, Ignored) and note.method == CANCELLED and self.shared:
            target = cancelled_request_id(note.params)
            if target is not None:
                await self.forward("cancel", state.id, target)  # its handler may run elsewhere
        return False

    async def forward(self, kind: str, session_id: str, payload: Any) -> None:
        """Hand an answer (``answer``) or a cancellation (``cancel``) this process could not
        use to the other workers; the one waiting for it acts on it."""
        if self.relay is not None:
            await self.relay(kind, session_id, payload)

    async def on_relayed(self, kind: str, session_id: str, payload: Any) -> None:
        """Another worker relayed something about a session (see :meth:`forward`)."""
        if kind == "end":
            # a store that caches records drops this one now, whichever of Redis' messages
            # (this one on the bus, the cache's invalidation) this process reads first
            forget = getattr(self._store, "forget", None)
            if forget is not None:
                forget(session_id)
        state = self._local.get(session_id)
        if state is None:
            return
        if kind == "answer" and isinstance(payload, Response | ErrorResponse):
            state.resolve(payload)
        elif kind == "cancel" and isinstance(payload, int | str) and not isinstance(payload, bool):
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
            idle = not state.busy and not state.engine.outbound and not state.pipes
            if state.seen < limit and idle:
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

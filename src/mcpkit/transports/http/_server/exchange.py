"""Serving one JSON-RPC request over one POST, and draining SSE streams to HTTP responses.

The handler emits into the request's :class:`EventPipe`; the coroutine that owns the HTTP
response (the *writer*) decides the shape of the answer and writes it:

1. **Pending**: wait until the handler finishes, emits something, asks to close the stream, or
   runs longer than ``sse_after``. A handler that finishes silently gets a plain JSON answer.
2. **SSE**: send the headers, the priming event (an id and ``retry``, when the stream is
   resumable), then everything emitted, with comment keep-alives when quiet, until the final
   response. With ``X-Accel-Buffering: no`` so proxies do not hold the events back.

Every request runs its handler **inline**, in the HTTP request's own task: most handlers answer
without waiting, and then there is no handler task, no timer and no extra loop iteration; the
answer is written directly — JSON, or with ``sse_after=0`` one SSE body whose events are all known
(with a ``Content-Length``: two writes instead of a chunked stream's three). The writer is
started in a task only when it is needed — the handler emits a message, asks to close the
stream, or outlives :data:`WATCH_AFTER_SECONDS` (or ``sse_after``, if shorter) — and from then on
it watches for the client hanging up. A legacy session's request is registered in the session
as running in this task (:class:`_SessionRequest`): ``notifications/cancelled`` and the session's
end stop it through the session's ``RequestHandle``, which records that the session asked, so
the request can tell that from the HTTP server cancelling its task.

When the client goes away the eras differ: a 2026-07-28 request is **cancelled** (closing the
stream is the cancel signal; stateless legacy too, as nobody could receive the answer), a legacy
session's keeps running (a disconnect is not a cancellation) and its messages go to the event
store for a resume, or nowhere. An ASGI server that cancels the request's task (some do on a
disconnect, others at shutdown) stops the handler in both eras: it runs in that task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

import msgspec

from mcpkit._runtime.concurrency import cancel_and_wait
from mcpkit._runtime.step import Pending, finish, step
from mcpkit.protocol._codec import encode_message
from mcpkit.protocol._errors import ConnectionClosed, InternalError, JSONRPCError
from mcpkit.protocol._http_routing import status_for_error
from mcpkit.protocol._inflight import InboundRequest
from mcpkit.protocol._shape import prepare_outbound
from mcpkit.protocol._sse import encode_event
from mcpkit.transports.http._server.legacy_sessions import LegacySessionState, RequestHandle
from mcpkit.transports.http._server.parked import release
from mcpkit.transports.http._server.pipe import EventPipe, Item, PipeState
from mcpkit.transports.http._server.session_store import StateUnavailable
from mcpkit.transports.http._server.sse_response import (
    Headers,
    HttpResponse,
    Receive,
    watch_disconnect,
)
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    Response,
)
from mcpkit.types._versions import Era

__all__ = [
    "CANCEL_GRACE_SECONDS",
    "DEFAULT_RETRY_MS",
    "KEEPALIVE_SECONDS",
    "SSE_AFTER_SECONDS",
    "GetStreamOutbound",
    "RequestOutbound",
    "Answer",
    "Spawn",
    "StreamOptions",
    "answer",
    "no_session_to_ask",
    "pump",
    "serve_exchange",
    "serve_stream",
]

logger = logging.getLogger("mcpkit.http")

KEEPALIVE_SECONDS: Final = 15.0
"""A quiet SSE stream gets a ``:`` comment this often (proxies and idle timeouts)."""
SSE_AFTER_SECONDS: Final = 1.0
"""A request still running after this long is answered as an SSE stream (keep-alives, and for
resumable legacy streams a priming id the client can resume from)."""
DEFAULT_RETRY_MS: Final = 1000
"""The ``retry`` (reconnection delay) sent with priming events and before a server-side close."""
WATCH_AFTER_SECONDS: Final = 0.05
"""A request still unanswered after this long gets a task watching for the client hanging up."""
CANCEL_GRACE_SECONDS: Final = 5.0
"""How long a cancelled handler may take to unwind before the request coroutine stops waiting."""


@dataclass(frozen=True, slots=True)
class StreamOptions:
    keepalive: float = KEEPALIVE_SECONDS
    sse_after: float = SSE_AFTER_SECONDS
    retry_ms: int = DEFAULT_RETRY_MS


def no_session_to_ask(method: str) -> ConnectionClosed:
    """The error of a request that cannot ask the client anything (a 2026 request, a stateless
    POST): no session carries the client's answer back."""
    return ConnectionClosed(
        f"cannot send {method}: this request has no session to carry the client's answer "
        "(stateless HTTP)"
    )


if TYPE_CHECKING:  # a Protocol class costs every server's start: mypy only

    class Conversation(Protocol):
        """Where a legacy request's messages go through the engine: its session
        (:class:`LegacySessionState`), or the connection of a stateless POST
        (:class:`~mcpkit.transports.http._server.stateless.StatelessConversation`)."""

        def send(
            self, message: Message, protocol_version: str | None, method: str | None
        ) -> Message: ...

        async def request(
            self,
            pipe: EventPipe | None,
            method: str,
            params: JSONObject | None,
            timeout: float | None,
        ) -> JSONObject: ...


class RequestOutbound:
    """The ``Outbound`` of one request: its notifications (and legacy requests) go on its POST."""

    __slots__ = ("_json_only", "_pipe", "_session", "cancel_reason", "prepare", "protocol_version")

    def __init__(
        self,
        pipe: EventPipe | None,
        session: Conversation | None,
        protocol_version: str | None,
        *,
        json_only: bool = False,
    ) -> None:
        self._pipe = pipe
        self._session = session
        self._json_only = json_only
        self.protocol_version = protocol_version
        self.cancel_reason: str | None = None
        self.prepare: Send = prepare_outbound if session is None else session.send
        """The send point of this request's messages: its conversation's engine (a legacy
        request's), if it has one (the callable itself: no call in between per message)."""

    @property
    def pipe(self) -> EventPipe:
        """This request's stream. One that cannot be resumed is made on first use (``None``
        given): most requests are answered without emitting anything."""
        pipe = self._pipe
        if pipe is None:
            pipe = self._pipe = EventPipe("post")
        return pipe

    @property
    def made_pipe(self) -> EventPipe | None:
        """The stream, if it exists yet."""
        return self._pipe

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        if self._json_only:
            logger.debug("JSON-only response: dropping %s", method)
            return
        message = self.prepare(Notification(method, params), self.protocol_version, method)
        await self.pipe.emit(encode_message(message))

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        if self._session is None:
            raise no_session_to_ask(method)
        pipe = None if self._json_only else self.pipe
        return await self._session.request(pipe, method, params, timeout)

    async def close_stream(self, retry_ms: int | None = None) -> bool:
        """End this request's HTTP response but not its stream (SSE polling, SEP-1699)."""
        if self._json_only:
            return False
        return await self.pipe.request_close(retry_ms)


class GetStreamOutbound:
    """Unsolicited messages of a legacy session (list changes, resource updates): the GET stream."""

    __slots__ = ("_session", "protocol_version")

    def __init__(self, session: LegacySessionState) -> None:
        self._session = session
        self.protocol_version: str | None = None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        pipe = self._session.get_pipe
        if pipe is None or not pipe.deliverable:
            return  # the client opened no GET stream: it asked not to be told
        message = self._session.send(Notification(method, params), None, method)
        await pipe.emit(encode_message(message))

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        return await self._session.request(None, method, params, timeout)


Run = Callable[[], Awaitable[JSONObject]]
Send = Callable[[Message, "str | None", "str | None"], Message]
"""A send point: ``(message, protocol_version, method)`` → the message to encode."""
Spawn = Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]]


class Answer(msgspec.Struct, frozen=True):
    """A request's JSON-RPC response, encoded, with the HTTP status to send it with.

    A frozen struct, not a ``NamedTuple``: every request makes one, and a named tuple's
    ``__new__`` is a Python function (a frame per request); a struct is built in C.
    """

    data: bytes
    status: int
    ok: bool
    """A result (not an error)."""


async def answer(
    run: Run, request: Request, version: str | None, era: Era, *, send: Send = prepare_outbound
) -> Answer:
    """Run a request to its JSON-RPC response (see :class:`Answer`), which leaves through
    ``send`` (a legacy session's engine; for the rest, shaping and the observers).

    A handler's ``JSONRPCError`` becomes that error (with the era's status), anything else an
    internal error that is logged; a result that cannot be encoded is an internal error too.
    Cancellation propagates: a cancelled request has no response.
    """
    status = 200
    try:
        result = await run()
        message: Response | ErrorResponse = Response(request.id, result)
    except JSONRPCError as exc:
        message = ErrorResponse(request.id, exc.to_error_object())
        # The request itself was valid (it reached its handler). 2026-07-28 gives some errors
        # their own statuses; a legacy session answers every such error with 200, whatever
        # its code (as it already does over SSE), so a client reads it from the body.
        status = status_for_error(exc.code, era) if era == "modern" else 200
    except StateUnavailable as exc:
        # The shared state (Redis) is down: say so, and let a 2026 client see 503 (retry later)
        logger.warning("%s failed: %s", request.method, exc)
        unavailable = InternalError(f"Service Unavailable: {exc}")
        message = ErrorResponse(request.id, unavailable.to_error_object())
        status = 503 if era == "modern" else 200
    except Exception:
        logger.exception("%s failed inside the server", request.method)
        message = ErrorResponse(
            request.id,
            InternalError(f"Internal error while handling {request.method}").to_error_object(),
        )
    sent = send(message, version, request.method)
    try:
        return Answer(encode_message(sent), status, isinstance(sent, Response))
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        logger.error("the answer to %s cannot be encoded as JSON: %s", request.method, exc)
        what = "result" if isinstance(sent, Response) else "error"
        error = InternalError(f"the {what} of {request.method} could not be encoded as JSON")
        # the answer that goes instead leaves through the same send point: observed, shaped
        fallback = send(ErrorResponse(request.id, error.to_error_object()), version, request.method)
        return Answer(encode_message(fallback), 200, False)


async def serve_exchange(
    response: HttpResponse,
    receive: Receive,
    *,
    run: Run,
    request: Request,
    outbound: RequestOutbound,
    era: Era,
    session: LegacySessionState | None,
    spawn: Spawn,
    options: StreamOptions,
    json_only: bool = False,
    headers: Headers = (),
    entry: InboundRequest[RequestHandle] | None = None,
) -> None:
    """Serve ``request`` on this POST: run its handler in this task, answer directly unless a
    writer had to be started (see the module docstring). A session's request comes with its
    in-flight ``entry`` (from :meth:`LegacySessionState.admit`); its stream is ``outbound``'s."""
    send = outbound.prepare  # the conversation's engine (a session, a stateless POST) or none
    # The handler runs in this task until it first waits; most answer before that, having sent
    # nothing else, and then nothing else is needed: no task look-up, no timer, no writer, and
    # nobody can have cancelled it (nothing else ran meanwhile).
    reply = step(answer(run, request, outbound.protocol_version, era, send=send))
    pipe = outbound.made_pipe
    if (
        isinstance(reply, Pending)
        or (pipe is not None and (pipe.has_items or pipe.close_requested))
        or (entry is not None and entry.value.reason is not None)
    ):
        await _serve_further(
            reply, response, receive, request, outbound.pipe, outbound, session, entry, spawn,
            options, json_only, headers,
        )  # fmt: skip
        return
    if session is not None and entry is not None:
        session.done(entry, pipe)
    if json_only or options.sse_after > 0:
        await response.json_bytes(reply.status, reply.data, _with_retry(reply, headers))
    elif pipe is None or pipe.store is None:  # always SSE (sse_after=0), one event: one body
        if pipe is not None:
            pipe.abandon()  # over: nothing more can be emitted into it
        await response.sse_complete(encode_event(reply.data), headers)
    else:  # the same, resumable: the event is numbered and stored as on a live stream
        await _sse_complete(response, pipe, reply, options, headers)


async def _serve_further(
    first: Answer | Pending,
    response: HttpResponse,
    receive: Receive,
    request: Request,
    pipe: EventPipe,
    outbound: RequestOutbound,
    session: LegacySessionState | None,
    entry: InboundRequest[RequestHandle] | None,
    spawn: Spawn,
    options: StreamOptions,
    json_only: bool,
    headers: Headers,
) -> None:
    """The rest of :func:`serve_exchange` for a handler that waits (``first`` is
    :class:`Pending`), or that emitted or asked to close its stream: from here on it is tracked
    by its task, and a writer answers once it is started (see the module docstring).

    The watch and SSE delays count from here, the handler's first wait: a handler that never
    waits is answered before either could matter.
    """
    # One look-up of the task (each asyncio.get_running_loop()/current_task() on 3.11 makes a
    # getpid system call); the loop and every object below take it from here.
    task = asyncio.current_task()
    assert task is not None
    loop = task.get_loop()
    since = loop.time()
    tracked: _SessionRequest | None = None
    if session is not None and entry is not None:
        tracked = _SessionRequest(session, entry, pipe, task)
        if tracked.cancelled_by_session:
            task.cancel()  # cancelled before it started: it ends below with no answer
    writer = _InlineWriter(
        response, receive, pipe, outbound, spawn, options, json_only, headers, since, task, tracked
    )
    try:
        if isinstance(first, Pending):
            try:
                if not json_only:
                    pipe.on_emit = writer.start
                if pipe.has_items or pipe.close_requested:
                    writer.start()
                else:
                    wake_at = since + WATCH_AFTER_SECONDS
                    if not json_only:
                        wake_at = min(wake_at, since + options.sse_after)
                    writer.arm(wake_at)
                reply: Answer = await finish(first)
            finally:
                writer.disarm()
                pipe.on_emit = None
        else:
            reply = first
            if not json_only and (pipe.has_items or pipe.close_requested):
                writer.start()  # it emitted (or asked to close) before it answered
        if writer.task is None:
            if tracked is not None:
                tracked.finished()
            if json_only or options.sse_after > 0:
                await response.json_bytes(reply.status, reply.data, _with_retry(reply, headers))
            elif pipe.store is None:
                pipe.abandon()
                await response.sse_complete(encode_event(reply.data), headers)
            else:
                await _sse_complete(response, pipe, reply, options, headers)
            return
        if writer.cancelled_handler:
            return  # the client left; the writer stopped waiting for an answer nobody reads
        await pipe.finish(reply.data, reply.status)
        if tracked is not None:
            tracked.finished()  # as a handler task ended once its answer was in the pipe
        await writer.task
    except asyncio.CancelledError:
        if tracked is not None:
            tracked.finished()
        pipe.abandon()  # no response for a cancelled request
        by_session = tracked is not None and tracked.cancelled_by_session
        if (writer.cancelled_handler or by_session) and task.uncancel() == 0:
            if writer.cancelled_handler:
                return  # the client left and the writer cancelled us: the request is over
            # notifications/cancelled or the session's end: the request gets no answer, which
            # over HTTP is an SSE stream that ends without an event (see _pending)
            writer.start()
            assert writer.task is not None
            await writer.task
            return
        # The HTTP server gave up on this request (shutdown, or its own disconnect handling).
        pipe.detach(pipe.generation)
        if writer.task is not None:
            writer.task.cancel()
        raise
    finally:
        if tracked is not None:
            tracked.finished()


_RETRY_AFTER: Final = (b"retry-after", b"1")


def _with_retry(reply: Answer, headers: Headers) -> Headers:
    """A 503 (the shared state is unavailable) says when to try again, as every 503 does."""
    return (*headers, _RETRY_AFTER) if reply.status == 503 else headers


async def _sse_complete(
    response: HttpResponse, pipe: EventPipe, reply: Answer, options: StreamOptions, headers: Headers
) -> None:
    """Answer a resumable stream whose every event is known now with one body: the events get
    their ids (and are stored) as on a live stream, after a priming event."""
    await pipe.finish(reply.data, reply.status)
    prime, items = await pipe.start_sse()
    events = [] if prime is None else [encode_event(b"", id=prime, retry=options.retry_ms)]
    events += [encode_event(data, id=event_id) for event_id, data in items]
    await response.sse_complete(b"".join(events), headers)


class _SessionRequest:
    """A legacy session's request whose handler runs in the HTTP request's task.

    The session tracks it from here to :meth:`finished` (its engine's in-flight entry, whose
    :class:`~mcpkit.transports.http._server.legacy_sessions.RequestHandle` names this task), and
    stops
    it only through that handle (``notifications/cancelled``, the session's end), which records
    the reason first: so the request can tell the session cancelling it from the HTTP server
    doing so. A writer that lost its client waits here until the handler is over.
    """

    __slots__ = ("_entry", "_over", "_pipe", "_session", "_task", "_waiter")

    def __init__(
        self,
        session: LegacySessionState,
        entry: InboundRequest[RequestHandle],
        pipe: EventPipe,
        task: asyncio.Task[Any],
    ) -> None:
        self._session = session
        self._pipe = pipe
        self._task = task
        self._entry = session.started_inline(entry, task, pipe)
        self._over = False
        self._waiter: asyncio.Event | None = None

    @property
    def cancelled_by_session(self) -> bool:
        return self._entry is not None and self._entry.value.reason is not None

    def finished(self) -> None:
        """The handler is done (answered, failed or cancelled): the session forgets it."""
        if self._over:
            return
        self._over = True
        if self._entry is not None:
            self._session.done(self._entry, self._pipe)
        if self._waiter is not None:
            self._waiter.set()

    def park(self) -> None:
        """The client went away and the handler waits on: the request's task no longer holds a
        serving slot, and it counts against the session's and the peer's bounds on such requests
        (the oldest beyond them is cancelled; see ``_parked``)."""
        if self._over or self._entry is None:
            return
        release(self._task)
        session = self._session
        session.parked.park(self._entry.value, session.id, session.peer)

    async def wait(self) -> None:
        if not self._over:
            if self._waiter is None:
                self._waiter = asyncio.Event()
            await self._waiter.wait()


class _Watch:
    """Notices the client hanging up. The watching task starts only once it matters (the
    request outlived :data:`WATCH_AFTER_SECONDS`, or its answer streams): most requests are
    answered sooner, and skipping a task per request is a measurable saving."""

    __slots__ = ("_pipe", "_receive", "_spawn", "disconnected", "task")

    def __init__(self, receive: Receive, spawn: Spawn, pipe: EventPipe) -> None:
        self._receive = receive
        self._spawn = spawn
        self._pipe = pipe
        self.disconnected = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = self._spawn(watch_disconnect(self._receive, self._on_disconnect))

    def _on_disconnect(self) -> None:
        self.disconnected.set()
        self._pipe.wake()

    async def stop(self) -> None:
        """Stop the watching task, if it started, and wait until it has."""
        await cancel_and_wait(self.task)


class _Due:
    """What the timer of :func:`_pending` stands for, marked when it fires.

    The loop's clock is not compared with the times instead: a loop with a coarse clock
    (uvloop's is in milliseconds) may run a timer a little before its time as computed here,
    and a wait after such a wake-up would have no timer left to end it (a slow request then
    hung, never promoted to SSE)."""

    __slots__ = ("_pipe", "answer", "watch")

    def __init__(self, pipe: EventPipe) -> None:
        self._pipe = pipe
        self.watch = False
        self.answer = False

    def mark(self, watch: bool, answer: bool) -> None:
        self.watch = self.watch or watch
        self.answer = self.answer or answer
        self._pipe.wake()


async def _pending(
    pipe: EventPipe,
    watch: _Watch,
    options: StreamOptions,
    json_only: bool,
    since: float | None = None,
) -> bool:
    """Phase 1. Returns ``True`` to answer with SSE, ``False`` for JSON (or a vanished client).

    One timer at a time wakes this loop: first to start watching for a disconnect, then to
    promote a slow answer to SSE (never, in JSON-only mode). Both count from ``since`` (the
    loop time the request started; now, by default).
    """
    loop = asyncio.get_running_loop()
    now = loop.time()
    start = now if since is None else since
    watch_at = start + WATCH_AFTER_SECONDS
    deadline = None if json_only else start + options.sse_after
    due = _Due(pipe)
    first = watch_at if deadline is None else min(watch_at, deadline)
    timer: asyncio.TimerHandle | None = loop.call_at(
        first, due.mark, watch_at <= first, deadline is not None and deadline <= first
    )
    try:
        while True:
            if pipe.to_json():
                return False
            if watch.disconnected.is_set():
                pipe.detach(pipe.generation)
                return False
            if pipe.has_items or pipe.close_requested or (pipe.ended and pipe.final is None):
                return True
            now = loop.time()
            if deadline is not None and (due.answer or now >= deadline):
                return True
            if watch.task is None and (due.watch or now >= watch_at):
                watch.start()
                if timer is not None:
                    timer.cancel()
                timer = None if deadline is None else loop.call_at(deadline, due.mark, True, True)
            await pipe.wait()
    finally:
        if timer is not None:
            timer.cancel()


class _InlineWriter:
    """The response side of a request whose handler runs inline (see the module docstring).

    :meth:`start` spawns the writer task, at most once: from the timer when the handler is
    slow, or from the pipe when it emits. Until then the request costs no task and no wake-up.
    """

    __slots__ = (
        "_handler",
        "_headers",
        "_json_only",
        "_options",
        "_outbound",
        "_pipe",
        "_receive",
        "_response",
        "_session_request",
        "_since",
        "_spawn",
        "_timer",
        "cancelled_handler",
        "task",
    )

    def __init__(
        self,
        response: HttpResponse,
        receive: Receive,
        pipe: EventPipe,
        outbound: RequestOutbound,
        spawn: Spawn,
        options: StreamOptions,
        json_only: bool,
        headers: Headers,
        since: float,
        handler: asyncio.Task[Any],
        session_request: _SessionRequest | None = None,
    ) -> None:
        self._response = response
        self._receive = receive
        self._pipe = pipe
        self._outbound = outbound
        self._spawn = spawn
        self._options = options
        self._json_only = json_only
        self._headers = headers
        self._since = since
        self._session_request = session_request
        """Set for a legacy session's request: a disconnect does not cancel it."""
        self._handler = handler
        self.cancelled_handler = False
        """Set when this writer cancelled the handler because the client left."""
        self.task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def arm(self, wake_at: float) -> None:
        """The handler waits: start the writer at ``wake_at`` (now, if past)."""
        loop = self._handler.get_loop()
        if loop.time() >= wake_at:
            self.start()
        elif self.task is None:
            self._timer = loop.call_at(wake_at, self.start)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def start(self) -> None:
        if self.task is None:
            self.task = self._spawn(self._write())

    async def _write(self) -> None:
        pipe = self._pipe
        response = self._response
        watch = _Watch(self._receive, self._spawn, pipe)
        try:
            started = await _pending(pipe, watch, self._options, self._json_only, self._since)
            if started:
                watch.start()
                await _stream_answer(
                    response, pipe, watch.disconnected, self._options, self._headers
                )
            elif pipe.state is PipeState.JSON:
                status = pipe.final_status
                headers = (*self._headers, _RETRY_AFTER) if status == 503 else self._headers
                await response.json_bytes(status, pipe.final or b"", headers)
            if not pipe.ended and (
                pipe.state is not PipeState.SSE or response.broken or watch.disconnected.is_set()
            ):
                pipe.detach(pipe.generation)
                if self._session_request is not None:
                    # Legacy session: a disconnect is not a cancellation. The handler runs on
                    # (the session cancels it if it ends), its messages go to the event store
                    # or nowhere; this task stays until then, so the app still counts it, but
                    # it is parked: no serving slot, and bounded per session and peer.
                    self._session_request.park()
                    await self._session_request.wait()
                    return
                # Closing the stream cancels the request (2026-07-28); stateless legacy: nobody
                # could ever receive the answer, so the work is abandoned too.
                self._cancel_handler("the client closed the stream")
                await self._handler_unwound()
        except asyncio.CancelledError:
            if not pipe.ended:  # the app is shutting down under a running request
                pipe.detach(pipe.generation)
                self._cancel_handler("the server is closing the connection")
            raise
        finally:
            await watch.stop()

    def _cancel_handler(self, reason: str) -> None:
        if self._handler is not None and not self._handler.done():
            self._outbound.cancel_reason = reason
            self.cancelled_handler = True
            self._handler.cancel()

    async def _handler_unwound(self) -> None:
        """Wait (bounded) until the cancelled handler has unwound, as for a handler task: the
        app's idle tracking counts this writer, so it covers the handler's last steps too."""
        if self._handler is not None and not self._handler.done():
            await asyncio.wait([self._handler], timeout=CANCEL_GRACE_SECONDS)


async def _stream_answer(
    response: HttpResponse,
    pipe: EventPipe,
    disconnected: asyncio.Event,
    options: StreamOptions,
    headers: Headers,
) -> None:
    if pipe.close_prime is not None:
        # closed before anything was sent: prime, announce the delay, end (polling)
        retry = pipe.close_retry if pipe.close_retry is not None else options.retry_ms
        if await response.start_sse(headers):
            await response.event(b"", event_id=pipe.close_prime, retry=retry)
        await response.end()
        return
    prime, items = await pipe.start_sse()
    generation = pipe.generation
    if not await response.start_sse(headers):
        return
    if prime is not None and not await response.event(b"", event_id=prime, retry=options.retry_ms):
        return
    await pump(response, pipe, generation, disconnected, options, first=items)


async def pump(
    response: HttpResponse,
    pipe: EventPipe,
    generation: int,
    disconnected: asyncio.Event,
    options: StreamOptions,
    *,
    first: Sequence[Item] = (),
    on_keepalive: Callable[[], Awaitable[Any]] | None = None,
) -> None:
    """Write ``pipe``'s events to ``response`` until the stream ends, the client leaves, the
    server asks to close (polling), or a newer writer takes over."""
    pending = list(first)
    while True:
        for event_id, data in pending:
            if not await response.event(data, event_id=event_id):
                break
        if response.broken or disconnected.is_set():
            pipe.detach(generation)
            return
        if pipe.generation != generation:
            await response.end()  # superseded by a resumed connection
            return
        if pipe.close_requested:
            # SSE polling: from here on the handler's messages only go to the store; what was
            # already queued (stored, numbered) is still sent, then the reconnection delay.
            for event_id, data in pipe.detach(generation):
                if not await response.event(data, event_id=event_id):
                    return
            if pipe.close_retry is not None:
                await response.raw(b"retry: %d\n\n" % pipe.close_retry)
            await response.end()
            return
        if pipe.ended and not pipe.has_items:
            await response.end()
            return
        try:
            async with asyncio.timeout(options.keepalive):
                await pipe.wait()
        except TimeoutError:
            if not await response.comment():
                pipe.detach(generation)
                return
            if on_keepalive is not None:
                await on_keepalive()
        if pipe.generation != generation:
            await response.end()  # superseded: the queued items are the new writer's
            return
        pending = pipe.take()


async def serve_stream(
    response: HttpResponse,
    receive: Receive,
    pipe: EventPipe,
    *,
    spawn: Spawn,
    options: StreamOptions,
    load_replay: Callable[[], Awaitable[list[Item]]] | None = None,
    prime: bool = True,
    headers: Headers = (),
    preamble: bytes = b"",
    on_keepalive: Callable[[], Awaitable[Any]] | None = None,
) -> None:
    """Attach this GET to ``pipe`` (the session's GET stream, or a resumed POST stream).

    ``load_replay`` runs under the pipe's lock, so nothing emitted meanwhile is missed or sent
    twice; ``preamble`` is written right after the headers (the 2024-11-05 ``endpoint`` event).
    """
    disconnected = asyncio.Event()

    def on_disconnect() -> None:
        disconnected.set()
        pipe.wake()

    watcher = spawn(watch_disconnect(receive, on_disconnect))
    try:
        async with pipe.lock:
            replay = await load_replay() if load_replay is not None else None
            generation, items = await pipe.attach(replay)
            prime_id = None
            if prime and pipe.store is not None and pipe.session_id is not None:
                prime_id = await pipe.store.prime(pipe.session_id, pipe.stream_id)
        if not await response.start_sse(headers):
            pipe.detach(generation)
            return
        if preamble:
            await response.raw(preamble)
        if prime_id is not None:
            await response.event(b"", event_id=prime_id, retry=options.retry_ms)
        await pump(
            response, pipe, generation, disconnected, options, first=items,
            on_keepalive=on_keepalive,
        )  # fmt: skip
    finally:
        await cancel_and_wait(watcher)

"""The session engine: JSON-RPC over a :class:`MessageStream`, for either side of a connection.

A :class:`Session` drives one sans-IO :class:`~mcpkit.protocol._connection.Connection` over a
stream: every message read is fed to the connection, which says what it is (a request to serve,
a duplicate id to refuse, the answer to one of ours, a cancel, trusted progress, something to
drop), and every message written passes the connection's one send point. The protocol's books
and rules (in-flight tables, cancellation, progress, the lifecycle when the connection is a
:class:`~mcpkit.protocol._connection.ServerConnection`, batches) live there; the session adds what
needs an event loop: futures, deadlines, tasks, and the concurrency limit. It knows nothing
about MCP methods: the server and client layers give it a request handler and decide what each
method means.

Guarantees:

* Every task belongs to the session (``async with Session(...)``) and is cancelled and awaited
  when it closes.
* When the transport dies, every pending request fails at once with
  :class:`~mcpkit.protocol._errors.ConnectionBroken`; when we close the session, with
  :class:`~mcpkit.protocol._errors.ConnectionClosed`. With a deadline, even a send stuck on a peer
  that stopped reading ends in :class:`~mcpkit.protocol._errors.RequestTimeout`.
* A handler's failure becomes an error response; it never takes the session down, and users
  never see an ``ExceptionGroup``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from mcpkit._runtime.context import (
    NotificationHandler,
    ProgressCallback,
    RequestContext,
    RequestHandler,
)
from mcpkit._runtime.pending import PendingRequest, SharedDeadlines
from mcpkit._runtime.step import resume_now, start_eagerly
from mcpkit._runtime.stream import MessageStream
from mcpkit._runtime.tasks import Slots, TaskSet
from mcpkit.protocol._batch import BatchAnswers
from mcpkit.protocol._connection import (
    CancelReceived,
    Connection,
    Ignored,
    ProgressReceived,
    SubscriptionEnded,
)
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    InternalError,
    JSONRPCError,
    MCPError,
    MessageDecodeError,
    MethodNotFound,
    RemoteProtocolError,
    RequestCancelled,
    RequestTimeout,
    TransportError,
    UsageError,
)
from mcpkit.protocol._inflight import MAX_IN_FLIGHT, InboundRequest
from mcpkit.protocol._progress import ProgressUpdate
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)
from mcpkit.types._method_names import PROGRESS_NOTIFICATION as PROGRESS

__all__ = [
    "DEFAULT_MAX_CONCURRENT_REQUESTS",
    "MAX_PENDING_OUTBOUND",
    "MAX_QUEUED_REQUESTS",
    "SHUTDOWN_GRACE_SECONDS",
    "NotificationHandler",
    "ProgressCallback",
    "RequestContext",
    "RequestHandler",
    "Session",
]

logger = logging.getLogger("mcpkit.session")

DEFAULT_MAX_CONCURRENT_REQUESTS: Final = 64
"""Peer requests handled at once; more wait for a slot."""
MAX_QUEUED_REQUESTS: Final = 4096
"""Peer requests accepted but waiting for a slot; beyond this they are refused at once (-32603)."""
MAX_PENDING_OUTBOUND: Final = MAX_IN_FLIGHT
"""Our own requests awaiting responses."""
SHUTDOWN_GRACE_SECONDS: Final = 2.0
"""How long in-flight handlers may run on after the peer's end of stream."""

SessionConnection = Connection[PendingRequest, RequestContext]
"""The protocol state a session drives (any role: the server passes a ``ServerConnection``)."""


class Session:
    """One JSON-RPC connection. Use as ``async with Session(stream, ...) as session``.

    ``max_concurrent_requests`` peer requests are served at once; up to ``max_queued_requests``
    more wait for a slot, and beyond that a request is refused at once with -32603.
    ``default_timeout`` applies to :meth:`send_request` calls that give none. ``connection`` is
    the protocol state to drive; by default a role-agnostic
    :class:`~mcpkit.protocol._connection.Connection` sized for those limits. ``on_refused`` is
    told of each peer request the connection refuses (the request and the error it is answered
    with), so the layer above can say so in its log: the session itself knows no policy.
    ``explain_broken`` may replace the ``ConnectionBroken`` a request of ours fails with by one
    that says more (the stdio client: the server's exit code and last stderr lines); it is
    awaited in the caller's task, so it may wait for what it wants to say.
    """

    def __init__(
        self,
        stream: MessageStream,
        *,
        request_handler: RequestHandler | None = None,
        notification_handler: NotificationHandler | None = None,
        max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT_REQUESTS,
        default_timeout: float | None = None,
        name: str = "session",
        max_queued_requests: int = MAX_QUEUED_REQUESTS,
        connection: SessionConnection | None = None,
        on_refused: Callable[[Request, JSONRPCError], None] | None = None,
        explain_broken: Callable[[ConnectionBroken], Awaitable[ConnectionBroken]] | None = None,
    ) -> None:
        if max_concurrent_requests < 1 or max_queued_requests < 0:
            raise UsageError(
                "max_concurrent_requests must be at least 1 and max_queued_requests at least 0"
            )
        self._stream = stream
        self._request_handler = request_handler
        self._notification_handler = notification_handler
        self._inline_notifications = notification_handler is not None and not (
            inspect.iscoroutinefunction(notification_handler)
        )
        self._slots = Slots(max_concurrent_requests)
        self._default_timeout = default_timeout
        self._on_refused = on_refused
        self._explain_broken = explain_broken
        self.name = name
        self.connection: SessionConnection = (
            connection
            if connection is not None
            else Connection(
                max_outbound=MAX_PENDING_OUTBOUND,
                max_inbound=max_concurrent_requests + max_queued_requests,
            )
        )
        self._send_nowait: Callable[[Message], Awaitable[None] | None] | None = getattr(
            stream, "send_nowait", None
        )
        """The stream's ``send`` without a coroutine for the usual message (see
        :class:`~mcpkit._runtime.stream.MessageStream`); used for our requests."""
        bind = getattr(stream, "bind_connection", None)
        if bind is not None:
            bind(self.connection)  # a stream that needs the revision reads it from here
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: TaskSet | None = None
        self._deadlines: SharedDeadlines | None = None
        """One timer for the deadlines of all our pending requests (see ``_runtime.pending``)."""
        self._input_ended = asyncio.Event()
        self._failure: TransportError | None = None
        """Set when the transport broke: nothing can be sent any more."""
        self._input_failure: TransportError | None = None
        """Set when the peer's side ended: nothing can be received any more."""
        self._closing = False
        self._eager = False
        """Start request handlers eagerly (see ``_accept_request``)."""

    @property
    def protocol_version(self) -> str | None:
        """The negotiated revision (legacy), used for messages that do not name their own."""
        return self.connection.protocol_version

    @protocol_version.setter
    def protocol_version(self, version: str | None) -> None:
        self.connection.set_protocol_version(version)

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> Session:
        if self._tasks is not None or self._closing:
            raise UsageError(f"{self.name} can only be entered once")
        self._loop = asyncio.get_running_loop()
        self._tasks = TaskSet(self._loop, self.name, logger)
        self._deadlines = SharedDeadlines(self._loop)
        start_push = getattr(self._stream, "start_push", None)
        if start_push is not None and start_push(self._dispatch, self._on_pushed_end):
            self._eager = True  # requests arrive in read callbacks, outside any task
        else:
            self._tasks.spawn(self._read_loop(), name=f"{self.name}-reader")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the session: fail our pending requests, cancel handlers, close the stream."""
        if self._tasks is None or self._closing:
            return
        self._closing = True
        self._fail_pending(ConnectionClosed(f"{self.name} was closed"))
        if self._deadlines is not None:
            self._deadlines.close()
        tasks = self._tasks
        try:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._stream.aclose())
        finally:
            await tasks.aclose()
            self.connection.close()
            self._input_ended.set()  # nothing more will be received: release any waiter

    @property
    def input_ended(self) -> bool:
        """True once the peer's side of the stream ended (EOF or failure)."""
        return self._input_ended.is_set()

    async def wait_input_ended(self) -> None:
        """Wait until the peer closes its side of the stream (e.g. stdin EOF on a server)."""
        await self._input_ended.wait()

    async def drain_handlers(self, timeout: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Give in-flight handlers up to ``timeout`` seconds to finish (used before closing)."""
        tasks = [
            entry.value._task for entry in self.connection.inbound if entry.value._task is not None
        ]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    # -- outbound ------------------------------------------------------------------------------

    async def send_notification(
        self, method: str, params: JSONObject | None = None, *, protocol_version: str | None = None
    ) -> None:
        await self._send(
            Notification(method, params), protocol_version or self.protocol_version, method
        )

    async def send_request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | None = None,
        max_timeout: float | None = None,
        progress_callback: ProgressCallback | None = None,
        protocol_version: str | None = None,
        on_request_id: Callable[[RequestId], None] | None = None,
    ) -> JSONObject:
        """Send a request and wait for its result.

        ``timeout`` is the deadline without news; progress notifications reset it when a
        ``progress_callback`` is given, but never beyond ``max_timeout`` in total. On timeout the
        peer gets ``notifications/cancelled`` and we raise
        :class:`~mcpkit.protocol._errors.RequestTimeout`. If the calling task is cancelled, the
        peer is told too (``initialize`` is never cancelled: the spec forbids it). An error
        response raises the matching :class:`~mcpkit.protocol._errors.JSONRPCError` subclass with
        ``remote=True``.

        ``on_request_id`` is called with the request's id before it is sent: a 2026 client needs
        it to claim the notifications the server tags with the id of a ``subscriptions/listen``.
        """
        loop = self._loop
        if self._closing or loop is None:
            raise ConnectionClosed(f"{self.name} is closed")
        failure = self._failure or self._input_failure
        if failure is not None:
            raise await self._explained(failure)
        pending = PendingRequest(loop.create_future(), method, progress_callback)
        connection = self.connection
        # fresh id, progress token, and the role's rules (TooManyInFlight, LocalProtocolError, a
        # missing capability) before anything is sent
        request = connection.start_request(
            method, params, pending, progress=progress_callback is not None
        )
        request_id: int = request.id  # type: ignore[assignment]  # ours are integers
        version = protocol_version or self.protocol_version
        if timeout is None:
            timeout = self._default_timeout
        try:
            if timeout is not None or max_timeout is not None:
                pending.arm(loop, timeout, max_timeout, self._deadlines)
            elif self._eager:
                pending.caller = asyncio.current_task(loop)  # for resume_now (arm sets it too)
            if on_request_id is not None:
                on_request_id(request_id)
            # what _send does, without its coroutine: this runs once per call
            if self._failure is not None:
                raise self._failure
            message = connection.send(request, version, method)  # the one send point
            try:
                send_nowait = self._send_nowait
                if send_nowait is None:
                    await self._stream.send(message)
                else:  # the usual message is written now, with no coroutine
                    rest = send_nowait(message)
                    if rest is not None:
                        await rest
            except ConnectionBroken as exc:
                self._on_broken(exc)
                raise
            pending.sent = True
            return await pending.future
        except RequestTimeout:
            self._cancel_remote(request_id, "request timed out", version)
            raise
        except ConnectionBroken as exc:
            if self._explain_broken is None:
                raise
            pending.disarm()  # (nothing is pending any more; its deadline must not fire)
            explained = await self._explained(exc)
            if explained is exc:
                raise
            raise explained from exc
        except asyncio.CancelledError:
            future = pending.future
            if future.done() and not future.cancelled():
                future.exception()  # mark retrieved: an outcome may have raced the cancel
            if pending.expired and not pending.sent:
                task = asyncio.current_task()
                if task is not None and task.uncancel() == 0:  # our deadline interrupted the send
                    self._cancel_remote(request_id, "request timed out", version)
                    raise pending.timeout_error() from None
            self._cancel_remote(request_id, "cancelled by the caller", version)
            raise
        finally:
            pending.disarm()
            if not pending.answered or progress_callback is not None:
                # (an answered request left the connection's table with its answer: only a
                # progress token would be left to forget)
                connection.end_request(request_id)

    async def _explained(self, exc: TransportError) -> TransportError:
        """``exc`` as ``explain_broken`` says it (a ``ConnectionBroken`` raised from the
        original), or ``exc`` itself."""
        explain = self._explain_broken
        if explain is None or not isinstance(exc, ConnectionBroken):
            return exc
        explained = await explain(exc)
        if explained is not exc:
            explained.__cause__ = exc
        return explained

    def _cancel_remote(self, request_id: int, reason: str, protocol_version: str | None) -> None:
        """Tell the peer we gave up on a request (sent from a session task: never blocks us)."""
        # None: already answered or failed (nothing to cancel), or ``initialize`` (never cancelled)
        note = self.connection.cancel_request(request_id, reason)
        if note is None:
            return
        if not self._closing and self._failure is None and self._tasks is not None:
            self._tasks.spawn(self._send_quietly(note, note.method, protocol_version))

    async def _send(
        self, message: Message, protocol_version: str | None, method: str | None
    ) -> None:
        if self._failure is not None:
            raise self._failure
        message = self.connection.send(message, protocol_version, method)  # the one send point
        try:
            await self._stream.send(message)
        except ConnectionBroken as exc:
            self._on_broken(exc)
            raise

    # -- inbound -------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        receive = self._stream.receive
        dispatch = self._dispatch
        try:
            while True:
                item = await receive()
                if item is None:
                    # The peer's side ended cleanly: nothing more will arrive, but we may still
                    # write (a stdio server answers in-flight requests after stdin EOF).
                    self._on_input_ended(
                        ConnectionBroken(f"{self.name}: the peer closed the connection")
                    )
                    return
                dispatch(item)
        except asyncio.CancelledError:
            raise
        except ConnectionBroken as exc:
            self._on_broken(exc)
        except ConnectionClosed as exc:
            self._on_input_ended(exc)
        except Exception as exc:  # a transport bug must not hang the session
            logger.exception("%s: receive failed", self.name)
            self._on_broken(ConnectionBroken(f"{self.name}: receive failed: {exc!r}"))

    def _on_pushed_end(self, exc: ConnectionBroken | None) -> None:
        """A pushing stream's input ended (see ``_read_loop`` for the same cases pulled)."""
        if exc is None:
            self._on_input_ended(ConnectionBroken(f"{self.name}: the peer closed the connection"))
        else:
            self._on_broken(exc)

    def _dispatch(self, item: Message | MessageDecodeError) -> None:
        kind = type(item)
        if kind is Request:
            self._accept_request(item)  # type: ignore[arg-type]
        elif kind is Response or kind is ErrorResponse:
            self._accept_response(item)  # type: ignore[arg-type]
        elif kind is Notification:
            self._accept_notification(item)  # type: ignore[arg-type]
        elif isinstance(item, MessageDecodeError):
            self._accept_garbage(item)
        elif isinstance(item, Request):  # subclasses: the slower, general path
            self._accept_request(item)
        elif isinstance(item, Response | ErrorResponse):
            self._accept_response(item)
        elif isinstance(item, Notification):
            self._accept_notification(item)
        else:
            logger.error("%s: the transport produced %r, not a message", self.name, item)

    def _accept_garbage(self, error: MessageDecodeError) -> None:
        if error.batch is not None:
            self._accept_batch(error.batch)
            return
        logger.warning("%s: invalid message from peer: %s", self.name, error.error.message)
        if not error.answerable and error.request_id is not None:
            # A response we could not read (too large, malformed) still names the request it
            # answers: fail that request now rather than at its deadline.
            entry = self.connection.outbound.resolve(error.request_id)
            if entry is not None and not entry.value.future.done():
                entry.value.future.set_exception(_unreadable_answer(error))
            return
        if error.answerable:
            self._spawn(
                self._send_quietly(
                    ErrorResponse(error.request_id, error.error.to_error_object()), None
                )
            )

    def _accept_batch(self, items: tuple[Message | MessageDecodeError, ...]) -> None:
        """A JSON-RPC batch: served member by member when the connection's revision takes
        batches (2025-03-26), its requests' answers sent back as one array; otherwise answered
        with one -32600 whose id is null (no single id names a batch)."""
        try:
            self.connection.receive_batch(items)
        except JSONRPCError as exc:
            logger.warning("%s: refused a batch: %s", self.name, exc.message)
            self._spawn(self._send_quietly(ErrorResponse(None, exc.to_error_object()), None))
            return
        immediate: list[Response | ErrorResponse] = []
        served: list[RequestContext] = []
        for item in items:
            if isinstance(item, MessageDecodeError):
                if item.answerable:
                    immediate.append(ErrorResponse(item.request_id, item.error.to_error_object()))
            elif isinstance(item, Request):
                admitted = self._admit_request(item)
                if isinstance(admitted, ErrorResponse):
                    immediate.append(admitted)
                else:
                    served.append(admitted)
            else:
                self._dispatch(item)
        answers = BatchAnswers(
            [ctx.request.id for ctx in served], immediate, [ctx.request.method for ctx in served]
        )
        if answers.complete:
            self._send_batch_soon(answers)
            return
        assert self._tasks is not None
        for ctx in served:
            ctx._batch = answers
            ctx._task = self._tasks.start(self._serve(ctx, ctx._entry))  # type: ignore[arg-type]

    def _send_batch_soon(self, answers: BatchAnswers) -> None:
        if answers.answers:
            self._spawn(self._send_batch(answers))

    async def _send_batch(self, batch: BatchAnswers) -> None:
        """One array back for a batch (JSON-RPC 2.0 §6); a stream that cannot write arrays gets
        the answers one by one. Each answer is shaped by its request's method, as it would be
        alone."""
        send_batch = getattr(self._stream, "send_batch", None)
        send = self.connection.send
        try:
            shaped = [send(answer, None, batch.method_of(answer)) for answer in batch.answers]
            if send_batch is not None:
                await send_batch(shaped)
            else:
                for answer in shaped:
                    await self._stream.send(answer)
        except Exception as exc:
            logger.debug("%s: could not answer a batch: %s", self.name, exc)

    def _accept_response(self, response: Response | ErrorResponse) -> None:
        if response.id is None:
            # "id": null: the peer could not read one of our messages well enough to name it
            # (JSON-RPC 2.0 §5). No request can be failed for it; say what the peer said.
            error = response.error  # only an error response decodes with no id
            logger.warning(
                "%s: the peer could not read a message we sent: %s (%d)",
                self.name,
                error.message,
                error.code,
            )
            return
        entry = self.connection.receive_response(response)
        if entry is None:
            # Late (after a timeout or cancel) or bogus; never answer a response.
            logger.warning(
                "%s: dropped a response to unknown request id %r", self.name, response.id
            )
            return
        pending = entry.value
        pending.answered = True
        future = pending.future
        if future.done():
            return
        if type(response) is Response:
            future.set_result(response.result)
        else:
            future.set_exception(JSONRPCError.from_error_object(response.error))  # type: ignore[union-attr]
        if self._eager:  # pushed: the caller goes on now rather than an iteration later
            resume_now(self._loop, pending.caller)  # type: ignore[arg-type]

    def _accept_notification(self, note: Notification) -> None:
        event = self.connection.receive_notification(note)
        kind = type(event)
        if kind is CancelReceived:
            self._cancel_handler(event)  # type: ignore[arg-type]
            return
        if kind is ProgressReceived:
            self._progressed(event.entry.value, event.update)  # type: ignore[union-attr]
        elif kind is SubscriptionEnded:
            future = event.entry.value.future  # type: ignore[union-attr]
            if not future.done():
                future.set_exception(RequestCancelled(f"the peer ended {event.entry.method}"))  # type: ignore[union-attr]
        elif kind is Ignored:
            level = logging.WARNING if event.malformed else logging.DEBUG  # type: ignore[union-attr]
            logger.log(level, "%s: ignored %s: %s", self.name, note.method, event.reason)  # type: ignore[union-attr]
            if note.method != PROGRESS:
                return  # upper layers may still observe progress they were not promised
        method = note.method
        handler = self._notification_handler
        if handler is None:
            return
        if self._inline_notifications:
            try:
                handler(note)
            except Exception:
                logger.exception("%s: notification handler for %s failed", self.name, method)
        else:
            self._spawn(self._run_notification_handler(note))

    def _cancel_handler(self, event: CancelReceived[RequestContext]) -> None:
        """The peer cancelled a request we serve: stop its handler; no answer is due."""
        ctx = event.entry.value
        ctx.cancel_reason = event.reason
        task = ctx._task
        if task is not None and task.cancel():
            task.add_done_callback(functools.partial(self._cancelled_request_ended, ctx))

    def _cancelled_request_ended(self, ctx: RequestContext, task: asyncio.Task[None]) -> None:
        """A cancelled request's task ended. If it was cancelled before its first step, its
        coroutine never ran (``_serve``'s ``finally`` with it): do what that would have done,
        so the id is free again and the batch it belongs to is still answered. Its entry still
        in the table, and no other, is what tells."""
        request_id = ctx.request.id
        if ctx._entry is None or self.connection.inbound.get(request_id) is not ctx._entry:
            return  # the handler ran and cleaned up after itself
        if ctx._batch is not None and not self._closing:
            self._answer_in_batch(ctx._batch, ctx, None)
        self.connection.request_done(request_id)
        if self._tasks is not None:
            self._tasks.forget(task)

    def _progressed(self, pending: PendingRequest, update: ProgressUpdate) -> None:
        if self._loop is not None:
            pending.progressed(self._loop.time())
        callback = pending.progress_callback
        if callback is None:
            return
        try:
            result = callback(update.progress, update.total, update.message)
        except Exception:
            logger.exception("%s: progress callback failed", self.name)
            return
        if result is not None:
            self._spawn(self._await_quietly(result))

    def _accept_request(self, request: Request) -> None:
        admitted = self._admit_request(request)
        if type(admitted) is ErrorResponse:
            self._spawn(self._send_quietly(admitted, request.method))
            return
        ctx: RequestContext = admitted  # type: ignore[assignment]
        assert self._tasks is not None
        if self._eager:
            # pushed from a read callback: the handler's first step runs now (most answer
            # within it), not one loop iteration later; a handler that waits goes on as a task
            task = start_eagerly(self._loop, self._serve(ctx, ctx._entry))  # type: ignore[arg-type]
            if not task.done():
                ctx._task = task
                self._tasks.adopt(task)
            return
        # started, not spawned: _serve forgets its own task, so that a request answered within
        # one step costs no extra loop iteration for a done callback
        ctx._task = self._tasks.start(self._serve(ctx, ctx._entry))  # type: ignore[arg-type]

    def _admit_request(self, request: Request) -> RequestContext | ErrorResponse:
        """Let the connection judge a request: its context to serve it, or the error to answer
        it with: no handler (-32601), a duplicate in-flight id (-32600), too many in flight
        (-32603), or what the role refuses (e.g. a request before ``initialize``)."""
        if self._request_handler is None:
            error: JSONRPCError = MethodNotFound(f"Method not found: {request.method}")
            return ErrorResponse(request.id, error.to_error_object())
        ctx = RequestContext(self, request)
        try:
            ctx._entry = self.connection.receive_request(request, ctx)
        except JSONRPCError as exc:
            if self._on_refused is not None:
                self._on_refused(request, exc)
            return ErrorResponse(request.id, exc.to_error_object())
        return ctx

    async def _serve(self, ctx: RequestContext, entry: InboundRequest[RequestContext]) -> None:
        """Run the handler of one peer request in a slot and send its answer.

        One coroutine on purpose: this is every request's path, and each coroutine layer is
        a frame, a generator and a hop on every resumption of the handler.
        """
        request = ctx.request
        slots = self._slots
        try:
            if not slots.take():
                await slots.wait()
            response: Response | ErrorResponse | None
            try:
                result = await self._request_handler(ctx)  # type: ignore[misc]
            except JSONRPCError as exc:
                response = ErrorResponse(request.id, exc.to_error_object())
            except asyncio.CancelledError:
                if not entry.cancelled:
                    raise  # the session is closing: say nothing
                response = None  # the peer cancelled: it expects no response
            except Exception:
                response = None
                if not entry.cancelled:
                    logger.exception("%s: handler for %s failed", self.name, request.method)
                    response = _internal_error(
                        request, f"Internal error while handling {request.method}"
                    )
            else:
                response = Response(request.id, result)
            finally:
                slots.give()
            if entry.cancelled:
                response = None
            batch = ctx._batch
            if batch is not None:
                self._answer_in_batch(batch, ctx, response)
            elif response is not None:
                method = request.method
                try:
                    await self._send(
                        response, ctx.protocol_version or self.protocol_version, method
                    )
                except MCPError as exc:
                    logger.debug("%s: could not answer %s: %s", self.name, method, exc)
                except Exception:  # the answer could not be encoded: say so, do not go silent
                    await self._answer_unsendable(response, ctx)
        except asyncio.CancelledError:
            # cancelled by the peer (no response is due) or by closing the session
            if ctx._batch is not None and not self._closing:
                self._answer_in_batch(ctx._batch, ctx, None)
        except Exception:  # a bug: the handler's own failures are answered above
            logger.exception("%s: serving %s failed", self.name, request.method)
        finally:
            self.connection.request_done(request.id)
            self._tasks.forget(ctx._task)  # type: ignore[union-attr]  # started by _tasks.start

    def _answer_in_batch(
        self, batch: BatchAnswers, ctx: RequestContext, response: Response | ErrorResponse | None
    ) -> None:
        if batch.answer(ctx.request.id, response) is not None:
            self._send_batch_soon(batch)

    async def _answer_unsendable(
        self, response: Response | ErrorResponse, ctx: RequestContext
    ) -> None:
        method = ctx.request.method
        logger.exception("%s: the response to %s could not be sent", self.name, method)
        what = "result" if type(response) is Response else "error"
        error = _internal_error(
            ctx.request, f"Internal error: the {what} of {method} could not be encoded"
        )
        await self._send_quietly(error, method, ctx.protocol_version)

    async def _run_notification_handler(self, note: Notification) -> None:
        try:
            await self._notification_handler(note)  # type: ignore[misc]  # async by construction
        except Exception:
            logger.exception("%s: notification handler for %s failed", self.name, note.method)

    # -- helpers -------------------------------------------------------------------------------

    def _spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]:
        assert self._tasks is not None
        return self._tasks.spawn(coro)  # type: ignore[arg-type]

    async def _await_quietly(self, awaitable: Awaitable[None]) -> None:
        try:
            await awaitable
        except Exception:
            logger.exception("%s: progress callback failed", self.name)

    async def _send_quietly(
        self, message: Message, method: str | None, protocol_version: str | None = None
    ) -> None:
        try:
            await self._send(message, protocol_version or self.protocol_version, method)
        except Exception as exc:
            logger.debug("%s: could not send %s: %s", self.name, method, exc)

    def _on_input_ended(self, exc: TransportError) -> None:
        if self._closing:  # our own close ended the input: not the peer's doing
            self._input_ended.set()
            return
        if self._input_failure is None:
            self._input_failure = exc
        self._input_ended.set()
        self._fail_pending(exc)

    def _on_broken(self, exc: TransportError) -> None:
        if self._failure is None and not self._closing:
            self._failure = exc
        self._on_input_ended(exc)

    def _fail_pending(self, exc: TransportError) -> None:
        for entry in self.connection.fail_all():
            future = entry.value.future
            if not future.done():
                future.set_exception(exc)
                future.exception()  # mark retrieved: the caller may be gone already


def _unreadable_answer(error: MessageDecodeError) -> Exception:
    """Why a request whose answer could not be read failed: our own size limit says so itself
    (an ``InternalError``); anything else is the peer breaking the protocol."""
    if isinstance(error.error, InternalError):
        return error.error
    return RemoteProtocolError(
        f"the peer answered request {error.request_id!r} with an invalid message: "
        f"{error.error.message}"
    )


def _internal_error(request: Request, message: str) -> ErrorResponse:
    return ErrorResponse(request.id, InternalError(message).to_error_object())

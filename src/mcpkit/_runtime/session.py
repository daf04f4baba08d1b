"""The session engine: JSON-RPC over a :class:`MessageStream`, for either side of a connection.

A :class:`Session` correlates our requests with their responses, serves the peer's requests
concurrently (up to a limit), routes progress and cancellation, and enforces deadlines. It knows
nothing about MCP methods: the server and client layers give it a request handler and decide
what each method means.

Guarantees:

* Every task belongs to the task group the session owns (``async with Session(...)``).
* When the transport dies, every pending request fails at once with
  :class:`~mcpkit.protocol.errors.ConnectionBroken`; when we close the session, with
  :class:`~mcpkit.protocol.errors.ConnectionClosed`. Nothing waits forever.
* A handler's failure becomes an error response; it never takes the session down, and users
  never see an ``ExceptionGroup``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from mcpkit._runtime.stream import MessageStream
from mcpkit.protocol.errors import (
    ConnectionBroken,
    ConnectionClosed,
    InternalError,
    JSONRPCError,
    MCPError,
    MessageDecodeError,
    RequestCancelled,
    RequestTimeout,
    TransportError,
)
from mcpkit.protocol.observe import notify_outbound
from mcpkit.types.jsonrpc import (
    ErrorObject,
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)

logger = logging.getLogger("mcpkit.session")

DEFAULT_MAX_CONCURRENT_REQUESTS: Final = 64
"""Peer requests handled at once; more wait for a slot."""
MAX_QUEUED_REQUESTS: Final = 4096
"""Peer requests accepted but waiting for a slot; beyond this they are refused at once."""
MAX_PENDING_OUTBOUND: Final = 10_000
"""Our own requests awaiting responses."""
SHUTDOWN_GRACE_SECONDS: Final = 2.0
"""How long in-flight handlers may run on after the peer's end of stream."""

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
RequestHandler = Callable[["RequestContext"], Awaitable[JSONObject]]
NotificationHandler = Callable[[Notification], Awaitable[None] | None]
"""A plain function runs inline, in arrival order (keep it quick: state updates); a coroutine
function runs in its own task, so it may send requests and wait for their answers."""


class _Pending:
    """One of our requests waiting for its response."""

    __slots__ = ("future", "method", "progress_callback", "progress_seen")

    def __init__(self, method: str, progress_callback: ProgressCallback | None) -> None:
        self.future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        self.method = method
        self.progress_callback = progress_callback
        self.progress_seen = asyncio.Event()


class RequestContext:
    """What a request handler knows about the request it serves, and how it talks back.

    Messages sent through the context are *related* to the request: on transports that keep
    per-request streams (Streamable HTTP) they travel on that request's stream.
    """

    __slots__ = ("_session", "_task", "cancel_reason", "protocol_version", "request", "state")

    def __init__(self, session: Session, request: Request) -> None:
        self._session = session
        self._task: asyncio.Task[None] | None = None
        self.request = request
        self.protocol_version: str | None = session.protocol_version
        self.cancel_reason: str | None = None
        self.state: dict[str, Any] = {}

    @property
    def session(self) -> Session:
        return self._session

    @property
    def progress_token(self) -> str | int | None:
        params = self.request.params
        if not params:
            return None
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        return token if isinstance(token, str | int) and not isinstance(token, bool) else None

    @property
    def cancelled(self) -> bool:
        return self.cancel_reason is not None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        await self._session._send(Notification(method, params), self.protocol_version, method)

    async def send_request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: float | None = None,
    ) -> JSONObject:
        return await self._session.send_request(method, params, timeout=timeout)


class Session:
    """One JSON-RPC connection. Use as ``async with Session(stream, ...) as session``."""

    def __init__(
        self,
        stream: MessageStream,
        *,
        request_handler: RequestHandler | None = None,
        notification_handler: NotificationHandler | None = None,
        max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT_REQUESTS,
        default_timeout: float | None = None,
        name: str = "session",
    ) -> None:
        self._stream = stream
        self._request_handler = request_handler
        self._notification_handler = notification_handler
        self._inline_notifications = notification_handler is not None and not (
            inspect.iscoroutinefunction(notification_handler)
        )
        self._limit = asyncio.Semaphore(max_concurrent_requests)
        self._default_timeout = default_timeout
        self.name = name
        self.protocol_version: str | None = None
        self._ids = itertools.count(1)
        self._pending: dict[RequestId, _Pending] = {}
        self._serving: dict[RequestId, RequestContext] = {}
        self._queued = 0
        self._task_group: asyncio.TaskGroup | None = None
        self._reader: asyncio.Task[None] | None = None
        self._input_ended = asyncio.Event()
        self._failure: TransportError | None = None
        self._input_failure: TransportError | None = None
        self._closing = False

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> Session:
        self._task_group = asyncio.TaskGroup()
        await self._task_group.__aenter__()
        self._reader = self._task_group.create_task(self._read_loop(), name=f"{self.name}-reader")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the session: cancel handlers, fail our pending requests, close the stream."""
        if self._task_group is None or self._closing:
            return
        self._closing = True
        self._fail_pending(ConnectionClosed(f"{self.name} was closed"))
        for ctx in list(self._serving.values()):
            if ctx._task is not None:
                ctx._task.cancel()
        if self._reader is not None:
            self._reader.cancel()
        with contextlib.suppress(Exception):
            await asyncio.shield(self._stream.aclose())
        task_group, self._task_group = self._task_group, None
        try:
            await task_group.__aexit__(None, None, None)
        except BaseExceptionGroup as group:  # children never raise; this is a bug guard
            logger.error("%s: unexpected task failure on close", self.name, exc_info=group)

    @property
    def input_ended(self) -> bool:
        """True once the peer's side of the stream ended (EOF or failure)."""
        return self._input_ended.is_set()

    async def wait_input_ended(self) -> None:
        """Wait until the peer closes its side of the stream (e.g. stdin EOF on a server)."""
        await self._input_ended.wait()

    async def drain_handlers(self, timeout: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Give in-flight handlers up to ``timeout`` seconds to finish (used before closing)."""
        tasks = [ctx._task for ctx in self._serving.values() if ctx._task is not None]
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
        :class:`~mcpkit.protocol.errors.RequestTimeout`. If the calling task is cancelled, the
        peer is told too. An error response raises the matching
        :class:`~mcpkit.protocol.errors.JSONRPCError` subclass with ``remote=True``.

        ``on_request_id`` is called with the request's id before it is sent: a 2026 client needs
        it to claim the notifications the server tags with the id of a ``subscriptions/listen``.
        """
        if self._failure is not None:
            raise self._failure
        if self._input_failure is not None:
            raise self._input_failure
        if self._closing or self._task_group is None:
            raise ConnectionClosed(f"{self.name} is closed")
        if len(self._pending) >= MAX_PENDING_OUTBOUND:
            raise MCPError(f"too many requests in flight ({MAX_PENDING_OUTBOUND})")
        request_id = next(self._ids)
        if progress_callback is not None:
            params = dict(params or {})
            meta = dict(params.get("_meta") or {})
            meta["progressToken"] = request_id
            params["_meta"] = meta
        pending = _Pending(method, progress_callback)
        self._pending[request_id] = pending
        version = protocol_version or self.protocol_version
        try:
            if on_request_id is not None:
                on_request_id(request_id)
            await self._send(Request(request_id, method, params), version, method)
            return await self._await_response(request_id, pending, timeout, max_timeout)
        except asyncio.CancelledError:
            if request_id in self._pending:
                await self._cancel_remote(request_id, "cancelled by the caller", version)
            raise
        finally:
            self._pending.pop(request_id, None)

    async def _await_response(
        self,
        request_id: RequestId,
        pending: _Pending,
        timeout: float | None,
        max_timeout: float | None,
    ) -> JSONObject:
        timeout = self._default_timeout if timeout is None else timeout
        if timeout is None and max_timeout is None:
            return await pending.future
        loop = asyncio.get_running_loop()
        hard_deadline = None if max_timeout is None else loop.time() + max_timeout
        while True:
            wait_for = timeout
            if hard_deadline is not None:
                remaining = hard_deadline - loop.time()
                wait_for = remaining if wait_for is None else min(wait_for, remaining)
            pending.progress_seen.clear()
            progress_wait = asyncio.ensure_future(pending.progress_seen.wait())
            try:
                done, _ = await asyncio.wait(
                    (pending.future, progress_wait),
                    timeout=max(wait_for or 0.0, 0.0),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                progress_wait.cancel()
            if pending.future in done:
                return pending.future.result()
            if progress_wait in done and (hard_deadline is None or loop.time() < hard_deadline):
                continue  # progress resets the deadline
            limit = timeout if timeout is not None else max_timeout
            await self._cancel_remote(request_id, "request timed out", self.protocol_version)
            raise RequestTimeout(pending.method, limit or 0.0)

    async def _cancel_remote(
        self, request_id: RequestId, reason: str, protocol_version: str | None
    ) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is not None and pending.method == "initialize":
            return  # initialize must never be cancelled
        with contextlib.suppress(MCPError):
            await asyncio.shield(
                self._send(
                    Notification(
                        "notifications/cancelled", {"requestId": request_id, "reason": reason}
                    ),
                    protocol_version,
                    "notifications/cancelled",
                )
            )

    async def _send(
        self, message: Message, protocol_version: str | None, method: str | None
    ) -> None:
        if self._failure is not None:
            raise self._failure
        notify_outbound(message, protocol_version, method)
        try:
            await self._stream.send(message)
        except ConnectionBroken as exc:
            self._on_broken(exc)
            raise

    # -- inbound -------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            while True:
                item = await self._stream.receive()
                if item is None:
                    # The peer's side ended cleanly: nothing more will arrive, but we may still
                    # write (a stdio server answers in-flight requests after stdin EOF).
                    self._on_input_ended(
                        ConnectionBroken(f"{self.name}: the peer closed the connection")
                    )
                    return
                self._dispatch(item)
        except asyncio.CancelledError:
            raise
        except ConnectionBroken as exc:
            self._on_broken(exc)
        except ConnectionClosed:
            self._input_ended.set()
        except Exception as exc:  # a transport bug must not hang the session
            logger.exception("%s: receive failed", self.name)
            self._on_broken(ConnectionBroken(f"{self.name}: receive failed: {exc!r}"))

    def _dispatch(self, item: Message | MessageDecodeError) -> None:
        if isinstance(item, Request):
            self._accept_request(item)
        elif isinstance(item, Notification):
            self._accept_notification(item)
        elif isinstance(item, Response | ErrorResponse):
            self._accept_response(item)
        else:
            self._accept_garbage(item)

    def _accept_garbage(self, error: MessageDecodeError) -> None:
        logger.warning("%s: invalid message from peer: %s", self.name, error.error.message)
        if error.answerable:
            self._spawn(
                self._send_quietly(
                    ErrorResponse(error.request_id, error.error.to_error_object()), None
                )
            )

    def _accept_response(self, response: Response | ErrorResponse) -> None:
        pending = self._pending.pop(response.id, None) if response.id is not None else None
        if pending is None:
            logger.warning(
                "%s: dropped a response to unknown request id %r", self.name, response.id
            )
            return
        if pending.future.done():
            return
        if isinstance(response, Response):
            pending.future.set_result(response.result)
        else:
            pending.future.set_exception(JSONRPCError.from_error_object(response.error))

    def _accept_notification(self, note: Notification) -> None:
        if note.method == "notifications/cancelled":
            params = note.params or {}
            ctx = self._serving.get(params.get("requestId"))  # type: ignore[arg-type]
            if ctx is not None and ctx.request.method != "initialize" and ctx._task is not None:
                reason = params.get("reason")
                ctx.cancel_reason = reason if isinstance(reason, str) else "cancelled by the peer"
                ctx._task.cancel()
            return
        if note.method == "notifications/progress":
            self._route_progress(note.params or {})
            # fall through: upper layers may want to observe progress too
        handler = self._notification_handler
        if handler is None:
            return
        if self._inline_notifications:
            try:
                handler(note)
            except Exception:
                logger.exception("%s: notification handler for %s failed", self.name, note.method)
        else:
            self._spawn(self._run_notification_handler(note))

    def _route_progress(self, params: JSONObject) -> None:
        token = params.get("progressToken")
        pending = self._pending.get(token) if isinstance(token, int | str) else None
        if pending is None or pending.progress_callback is None:
            return
        progress = params.get("progress")
        if not isinstance(progress, int | float):
            return
        total = params.get("total")
        message = params.get("message")
        pending.progress_seen.set()
        result = pending.progress_callback(
            float(progress),
            float(total) if isinstance(total, int | float) else None,
            message if isinstance(message, str) else None,
        )
        if result is not None:
            self._spawn(self._await_quietly(result))

    def _accept_request(self, request: Request) -> None:
        if request.id in self._serving:
            self._spawn(
                self._send_quietly(
                    ErrorResponse(
                        request.id,
                        ErrorObject(-32600, "Invalid Request: this id is already in flight"),
                    ),
                    request.method,
                )
            )
            return
        if self._request_handler is None or self._queued >= MAX_QUEUED_REQUESTS:
            message = (
                f"Method not found: {request.method}"
                if self._request_handler is None
                else "Server busy: too many requests queued"
            )
            code = -32601 if self._request_handler is None else -32603
            self._spawn(
                self._send_quietly(
                    ErrorResponse(request.id, ErrorObject(code, message)), request.method
                )
            )
            return
        ctx = RequestContext(self, request)
        self._serving[request.id] = ctx
        self._queued += 1
        ctx._task = self._spawn(self._serve(ctx))

    async def _serve(self, ctx: RequestContext) -> None:
        request = ctx.request
        response: Message | None
        try:
            async with self._limit:
                self._queued -= 1
                try:
                    result = await self._request_handler(ctx)  # type: ignore[misc]
                    response = Response(request.id, result)
                except JSONRPCError as exc:
                    response = ErrorResponse(request.id, exc.to_error_object())
                except (asyncio.CancelledError, RequestCancelled):
                    if not ctx.cancelled:
                        raise  # session shutdown: say nothing
                    response = None  # the peer cancelled: it expects no response
                except Exception:
                    logger.exception("%s: handler for %s failed", self.name, request.method)
                    response = ErrorResponse(
                        request.id,
                        InternalError(
                            f"Internal error while handling {request.method}"
                        ).to_error_object(),
                    )
            if response is not None:
                await self._send_quietly(response, request.method, ctx.protocol_version)
        except asyncio.CancelledError:
            pass
        finally:
            self._serving.pop(request.id, None)

    async def _run_notification_handler(self, note: Notification) -> None:
        try:
            await self._notification_handler(note)  # type: ignore[misc]  # async by construction
        except Exception:
            logger.exception("%s: notification handler for %s failed", self.name, note.method)

    # -- helpers -------------------------------------------------------------------------------

    def _spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]:
        assert self._task_group is not None
        return self._task_group.create_task(coro)  # type: ignore[arg-type]

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
        except MCPError as exc:
            logger.debug("%s: could not send %s: %s", self.name, method, exc)

    def _on_input_ended(self, exc: TransportError) -> None:
        if self._input_failure is None:
            self._input_failure = exc
        self._input_ended.set()
        self._fail_pending(exc)

    def _on_broken(self, exc: TransportError) -> None:
        if self._failure is None and not self._closing:
            self._failure = exc
        self._on_input_ended(exc)

    def _fail_pending(self, exc: TransportError) -> None:
        pending, self._pending = self._pending, {}
        for entry in pending.values():
            if not entry.future.done():
                entry.future.set_exception(exc)
                entry.future.exception()  # mark retrieved: nobody may be waiting any more

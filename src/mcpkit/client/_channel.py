"""The client's view of a connection: send a request, get its result, route notifications.

Two implementations hide the difference between a long-lived stream and stateless HTTP:

* :class:`SessionChannel` runs over a :class:`~mcpkit._runtime.session.Session` (stdio, memory,
  legacy HTTP). Every notification arrives through one handler; those tagged with a 2026
  ``subscriptionId`` are routed to the request that owns that id (a ``subscriptions/listen``),
  everything else goes to the client's default handler.
* :class:`ExchangeChannel` runs over an :class:`~mcpkit.client.connectors.ExchangeTransport`:
  each request is its own exchange and its notifications arrive with it.

The client above never knows which one it has.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Literal, Protocol

from mcpkit._runtime.pending import DEFAULT_MAX_TOTAL_TIMEOUT
from mcpkit._runtime.session import ProgressCallback, Session
from mcpkit.client.connectors import ExchangeTransport
from mcpkit.protocol.cancellation import cancelled_request_id
from mcpkit.protocol.errors import (
    ConnectionBroken,
    ConnectionClosed,
    InvalidParams,
    JSONRPCError,
    RequestTimeout,
)
from mcpkit.protocol.progress import ProgressTracker
from mcpkit.types import meta as keys
from mcpkit.types.jsonrpc import JSONObject, Notification, Request, RequestId, Response

__all__ = [
    "DEFAULT",
    "Default",
    "TimeoutArg",
    "Channel",
    "ExchangeChannel",
    "NotificationSink",
    "SessionChannel",
    "SUBSCRIPTION_ID_KEY",
]

logger = logging.getLogger("mcpkit.client")

SUBSCRIPTION_ID_KEY: Final = keys.SUBSCRIPTION_ID
STDERR_LINES_IN_ERRORS: Final = 10
"""stderr lines of a dead stdio server quoted in the error its pending calls get."""

NotificationSink = Callable[[Notification], Awaitable[None]]


class Default(enum.Enum):
    """Sentinel for "use the client's default" where ``None`` already means "no deadline"."""

    DEFAULT = "default"


DEFAULT: Final = Default.DEFAULT
TimeoutArg = float | Literal[Default.DEFAULT] | None


class Channel(Protocol):
    """What the client needs from a connection."""

    async def request(
        self,
        method: str,
        params: JSONObject | None,
        *,
        protocol_version: str | None,
        timeout: float | None = None,
        max_timeout: float | None = None,
        progress_callback: ProgressCallback | None = None,
        on_notification: NotificationSink | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> JSONObject:
        """Send ``method`` and return its result; raise the remote error or a local failure.

        ``on_notification`` receives the notifications that belong to this request (the listen
        stream of a ``subscriptions/listen``); ``tool`` is the listed tool for ``tools/call``.
        """
        ...

    async def notify(
        self, method: str, params: JSONObject | None, *, protocol_version: str | None
    ) -> None: ...

    def set_protocol_version(self, version: str) -> None:
        """Record the negotiated legacy version (used for outbound observation and HTTP)."""
        ...


def subscription_id_of(note: Notification) -> RequestId | None:
    params = note.params
    meta = params.get("_meta") if params else None
    return keys.get_subscription_id(meta) if isinstance(meta, dict) else None


class SessionChannel:
    """A :class:`Channel` over a session; owns the session's notification routing."""

    def __init__(self, default_sink: NotificationSink) -> None:
        self._session: Session | None = None
        self._stream: object = None
        self._default_sink = default_sink
        self._routes: dict[RequestId, NotificationSink] = {}

    def attach(self, session: Session, stream: object = None) -> None:
        self._session = session
        self._stream = stream

    @property
    def session(self) -> Session:
        if self._session is None:
            raise ConnectionClosed("the client is not connected")
        return self._session

    def set_protocol_version(self, version: str) -> None:
        self.session.protocol_version = version

    async def on_notification(self, note: Notification) -> None:
        """The session's notification handler: route by subscription id, else the default."""
        sid = subscription_id_of(note)
        if sid is not None:
            sink = self._routes.get(sid)
            if sink is None and isinstance(sid, str) and sid.isdigit():
                sink = self._routes.get(int(sid))
            if sink is not None:
                await sink(note)
                return
            if note.method != "notifications/cancelled":
                logger.debug("dropped %s for unknown subscription %r", note.method, sid)
                return
        if note.method == "notifications/cancelled":
            # 2026 stdio: the server ends a subscription with notifications/cancelled{requestId}.
            rid = cancelled_request_id(note.params)
            sink = self._routes.get(rid) if rid is not None else None
            if sink is not None:
                await sink(note)
                return
        await self._default_sink(note)

    async def request(
        self,
        method: str,
        params: JSONObject | None,
        *,
        protocol_version: str | None,
        timeout: float | None = None,
        max_timeout: float | None = None,
        progress_callback: ProgressCallback | None = None,
        on_notification: NotificationSink | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> JSONObject:
        session = self.session
        claimed: list[RequestId] = []

        def claim(request_id: RequestId) -> None:
            if on_notification is not None:
                self._routes[request_id] = on_notification
                claimed.append(request_id)

        try:
            return await session.send_request(
                method,
                params,
                timeout=timeout,
                max_timeout=max_timeout,
                progress_callback=progress_callback,
                protocol_version=protocol_version,
                on_request_id=claim if on_notification is not None else None,
            )
        except ConnectionBroken as exc:
            wait_report = getattr(self._stream, "wait_exit_report", None)
            if wait_report is not None and getattr(self._stream, "returncode", 0) is None:
                await wait_report()  # a stdio server: learn its exit code before saying why
            explained = self._explain(exc)
            if explained is exc:
                raise
            raise explained from exc
        finally:
            for request_id in claimed:
                self._routes.pop(request_id, None)

    def _explain(self, exc: ConnectionBroken) -> ConnectionBroken:
        """Add what a stdio stream knows (exit code, last stderr lines) to a bare EOF error."""
        stream = self._stream
        returncode = getattr(stream, "returncode", None)
        tail = getattr(stream, "stderr_tail", None)
        details = []
        if isinstance(returncode, int):
            details.append(f"the server exited with code {returncode}")
        if tail:
            lines = list(tail)[-STDERR_LINES_IN_ERRORS:]
            details.append("last stderr lines:\n" + "\n".join(f"  {line}" for line in lines))
        if not details:
            return exc
        return ConnectionBroken(f"{exc}; " + "; ".join(details))

    async def notify(
        self, method: str, params: JSONObject | None, *, protocol_version: str | None
    ) -> None:
        await self.session.send_notification(method, params, protocol_version=protocol_version)


class ExchangeChannel:
    """A :class:`Channel` over stateless HTTP: one exchange per request."""

    def __init__(self, transport: ExchangeTransport, default_sink: NotificationSink) -> None:
        self._transport = transport
        self._default_sink = default_sink
        self._ids = itertools.count(1)
        self.protocol_version: str | None = None

    def set_protocol_version(self, version: str) -> None:
        self.protocol_version = version

    async def request(
        self,
        method: str,
        params: JSONObject | None,
        *,
        protocol_version: str | None,
        timeout: float | None = None,
        max_timeout: float | None = None,
        progress_callback: ProgressCallback | None = None,
        on_notification: NotificationSink | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> JSONObject:
        request_id = next(self._ids)
        # the same progress rules as a session's: the token is this request's, values must
        # increase, malformed ones are dropped
        tracker = ProgressTracker(1)
        if progress_callback is not None:
            tracker.start(request_id, request_id)
            params = dict(params or {})
            meta = dict(params.get("_meta") or {})
            meta[keys.PROGRESS_TOKEN] = request_id
            params["_meta"] = meta
        progressed = asyncio.Event()

        async def sink(note: Notification) -> None:
            if note.method == "notifications/progress" and progress_callback is not None:
                try:
                    update = tracker.receive(note.params)
                except InvalidParams as exc:
                    logger.warning("ignored malformed progress: %s", exc.message)
                    return
                if update is not None:
                    progressed.set()
                    outcome = progress_callback(update.progress, update.total, update.message)
                    if outcome is not None:
                        await outcome
                return
            await (on_notification or self._default_sink)(note)

        version = protocol_version or self.protocol_version or ""
        exchange = asyncio.ensure_future(
            self._transport.exchange(
                Request(request_id, method, params),
                protocol_version=version,
                on_notification=sink,
                tool=tool,
            )
        )
        try:
            response = await _await_with_deadline(
                exchange, progressed, method, timeout, max_timeout, progress_callback is not None
            )
        finally:
            if not exchange.done():
                exchange.cancel()  # closing the stream is the 2026 cancel signal on HTTP
                await asyncio.gather(exchange, return_exceptions=True)
        if isinstance(response, Response):
            return response.result
        raise JSONRPCError.from_error_object(response.error)

    async def notify(
        self, method: str, params: JSONObject | None, *, protocol_version: str | None
    ) -> None:
        # 2026 HTTP defines no client notification (closing a stream cancels); nothing to send.
        logger.debug("not sending %s over stateless HTTP", method)


async def _await_with_deadline(
    exchange: asyncio.Future[Any],
    progressed: asyncio.Event,
    method: str,
    timeout: float | None,
    max_timeout: float | None,
    resets: bool,
) -> Any:
    if timeout is None and max_timeout is None:
        return await exchange
    if resets and max_timeout is None and timeout is not None:
        max_timeout = max(DEFAULT_MAX_TOTAL_TIMEOUT, timeout)  # progress never extends forever
    loop = asyncio.get_running_loop()
    hard = None if max_timeout is None else loop.time() + max_timeout
    while True:
        wait = timeout
        capped = False  # this wait ends at the total cap, not at the no-news deadline
        if hard is not None:
            left = hard - loop.time()
            capped = wait is None or left <= wait
            wait = left if wait is None else min(wait, left)
        progressed.clear()
        waiter = asyncio.ensure_future(progressed.wait())
        try:
            done, _ = await asyncio.wait(
                (exchange, waiter),
                timeout=max(wait or 0.0, 0.0),
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            waiter.cancel()
        if exchange in done:
            return exchange.result()
        if resets and waiter in done and (hard is None or loop.time() < hard):
            continue
        if (capped or (hard is not None and loop.time() >= hard)) and timeout is not None:
            raise RequestTimeout(method, max_timeout or 0.0, total=True)
        raise RequestTimeout(method, (timeout if timeout is not None else max_timeout) or 0.0)

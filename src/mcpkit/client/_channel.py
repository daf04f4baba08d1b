"""The client's view of a connection: send a request, get its result, route notifications.

Two implementations hide the difference between a long-lived stream and stateless HTTP:

* :class:`SessionChannel` runs over a :class:`~mcpkit._runtime.session.Session` (stdio, memory,
  legacy HTTP). Every notification arrives through one handler; those tagged with a 2026
  ``subscriptionId`` are routed to the request that owns that id (a ``subscriptions/listen``),
  everything else goes to the client's default handler.
* :class:`ExchangeChannel` runs over an :class:`~mcpkit.client._connectors.ExchangeTransport`:
  each request is its own exchange and its notifications arrive with it.

Both keep their protocol state in a :class:`~mcpkit.protocol._connection.ClientConnection`
(``channel.connection``; the session's own for a :class:`SessionChannel`): the negotiation's
verdict, the handshake lifecycle, fresh ids, progress tokens, and the gating of each request by
the server's capabilities. The client above never knows which channel it has.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Final, Literal, Protocol

from mcpkit._runtime.concurrency import TaskScope, race
from mcpkit._runtime.pending import DEFAULT_MAX_TOTAL_TIMEOUT
from mcpkit._runtime.session import ProgressCallback, Session
from mcpkit.client._connectors import ExchangeTransport
from mcpkit.protocol._cancellation import cancelled_request_id
from mcpkit.protocol._connection import ClientConnection, Ignored, ProgressReceived
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    JSONRPCError,
    RequestTimeout,
    UsageError,
)
from mcpkit.types import meta as keys
from mcpkit.types._jsonrpc import JSONObject, Notification, RequestId, Response
from mcpkit.types._method_names import CANCELLED_NOTIFICATION, PROGRESS_NOTIFICATION

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

    @property
    def connection(self) -> ClientConnection[Any, Any]:
        """The protocol state: the negotiated revision, the lifecycle, capability gating."""
        ...

    def adopt_discover(self, version: str, capabilities: JSONObject) -> None:
        """Record a 2026-07-28 verdict (and a later ``server/discover``'s capabilities) in the
        connection, which gates what may be sent from then on."""
        ...

    def initialized_version(self) -> str:
        """The revision the ``initialize`` handshake agreed on, as the connection recorded it
        from the result; raises why there is none (a revision this client does not speak)."""
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

    @property
    def connection(self) -> ClientConnection[Any, Any]:
        connection = self.session.connection
        if not isinstance(connection, ClientConnection):
            raise UsageError("a client session runs on a ClientConnection")
        return connection

    def adopt_discover(self, version: str, capabilities: JSONObject) -> None:
        self.connection.adopt_discover(version, capabilities)

    def initialized_version(self) -> str:
        return self.connection.initialize_outcome()

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
            if note.method != CANCELLED_NOTIFICATION:
                logger.debug("dropped %s for unknown subscription %r", note.method, sid)
                return
        if note.method == CANCELLED_NOTIFICATION:
            # 2026 stdio: the server ends a subscription with notifications/cancelled{requestId}.
            rid = cancelled_request_id(note.params)
            sink = self._routes.get(rid) if rid is not None else None
            if sink is not None:
                await sink(note)
                return
        await self._default_sink(note)

    def request(
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
    ) -> Coroutine[Any, Any, JSONObject]:
        # A plain method handing over the session's coroutine (a broken connection is explained
        # by the session, through explain_broken): no coroutine of its own for the usual call.
        session = self.session
        if on_notification is not None:
            return self._routed_request(
                session,
                method,
                params,
                protocol_version=protocol_version,
                timeout=timeout,
                max_timeout=max_timeout,
                progress_callback=progress_callback,
                on_notification=on_notification,
            )
        return session.send_request(
            method,
            params,
            timeout=timeout,
            max_timeout=max_timeout,
            progress_callback=progress_callback,
            protocol_version=protocol_version,
        )

    async def _routed_request(
        self,
        session: Session,
        method: str,
        params: JSONObject | None,
        *,
        protocol_version: str | None,
        timeout: float | None,
        max_timeout: float | None,
        progress_callback: ProgressCallback | None,
        on_notification: NotificationSink,
    ) -> JSONObject:
        """A request that owns the notifications tagged with its id (a 2026
        ``subscriptions/listen``): they go to ``on_notification`` until it ends."""
        claimed: list[RequestId] = []
        routes = self._routes

        def claim(request_id: RequestId) -> None:
            routes[request_id] = on_notification
            claimed.append(request_id)

        try:
            return await session.send_request(
                method,
                params,
                timeout=timeout,
                max_timeout=max_timeout,
                progress_callback=progress_callback,
                protocol_version=protocol_version,
                on_request_id=claim,
            )
        finally:
            for request_id in claimed:
                routes.pop(request_id, None)

    async def explain_broken(self, exc: ConnectionBroken) -> ConnectionBroken:
        """The session's ``explain_broken``: what a stdio server's end adds to a broken
        connection (its exit code, waited for, and its last stderr lines)."""
        wait_report = getattr(self._stream, "wait_exit_report", None)
        if wait_report is not None:
            # a stdio server: its exit code and its last stderr lines before saying why. Both,
            # even when the exit is known already: the stderr pump may still be reading the
            # lines the server wrote as it died (at once when it has reached the pipe's end)
            await wait_report()
        return self._explain(exc)

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
        self.connection: ClientConnection[None, None] = ClientConnection()
        """Fresh ids, progress tokens and capability gating; only 2026 verdicts land here (a
        legacy server gets a session, with its own connection)."""

    def adopt_discover(self, version: str, capabilities: JSONObject) -> None:
        self.connection.adopt_discover(version, capabilities)

    def initialized_version(self) -> str:
        raise UsageError("stateless HTTP has no initialize handshake")

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
        connection = self.connection
        # the same rules as a session's: the server's capabilities gate the request (nothing is
        # sent without them); a progress token bound to this request, values that must increase
        request = connection.start_request(
            method, params, None, progress=progress_callback is not None
        )
        request_id: int = request.id  # type: ignore[assignment]  # ours are integers
        progressed = asyncio.Event()

        async def sink(note: Notification) -> None:
            if note.method == PROGRESS_NOTIFICATION and progress_callback is not None:
                event = connection.receive_notification(note)
                if isinstance(event, ProgressReceived) and event.entry.id == request_id:
                    progressed.set()
                    update = event.update
                    outcome = progress_callback(update.progress, update.total, update.message)
                    if outcome is not None:
                        await outcome
                elif isinstance(event, Ignored) and event.malformed:
                    logger.warning("ignored %s", event.reason)
                return
            await (on_notification or self._default_sink)(note)

        version = protocol_version or connection.protocol_version or ""
        try:
            # leaving the scope cancels an exchange still running and waits for it: closing the
            # stream is the 2026 cancel signal on HTTP
            async with TaskScope(f"exchange-{request_id}", logger) as scope:
                exchange = scope.spawn(
                    self._transport.exchange(
                        request, protocol_version=version, on_notification=sink, tool=tool
                    )
                )
                response = await _await_with_deadline(
                    exchange,
                    progressed,
                    method,
                    timeout,
                    max_timeout,
                    progress_callback is not None,
                )
        finally:
            connection.end_request(request_id)
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
        first = await race(exchange, progressed.wait(), timeout=max(wait or 0.0, 0.0))
        if first is exchange:
            return exchange.result()
        if resets and first is not None and (hard is None or loop.time() < hard):
            continue
        if (capped or (hard is not None and loop.time() >= hard)) and timeout is not None:
            raise RequestTimeout(method, max_timeout or 0.0, total=True)
        raise RequestTimeout(method, (timeout if timeout is not None else max_timeout) or 0.0)

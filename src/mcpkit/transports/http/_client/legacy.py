"""The legacy leg of the HTTP client: a Streamable HTTP session (2025-03-26 … 2025-11-25).

A :class:`~mcpkit._runtime.stream.MessageStream` the client's session runs over, like stdio:

* **Every message is a POST.** ``initialize`` goes without a version header; the
  ``Mcp-Session-Id`` of its answer, and the negotiated ``MCP-Protocol-Version``, go on
  everything after. The revision is the one the session's connection recorded (the session
  binds it, :meth:`LegacySessionStream.bind_connection`): the stream never reads it itself.
  Notifications and our responses to the server's requests get 202.
* **``send`` of a request returns once its answer is in** (JSON, or the end of its SSE stream),
  so an HTTP failure fails that request: a network failure is
  :class:`~mcpkit.protocol._errors.ConnectionBroken` (the session treats the server as gone and
  fails every pending call at once), anything else
  :class:`~mcpkit.protocol._errors.RemoteProtocolError` for that request alone. Server→client
  requests arriving on the stream meanwhile are answered by the session in other tasks.
* **Resumption.** A request's SSE stream that ends or breaks before its answer is resumed with
  GET + ``Last-Event-ID`` after the server's ``retry`` delay, doubling on failure, at most
  :attr:`HttpClientOptions.reconnect_attempts` times in a row; without an event id it cannot be.
* **The GET stream** for messages unrelated to a request opens after ``notifications/initialized``
  (405/404/400 mean "no stream here", not an error) and is re-opened when the server closes it.
  If the server cannot be reached at all any more, the stream fails, so idle clients notice too.
* **Session expiry.** A 404 to a message carrying our session id means the session is gone: the
  original ``initialize`` is replayed without a session id through the connection's lifecycle
  (:meth:`~mcpkit.protocol._connection.ClientConnection.start_renewal`, which records the new
  session's verdict: revision, capabilities, server info; a different revision changes the
  header and the connection together), ``notifications/initialized`` sent, and a
  :class:`SessionExpired` event reported (a callback, and a
  ``notifications/mcpkit/session_expired`` notification the client's handlers see), because
  whatever the old session held on the server (subscriptions, log level) is gone. The message
  that met the 404 is not replayed as it was (it was checked and shaped for the old session):
  a request fails with :class:`~mcpkit.protocol._errors.SessionReplaced`, which the client
  answers by sending it again through the connection (gated by the new capabilities, shaped
  for the new revision); a notification is shaped again at the connection's send point and
  re-sent; an answer to the old session's request cannot be delivered and fails.
* **Fallback.** If the ``initialize`` POST is refused with 400/404/405 and no modern JSON-RPC
  error, the URL is tried as a 2024-11-05 HTTP+SSE server
  (:mod:`~mcpkit.transports.http._client.legacy_sse`), transparently.
* **Close** stops every reader and DELETEs the session (bounded; 405 is fine).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import httpx

from mcpkit.protocol._codec import decode_message, encode_message
from mcpkit.protocol._connection import ClientConnection, Connection
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    MCPError,
    MessageDecodeError,
    RemoteProtocolError,
    SessionReplaced,
)
from mcpkit.protocol._http_headers import MCP_PROTOCOL_VERSION_HEADER
from mcpkit.protocol._http_routing import (
    LAST_EVENT_ID_HEADER,
    MCP_SESSION_ID_HEADER,
    is_valid_session_id,
)
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http._client.inbox import Inbox
from mcpkit.transports.http._client.legacy_sse import LegacySSEStream
from mcpkit.transports.http._client.options import (
    MAX_QUEUED_INBOUND,
    MAX_SESSION_RESTARTS,
    HttpClientOptions,
)
from mcpkit.transports.http._client.scope import WorkScope
from mcpkit.transports.http._client.wire import (
    GET_ACCEPT,
    JSON_MEDIA,
    POST_ACCEPT,
    SSE_MEDIA,
    decode_body,
    error_body,
    error_response_body,
    is_modern_rejection,
    iter_events,
    media_type,
    read_limited,
    status_error,
    translate,
)
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)
from mcpkit.types._method_names import INITIALIZED_NOTIFICATION

__all__ = [
    "NO_GET_STREAM_STATUSES",
    "SESSION_EXPIRED_NOTIFICATION",
    "LegacySessionStream",
    "SessionExpired",
    "SessionExpiredCallback",
]

logger = logging.getLogger("mcpkit.http.client")

SESSION_EXPIRED_NOTIFICATION: Final = "notifications/mcpkit/session_expired"
"""A local notification (never sent by a server) telling the client its session was replaced."""
NO_GET_STREAM_STATUSES: Final = frozenset({400, 404, 405})
"""Answers to the GET that mean "this server offers no stream", not a failure."""
FALLBACK_STATUSES: Final = frozenset({400, 404, 405})
"""Answers to the ``initialize`` POST after which the 2024-11-05 transport is tried."""


@dataclass(frozen=True, slots=True)
class SessionExpired:
    """The server forgot our session (404) and a new one was started in its place."""

    previous_session_id: str | None
    session_id: str | None
    protocol_version: str | None


SessionExpiredCallback = Callable[[SessionExpired], Awaitable[None] | None]


class _SessionGone(Exception):
    """Internal: a message got 404 for our session id."""


class _Count:
    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events = 0


def _describe(message: Message) -> str:
    if isinstance(message, Request | Notification):
        return message.method
    return f"response to {message.id!r}"


class LegacySessionStream:
    """See the module docstring. Open it with ``HttpClientTransport.open_legacy_stream()``."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        options: HttpClientOptions,
        *,
        on_session_expired: SessionExpiredCallback | None = None,
    ) -> None:
        self._http = http
        self._url = url
        self._options = options
        self._on_session_expired = on_session_expired
        self._inbox = Inbox(MAX_QUEUED_INBOUND)
        self._scope = WorkScope(f"legacy HTTP session with {url}")
        self.session_id: str | None = None
        """The ``Mcp-Session-Id`` the server issued (``None``: a stateless server)."""
        self._connection: Connection[Any, Any] | None = None
        self.session_restarts = 0
        """How many times the session expired and was started again."""
        self._initialize: Request | None = None
        self._generation = 0
        self._restart_lock = asyncio.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._fallback: LegacySSEStream | None = None
        self._reinit_ids = itertools.count(1)
        self._answered: dict[RequestId, asyncio.Event] = {}
        """Requests whose SSE stream is being followed: set when their answer arrives on any
        stream (a server may send it on the GET stream while we are resuming the POST's)."""
        self._closed = False

    def bind_connection(self, connection: Connection[Any, Any]) -> None:
        """Take the negotiated revision from ``connection`` (the session running over this
        stream calls it): the one place it is recorded, for the ``MCP-Protocol-Version``
        header and for replacing an expired session."""
        self._connection = connection

    @property
    def protocol_version(self) -> str | None:
        """The revision sent as ``MCP-Protocol-Version``: the bound connection's."""
        connection = self._connection
        return connection.protocol_version if connection is not None else None

    @property
    def transport(self) -> str:
        """``"streamable-http"``, or ``"http+sse"`` after falling back to 2024-11-05."""
        return "http+sse" if self._fallback is not None else "streamable-http"

    # -- MessageStream -------------------------------------------------------------------------

    async def send(self, message: Message) -> None:
        if self._closed:
            raise ConnectionClosed(f"the legacy HTTP session with {self._url} was closed")
        if self._fallback is not None:
            await self._fallback.send(message)
            return
        await self._scope.run(self._send(message))

    async def receive(self) -> Message | MessageDecodeError | None:
        return await self._inbox.get()

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._scope.aclose()
        if self._fallback is not None:
            await self._fallback.aclose()
        else:
            await self._delete_session()
        self._inbox.close()

    # -- sending -------------------------------------------------------------------------------

    async def _send(self, message: Message) -> None:
        if (
            isinstance(message, Request)
            and message.method == "initialize"
            and self._initialize is None
        ):
            self._initialize = message
            await self._send_initialize(message)
            return
        restarts = 0
        while True:
            generation, sent_in = self._generation, self.session_id
            try:
                await self._post(message)
                break
            except _SessionGone:
                if self._initialize is None or restarts >= MAX_SESSION_RESTARTS:
                    raise RemoteProtocolError(
                        f"POST {self._url} ({_describe(message)}): HTTP 404 for session "
                        f"{self.session_id!r} again after starting a new session"
                    ) from None
                restarts += 1
                await self._restart(generation)
                if isinstance(message, Response | ErrorResponse):
                    raise RemoteProtocolError(
                        f"POST {self._url} ({_describe(message)}): the session that asked "
                        "for it expired (HTTP 404); a new session was started without it"
                    ) from None
                if isinstance(message, Request):
                    raise SessionReplaced(
                        f"POST {self._url} ({message.method}): session {sent_in!r} expired "
                        f"(HTTP 404) and session {self.session_id!r} replaced it; the request "
                        "was not sent in the new session"
                    ) from None
                # a notification: shaped again for the new session's revision, and observed
                message = self._reshape(message)
        if isinstance(message, Notification) and message.method == INITIALIZED_NOTIFICATION:
            self._start_listening()

    def _reshape(self, message: Message) -> Message:
        """``message`` through the connection's send point again, for the session now in
        place."""
        connection = self._connection
        return message if connection is None else connection.send(message)

    def _headers(self, *, accept: str, initialize: bool = False) -> dict[str, str]:
        headers = {"Accept": accept}
        if not initialize:
            if self.session_id is not None:
                headers[MCP_SESSION_ID_HEADER] = self.session_id
            if self.protocol_version is not None:
                headers[MCP_PROTOCOL_VERSION_HEADER] = self.protocol_version
        return headers

    async def _send_initialize(self, request: Request) -> None:
        doing = f"POST {self._url} (initialize)"
        headers = self._headers(accept=POST_ACCEPT, initialize=True)
        headers["Content-Type"] = JSON_MEDIA
        rejection: RemoteProtocolError | None = None
        try:
            async with self._http.stream(
                "POST", self._url, content=encode_message(request), headers=headers
            ) as response:
                if response.status_code in FALLBACK_STATUSES:
                    body = await error_response_body(response, doing)
                    error = error_body(body)
                    if error is not None and is_modern_rejection(response.status_code, error):
                        await self._inbox.put(ErrorResponse(request.id, error.error))
                        return
                    rejection = status_error(response, body, doing)
                else:
                    await self._handle(response, request, doing)
        except httpx.HTTPError as exc:
            raise translate(exc, doing) from exc
        if rejection is not None:
            await self._fall_back(request, rejection)

    async def _fall_back(self, request: Request, rejection: RemoteProtocolError) -> None:
        """The URL refused Streamable HTTP: try it as a 2024-11-05 HTTP+SSE server."""
        logger.info("%s; trying the 2024-11-05 HTTP+SSE transport", rejection)
        sse = LegacySSEStream(self._http, self._url, self._options, self._inbox)
        try:
            await sse.connect()
        except (ConnectionBroken, RemoteProtocolError) as exc:
            raise RemoteProtocolError(
                f"{self._url} is neither a Streamable HTTP nor an HTTP+SSE MCP endpoint: "
                f"{rejection}; then {exc}"
            ) from None
        self._fallback = sse
        await sse.send(request)

    async def _post(self, message: Message) -> None:
        doing = f"POST {self._url} ({_describe(message)})"
        headers = self._headers(accept=POST_ACCEPT)
        headers["Content-Type"] = JSON_MEDIA
        try:
            async with self._http.stream(
                "POST", self._url, content=encode_message(message), headers=headers
            ) as response:
                await self._handle(response, message, doing)
        except httpx.HTTPError as exc:
            raise translate(exc, doing) from exc

    async def _handle(self, response: httpx.Response, message: Message, doing: str) -> None:
        status = response.status_code
        is_initialize = isinstance(message, Request) and message.method == "initialize"
        if status == 404 and self.session_id is not None and not is_initialize:
            raise _SessionGone
        if status >= 300:
            body = await error_response_body(response, doing)
            error = error_body(body)
            if isinstance(message, Request) and error is not None:
                request_id = message.id if error.id is None else error.id
                await self._inbox.put(ErrorResponse(request_id, error.error))
                return
            raise status_error(response, body, doing)
        if not isinstance(message, Request):
            return  # 202 (or any 2xx) accepts a notification or a response
        if status in (202, 204):
            raise RemoteProtocolError(
                f"{doing}: HTTP {status} with no body, but a request needs a response"
            )
        if is_initialize:
            self._adopt_session_id(response, doing)
        media = media_type(response)
        if media == JSON_MEDIA:
            data = await read_limited(response, self._options.max_event_bytes, doing)
            answer = decode_body(data, doing)
            if isinstance(answer, ErrorResponse) and answer.id is None:
                answer = ErrorResponse(message.id, answer.error)
            if not isinstance(answer, Response | ErrorResponse) or answer.id != message.id:
                raise RemoteProtocolError(
                    f"{doing}: the JSON body is not the response to request {message.id!r}"
                )
            await self._deliver(answer)
            return
        if media == SSE_MEDIA:
            self._answered[message.id] = asyncio.Event()
            try:
                await self._follow(response, message, doing)
            finally:
                self._answered.pop(message.id, None)
            return
        body = await error_response_body(response, doing)
        raise RemoteProtocolError(
            f"{doing}: unexpected Content-Type {media or 'none'!r} (a request is answered with "
            f"{JSON_MEDIA} or {SSE_MEDIA}): {body[:200]!r}"
        )

    def _adopt_session_id(self, response: httpx.Response, doing: str) -> None:
        session_id = response.headers.get(MCP_SESSION_ID_HEADER)
        if session_id is None:
            self.session_id = None
            return
        if not is_valid_session_id(session_id):
            raise RemoteProtocolError(
                f"{doing}: the server issued a malformed {MCP_SESSION_ID_HEADER} "
                f"({session_id[:40]!r}): it must be 1-128 visible ASCII characters"
            )
        self.session_id = session_id

    async def _deliver(self, message: Message | MessageDecodeError) -> None:
        if isinstance(message, Response | ErrorResponse) and message.id is not None:
            answered = self._answered.get(message.id)
            if answered is not None:
                answered.set()
        await self._inbox.put(message)

    # -- SSE streams and their resumption ------------------------------------------------------

    async def _read(
        self,
        response: httpx.Response,
        decoder: SSEDecoder,
        answer_to: RequestId | None,
        doing: str,
        *,
        keep_answer: bool = False,
        seen: _Count | None = None,
    ) -> tuple[Response | ErrorResponse | None, int]:
        """Deliver the stream's messages; stop at the answer to ``answer_to`` (returned, and
        not delivered if ``keep_answer``). Also returns how many events arrived (and counts
        them in ``seen``, which survives the stream breaking)."""
        events = 0
        async for event in iter_events(response, decoder, doing):
            events += 1
            if seen is not None:
                seen.events += 1
            if event.event != "message" or not event.data.strip():
                continue  # priming events, keep-alives and foreign event types
            try:
                message: Message | MessageDecodeError = decode_message(event.data)
            except MessageDecodeError as exc:
                message = exc
            if (
                answer_to is not None
                and isinstance(message, Response | ErrorResponse)
                and message.id == answer_to
            ):
                if not keep_answer:
                    await self._deliver(message)
                return message, events
            await self._deliver(message)
        return None, events

    async def _follow(
        self,
        response: httpx.Response,
        request: Request,
        doing: str,
        *,
        keep_answer: bool = False,
    ) -> Response | ErrorResponse | None:
        """Read a request's SSE stream to its answer, resuming it if it breaks first (``None``:
        the answer arrived on another stream meanwhile)."""
        decoder = SSEDecoder(self._options.max_event_bytes)
        failure: ConnectionBroken | RemoteProtocolError
        try:
            answer, _ = await self._read(
                response, decoder, request.id, doing, keep_answer=keep_answer
            )
            if answer is not None:
                return answer
            failure = RemoteProtocolError(f"{doing}: the stream ended before the response")
        except ConnectionBroken as exc:
            failure = exc
        await response.aclose()
        return await self._resume(decoder, request, failure, keep_answer=keep_answer)

    async def _resume(
        self,
        decoder: SSEDecoder,
        request: Request,
        failure: ConnectionBroken | RemoteProtocolError,
        *,
        keep_answer: bool,
    ) -> Response | ErrorResponse | None:
        attempts = self._options.reconnect_attempts
        failures = 0
        answered = self._answered.get(request.id)
        while True:
            if answered is not None and answered.is_set():
                return None
            if not decoder.last_event_id:
                raise _explain(failure, "the server gave no event id to resume from")
            if failures >= attempts:
                raise _explain(failure, f"gave up resuming after {attempts} attempt(s)")
            delay = self._options.backoff(decoder.retry, failures)
            if answered is None:
                await asyncio.sleep(delay)
            else:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await answered.wait()
                if answered.is_set():
                    return None
            failures += 1
            last = decoder.last_event_id
            doing = f"GET {self._url} (resuming {request.method} after event {last!r})"
            headers = self._headers(accept=GET_ACCEPT)
            headers[LAST_EVENT_ID_HEADER] = last
            seen = _Count()
            try:
                async with self._http.stream("GET", self._url, headers=headers) as response:
                    if response.status_code != 200 or media_type(response) != SSE_MEDIA:
                        body = await error_response_body(response, doing)
                        failure = status_error(response, body, doing)
                        if 400 <= response.status_code < 500:
                            raise _explain(failure, "the server cannot resume this stream")
                        continue
                    answer, _ = await self._read(
                        response, decoder, request.id, doing, keep_answer=keep_answer, seen=seen
                    )
                    if answer is not None:
                        return answer
                    failure = RemoteProtocolError(f"{doing}: the stream ended before the response")
            except httpx.HTTPError as exc:
                failure = translate(exc, doing)
            except ConnectionBroken as exc:
                failure = exc
            if seen.events:
                failures = 0  # it moved on: a server that polls is followed for as long as it takes

    # -- the GET stream ------------------------------------------------------------------------

    def _start_listening(self) -> None:
        if not self._options.listen_stream or self._closed or self._fallback is not None:
            return
        if self._listener is not None and not self._listener.done():
            return
        self._listener = self._scope.spawn(self._listen(), name=f"mcpkit-http-get {self._url}")

    async def _stop_listening(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None and not listener.done():
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)

    async def _listen(self) -> None:
        decoder = SSEDecoder(self._options.max_event_bytes)
        failures = 0
        doing = f"GET {self._url} (messages outside requests)"
        while True:
            headers = self._headers(accept=GET_ACCEPT)
            if decoder.last_event_id:
                headers[LAST_EVENT_ID_HEADER] = decoder.last_event_id
            failure: ConnectionBroken | RemoteProtocolError | None = None
            seen = _Count()
            try:
                async with self._http.stream("GET", self._url, headers=headers) as response:
                    status = response.status_code
                    if status in NO_GET_STREAM_STATUSES:
                        logger.debug("%s: no GET stream here (HTTP %d)", self._url, status)
                        return
                    if status != 200 or media_type(response) != SSE_MEDIA:
                        body = await error_response_body(response, doing)
                        failure = status_error(response, body, doing)
                    else:
                        await self._read(response, decoder, None, doing, seen=seen)
            except httpx.HTTPError as exc:
                failure = translate(exc, doing)
            except (ConnectionBroken, RemoteProtocolError) as exc:
                failure = exc
            # Anything received counts as progress (a polling server closes after each event).
            failures = 0 if seen.events else failures + 1
            if failures > self._options.reconnect_attempts:
                if isinstance(failure, ConnectionBroken):
                    # The server is unreachable: fail the session so pending and idle clients
                    # alike learn it now rather than at their next call.
                    self._inbox.fail(
                        ConnectionBroken(f"{failure} (the GET stream could not be re-opened)")
                    )
                else:
                    logger.warning(
                        "%s: giving up the GET stream: %s",
                        self._url,
                        failure or "the server keeps ending it without sending anything",
                    )
                return
            await asyncio.sleep(self._options.backoff(decoder.retry, max(failures - 1, 0)))

    # -- session expiry ------------------------------------------------------------------------

    async def _restart(self, generation: int) -> None:
        """Replace an expired session (once, however many requests noticed it)."""
        async with self._restart_lock:
            if self._generation != generation:
                return  # another request already started the new session
            initialize = self._initialize
            assert initialize is not None
            previous = self.session_id
            logger.warning(
                "%s: session %r expired (HTTP 404); starting a new session", self._url, previous
            )
            await self._stop_listening()
            self.session_id = None
            old_version = self.protocol_version
            request = Request(
                f"mcpkit-reinitialize-{next(self._reinit_ids)}", "initialize", initialize.params
            )
            connection = self._connection
            if not isinstance(connection, ClientConnection):
                raise RemoteProtocolError(
                    f"session {previous!r} expired (HTTP 404), and only a client connection "
                    "can start a new one"
                )
            sent = connection.start_renewal(request)
            answer = await self._reinitialize(request, sent)
            try:
                initialized = connection.finish_renewal(answer)
            except MCPError as exc:
                raise RemoteProtocolError(
                    f"the session expired and the server refused a new one: {exc}"
                ) from None
            if self.protocol_version != old_version:
                logger.info(
                    "%s: the new session speaks %s (was %s)",
                    self._url,
                    self.protocol_version,
                    old_version,
                )
            # the connection holds the new session's verdict from here on, whatever follows
            self._generation += 1
            self.session_restarts += 1
            try:
                await self._post(initialized)
            except _SessionGone:
                raise RemoteProtocolError(
                    f"session {previous!r} expired (HTTP 404), and session {self.session_id!r} "
                    "started in its place was gone (HTTP 404) before notifications/initialized"
                ) from None
            self._start_listening()
            await self._report_expiry(
                SessionExpired(previous, self.session_id, self.protocol_version)
            )

    async def _reinitialize(self, request: Request, sent: Message) -> Response | ErrorResponse:
        """POST ``sent`` (``request`` as the connection shaped it) and return its answer."""
        doing = f"POST {self._url} (initialize, new session)"
        headers = self._headers(accept=POST_ACCEPT, initialize=True)
        headers["Content-Type"] = JSON_MEDIA
        try:
            async with self._http.stream(
                "POST", self._url, content=encode_message(sent), headers=headers
            ) as response:
                if response.status_code >= 300:
                    body = await error_response_body(response, doing)
                    raise status_error(response, body, doing)
                self._adopt_session_id(response, doing)
                if media_type(response) == SSE_MEDIA:
                    kept = await self._follow(response, request, doing, keep_answer=True)
                    assert kept is not None  # kept answers are never delivered elsewhere
                    return kept
                data = await read_limited(response, self._options.max_event_bytes, doing)
                answer = decode_body(data, doing)
                if not isinstance(answer, Response | ErrorResponse):
                    raise RemoteProtocolError(f"{doing}: the body is not a response")
                return answer
        except httpx.HTTPError as exc:
            raise translate(exc, doing) from exc

    async def _report_expiry(self, event: SessionExpired) -> None:
        if self._on_session_expired is not None:
            try:
                outcome = self._on_session_expired(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("%s: the session-expired callback failed", self._url)
        await self._inbox.put(
            Notification(
                SESSION_EXPIRED_NOTIFICATION,
                {
                    "previousSessionId": event.previous_session_id,
                    "sessionId": event.session_id,
                    "protocolVersion": event.protocol_version,
                },
            )
        )

    # -- closing -------------------------------------------------------------------------------

    async def _delete_session(self) -> None:
        session_id = self.session_id
        if session_id is None:
            return
        headers = self._headers(accept=POST_ACCEPT)
        try:
            async with asyncio.timeout(self._options.delete_timeout):
                response = await self._http.delete(self._url, headers=headers)
        except (httpx.HTTPError, TimeoutError) as exc:
            logger.debug("%s: DELETE of session %r failed: %s", self._url, session_id, exc)
            return
        if response.status_code not in (200, 202, 204, 404, 405):
            logger.debug(
                "%s: DELETE of session %r answered HTTP %d",
                self._url,
                session_id,
                response.status_code,
            )


def _explain(
    failure: ConnectionBroken | RemoteProtocolError, why: str
) -> ConnectionBroken | RemoteProtocolError:
    """The same kind of error, saying why it is final."""
    return type(failure)(f"{failure} ({why})")

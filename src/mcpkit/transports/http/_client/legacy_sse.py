"""The 2024-11-05 HTTP+SSE client transport (deprecated by the spec, still deployed).

Two endpoints: a GET opens an event stream whose first event, ``endpoint``, names the URL to
POST messages to; every server message then arrives on that stream as a ``message`` event. The
POST answers only say "accepted" (202). There is no resumption: the server's session lives as
long as the event stream, so when it ends, the connection is over
(:class:`~mcpkit.protocol._errors.ConnectionBroken` for whoever is waiting).

Reached from the Streamable HTTP client when a server rejects the ``initialize`` POST with
400/404/405 and no modern JSON-RPC error (:mod:`mcpkit.transports.http._client.legacy`), or
directly with :func:`open_legacy_sse`.

The ``endpoint`` must be on the same origin as the event stream: a server naming another host
would otherwise receive our messages, and any credentials the HTTP client attaches.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Final

import httpx

from mcpkit.protocol._codec import decode_message, encode_message
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    MessageDecodeError,
    RemoteProtocolError,
)
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http._client.inbox import Inbox
from mcpkit.transports.http._client.options import MAX_QUEUED_INBOUND, HttpClientOptions
from mcpkit.transports.http._client.scope import WorkScope
from mcpkit.transports.http._client.wire import (
    GET_ACCEPT,
    JSON_MEDIA,
    SSE_MEDIA,
    error_response_body,
    iter_events,
    media_type,
    status_error,
    translate,
)
from mcpkit.types._jsonrpc import Message

__all__ = ["ENDPOINT_EVENT", "LegacySSEStream", "open_legacy_sse"]

logger = logging.getLogger("mcpkit.http.client")

ENDPOINT_EVENT: Final = "endpoint"
MESSAGE_EVENT: Final = "message"


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _describe(message: Message) -> str:
    method = getattr(message, "method", None)
    return method if isinstance(method, str) else "response"


class LegacySSEStream:
    """A :class:`~mcpkit._runtime.stream.MessageStream` over the 2024-11-05 HTTP+SSE transport.

    Call :meth:`connect` (GET, wait for ``endpoint``) before sending. ``inbox`` lets the
    Streamable HTTP stream that fell back to this one keep its receiver.
    """

    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        options: HttpClientOptions,
        inbox: Inbox | None = None,
    ) -> None:
        self._http = http
        self._url = httpx.URL(url)
        self._options = options
        self._owns_inbox = inbox is None
        self._inbox = inbox if inbox is not None else Inbox(MAX_QUEUED_INBOUND)
        self._scope = WorkScope(f"HTTP+SSE connection to {url}")
        self.endpoint: str | None = None
        """The URL messages are POSTed to (from the ``endpoint`` event)."""
        self._ready: asyncio.Future[str] | None = None
        self._closed = False

    async def connect(self) -> None:
        """Open the event stream and wait (bounded) for its ``endpoint`` event."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._scope.spawn(self._read(self._ready), name=f"mcpkit-sse-events {self._url}")
        try:
            async with asyncio.timeout(self._options.endpoint_timeout):
                self.endpoint = await asyncio.shield(self._ready)
        except TimeoutError:
            await self.aclose()
            raise RemoteProtocolError(
                f"GET {self._url}: no {ENDPOINT_EVENT!r} event within "
                f"{self._options.endpoint_timeout:g} s (not a 2024-11-05 HTTP+SSE server)"
            ) from None
        except BaseException:
            await self.aclose()
            raise
        logger.info("%s: HTTP+SSE (2024-11-05) transport, posting to %s", self._url, self.endpoint)

    async def send(self, message: Message) -> None:
        if self._closed:
            raise ConnectionClosed(f"the HTTP+SSE connection to {self._url} was closed")
        if self.endpoint is None:
            raise ConnectionClosed(f"the HTTP+SSE connection to {self._url} is not open yet")
        await self._scope.run(self._post(self.endpoint, message))

    async def _post(self, endpoint: str, message: Message) -> None:
        doing = f"POST {endpoint} ({_describe(message)})"
        try:
            async with self._http.stream(
                "POST",
                endpoint,
                content=encode_message(message),
                headers={"Content-Type": JSON_MEDIA},
            ) as response:
                if response.status_code in (200, 202, 204):
                    return
                body = await error_response_body(response, doing)
                raise status_error(response, body, doing)
        except httpx.HTTPError as exc:
            raise translate(exc, doing) from exc

    async def receive(self) -> Message | MessageDecodeError | None:
        return await self._inbox.get()

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._scope.aclose()
        if self._owns_inbox:
            self._inbox.close()

    # -- the event stream ----------------------------------------------------------------------

    async def _read(self, ready: asyncio.Future[str]) -> None:
        doing = f"GET {self._url} (HTTP+SSE event stream)"
        failure: ConnectionBroken | RemoteProtocolError
        try:
            async with self._http.stream(
                "GET", self._url, headers={"Accept": GET_ACCEPT}
            ) as response:
                if response.status_code != 200 or media_type(response) != SSE_MEDIA:
                    body = await error_response_body(response, doing)
                    failure = status_error(response, body, doing)
                    if response.status_code == 200:
                        failure = RemoteProtocolError(
                            f"{doing}: expected {SSE_MEDIA}, got "
                            f"{media_type(response) or 'no Content-Type'!r}"
                        )
                else:
                    failure = await self._events(response, ready, doing)
        except httpx.HTTPError as exc:
            failure = translate(exc, doing)
        except (ConnectionBroken, RemoteProtocolError) as exc:
            failure = exc
        if not ready.done():
            ready.set_exception(failure)
            ready.exception()  # retrieved here if connect() already gave up
        elif not self._closed:
            broken = (
                failure if isinstance(failure, ConnectionBroken) else ConnectionBroken(f"{failure}")
            )
            self._inbox.fail(broken)

    async def _events(
        self, response: httpx.Response, ready: asyncio.Future[str], doing: str
    ) -> ConnectionBroken | RemoteProtocolError:
        decoder = SSEDecoder(self._options.max_event_bytes)
        async for event in iter_events(response, decoder, doing):
            if not ready.done():
                if event.event != ENDPOINT_EVENT:
                    return RemoteProtocolError(
                        f"{doing}: the first event is {event.event!r}, not {ENDPOINT_EVENT!r} "
                        "(not a 2024-11-05 HTTP+SSE server)"
                    )
                try:
                    ready.set_result(self._resolve_endpoint(event.data.strip(), doing))
                except RemoteProtocolError as exc:
                    return exc
                continue
            if event.event != MESSAGE_EVENT:
                logger.debug("%s: ignored a %r event", doing, event.event)
                continue
            try:
                item: Message | MessageDecodeError = decode_message(event.data)
            except MessageDecodeError as exc:
                item = exc
            await self._inbox.put(item)
        return ConnectionBroken(f"{doing}: the server closed the event stream")

    def _resolve_endpoint(self, data: str, doing: str) -> str:
        if not data:
            raise RemoteProtocolError(f"{doing}: the {ENDPOINT_EVENT!r} event names no URL")
        try:
            endpoint = self._url.join(data)
        except httpx.InvalidURL as exc:
            raise RemoteProtocolError(f"{doing}: bad endpoint URL {data!r}: {exc}") from None
        if _origin(endpoint) != _origin(self._url):
            raise RemoteProtocolError(
                f"{doing}: the endpoint {str(endpoint)!r} is on another origin than "
                f"{str(self._url)!r}; refusing to send messages there"
            )
        return str(endpoint)


@contextlib.asynccontextmanager
async def open_legacy_sse(
    http: httpx.AsyncClient, url: str, options: HttpClientOptions | None = None
) -> AsyncIterator[LegacySSEStream]:
    """Connect to a 2024-11-05 HTTP+SSE server directly (no Streamable HTTP attempt first)."""
    stream = LegacySSEStream(http, url, options or HttpClientOptions())
    await stream.connect()
    try:
        yield stream
    finally:
        await stream.aclose()

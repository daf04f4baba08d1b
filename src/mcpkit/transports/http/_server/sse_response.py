"""One HTTP response over ASGI: a JSON body, an empty status, or a Server-Sent Events stream.

The ASGI app never writes to ``send`` from two places at once: every response has exactly one
:class:`HttpResponse`, owned by the coroutine serving the request. Write failures are not
exceptions here: a client that went away makes the response ``broken`` (and the caller stops
writing), because a vanished client is an everyday event on HTTP, not a server error.

ASGI servers differ on writes after a disconnect (uvicorn drops them silently, others raise), so
both look the same from here: :attr:`HttpResponse.broken` plus :func:`watch_disconnect`, the
only reliable signal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import Any, Final

from mcpkit.protocol._codec import encode_json
from mcpkit.protocol._http_routing import SSE_RESPONSE_HEADERS
from mcpkit.protocol._sse import encode_comment, encode_event
from mcpkit.types._jsonrpc import ErrorResponse, message_to_dict

__all__ = [
    "Headers",
    "HttpResponse",
    "Receive",
    "Scope",
    "Send",
    "watch_disconnect",
]

logger = logging.getLogger("mcpkit.http")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Headers = Sequence[tuple[bytes, bytes]]

JSON_HEADERS: Final[Headers] = ((b"content-type", b"application/json"),)
SSE_HEADERS: Final[Headers] = tuple((k.encode(), v.encode()) for k, v in SSE_RESPONSE_HEADERS)
SSE_BODY_HEADERS: Final[Headers] = ((b"content-type", b"text/event-stream"),)
"""An event stream sent as one complete body: ``Cache-Control: no-cache`` and ``X-Accel-Buffering:
no`` are for a live stream (no proxy may hold its events back or serve a stored copy); a body
with a ``Content-Length`` that is sent at once has nothing to hold back, and the answer to a POST
is not stored by a cache without explicit freshness (RFC 9111 §4.2). Each header costs the
ASGI server's Python code too (h11 validates every one): ~1.5 µs of CPU per answer here."""


def encode_headers(pairs: Iterable[tuple[str, str]]) -> Headers:
    return tuple((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in pairs)


class HttpResponse:
    """The single writer of one ASGI HTTP response (see the module docstring)."""

    __slots__ = ("_send", "broken", "finished", "sse", "started")

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False
        self.sse = False
        self.finished = False
        self.broken = False
        """The client is gone (a write failed or a disconnect was seen): stop writing."""

    async def _write(self, message: MutableMapping[str, Any]) -> bool:
        if self.broken or self.finished:
            return False
        try:
            await self._send(message)
        except Exception as exc:  # OSError, a server's ClientDisconnected, RuntimeError ...
            logger.debug("response write failed (client gone?): %r", exc)
            self.broken = True
            return False
        return True

    async def _start(self, status: int, headers: Headers) -> bool:
        if self.started:
            return not self.broken
        self.started = True
        return await self._write(
            {"type": "http.response.start", "status": status, "headers": headers}
        )

    async def body(self, status: int, body: bytes, headers: Headers) -> None:
        """A complete response (status, headers and the whole body at once)."""
        await self._complete(status, body, [*headers, (b"content-length", b"%d" % len(body))])

    async def _complete(self, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        """:meth:`body` with the ``Content-Length`` already among ``headers``: the two writes of
        almost every answer, without the bookkeeping of a stream."""
        if self.started or self.broken or self.finished:
            if await self._start(status, headers):
                await self._write({"type": "http.response.body", "body": body, "more_body": False})
            self.finished = True
            return
        self.started = True
        try:
            send = self._send
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})
        except Exception as exc:  # OSError, a server's ClientDisconnected, RuntimeError ...
            logger.debug("response write failed (client gone?): %r", exc)
            self.broken = True
        self.finished = True

    async def json(self, status: int, value: Any, headers: Headers = ()) -> None:
        await self.json_bytes(status, encode_json(value), headers)

    def json_bytes(self, status: int, data: bytes, headers: Headers = ()) -> Awaitable[None]:
        """A JSON body (encoded). A plain function: the awaitable it returns is the whole work,
        one coroutine less on (nearly) every answer."""
        length = (b"content-length", b"%d" % len(data))
        return self._complete(status, data, [*JSON_HEADERS, *headers, length])

    async def error(self, status: int, error: ErrorResponse, headers: Headers = ()) -> None:
        """An HTTP error whose body is a JSON-RPC error response (the id may be ``None``)."""
        await self.json(status, message_to_dict(error), headers)

    async def empty(self, status: int, headers: Headers = ()) -> None:
        await self.body(status, b"", list(headers))

    async def text(self, status: int, text: str, headers: Headers = ()) -> None:
        await self.body(
            status, text.encode(), [(b"content-type", b"text/plain; charset=utf-8"), *headers]
        )

    # -- SSE ---------------------------------------------------------------------------------

    async def start_sse(self, headers: Headers = ()) -> bool:
        """Send the status and headers of an event stream (200); ``False`` if the client left."""
        self.sse = True
        return await self._start(200, [*SSE_HEADERS, *headers])

    def sse_complete(self, events: bytes, headers: Headers = ()) -> Awaitable[None]:
        """A whole event stream at once, when every event is known before the first byte: one
        body with a ``Content-Length`` (two writes) instead of a chunked stream (three or more).
        The client reads the same events and sees the stream end (see :data:`SSE_BODY_HEADERS`).
        A plain function, as :meth:`json_bytes`."""
        self.sse = True
        length = (b"content-length", b"%d" % len(events))
        return self._complete(200, events, [*SSE_BODY_HEADERS, *headers, length])

    async def event(
        self,
        data: bytes,
        *,
        event_id: str | None = None,
        retry: int | None = None,
        event: str | None = None,
    ) -> bool:
        return await self.raw(encode_event(data, id=event_id, retry=retry, event=event))

    async def comment(self, text: str = "") -> bool:
        return await self.raw(encode_comment(text))

    async def raw(self, chunk: bytes) -> bool:
        return await self._write({"type": "http.response.body", "body": chunk, "more_body": True})

    async def end(self) -> None:
        """Finish the response (for SSE: close the stream cleanly)."""
        if self.started and not self.finished:
            await self._write({"type": "http.response.body", "body": b"", "more_body": False})
        self.finished = True


async def watch_disconnect(receive: Receive, on_disconnect: Callable[[], None]) -> None:
    """Wait for ``http.disconnect`` (the body was already read), then call ``on_disconnect``.

    Servers also send it once the response is complete, so this task always ends.
    """
    try:
        while True:
            message = await receive()
            if message.get("type") == "http.disconnect":
                break
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a server that fails receive() after the end: same meaning
        logger.debug("receive failed while watching for a disconnect: %r", exc)
    on_disconnect()

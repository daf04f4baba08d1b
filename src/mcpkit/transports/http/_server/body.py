"""Reading a request body over ASGI, bounded in size and in time.

A client that announces or sends more than the limit gets 413 without the server buffering it,
and one that trickles its body (a slowloris) gets 408 when the whole body has not arrived in time.
An oversized body that announced its ``Content-Length`` (up to :data:`DRAIN_FACTOR` times the
limit) is read and discarded first, in the same time bound, so the client — still sending —
actually receives the 413 and its error (with the request's ``id`` when the body's first bytes
show it) instead of a reset connection; larger or unannounced ones are answered at once. Either
way the connection is closed after the answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any, Final

from mcpkit._runtime.step import Pending, finish, step
from mcpkit.protocol._framing import HEAD_BYTES
from mcpkit.transports.http._server.sse_response import Receive

__all__ = [
    "BODY_TIMEOUT_SECONDS",
    "DRAIN_FACTOR",
    "MAX_BODY_BYTES",
    "BodyError",
    "read_body",
]

MAX_BODY_BYTES: Final = 4 * 1024 * 1024
"""Largest accepted POST body (one JSON-RPC message); larger ones get 413."""
BODY_TIMEOUT_SECONDS: Final = 30.0
"""Time allowed for a whole body to arrive; a slower client gets 408."""
DRAIN_FACTOR: Final = 4
"""An oversized body up to this many times the limit is drained before the 413 is sent."""


class BodyError(Exception):
    """The body could not be read: ``status`` says how to answer (``None``: the client left)."""

    def __init__(self, status: int | None, message: str, head: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.head = head
        """The body's first bytes, when it was too large (to find the request's ``id``)."""


async def read_body(
    receive: Receive,
    content_length: str | None,
    limit: int = MAX_BODY_BYTES,
    timeout: float = BODY_TIMEOUT_SECONDS,
) -> bytes:
    """The whole body; raises :class:`BodyError` (413, 408, 400, or a vanished client)."""
    announced: int | None = None
    if content_length is not None:
        text = content_length.strip()
        if not text.isdigit():
            raise BodyError(400, f"Bad Request: Content-Length {content_length[:40]!r} is invalid")
        announced = int(text)
        if announced > limit * DRAIN_FACTOR:
            raise BodyError(413, _too_large(limit))
    # Usually the ASGI server read the whole (small) body with the headers, and the first
    # receive() returns it without waiting: then there is nothing to bound in time, and no
    # deadline is set (a timer, and on 3.11 two getpid system calls).
    message = step(receive())
    if isinstance(message, Pending):
        return await _read_rest(receive, message, None, announced, limit, timeout)
    if (
        not message.get("more_body", False)
        and message.get("type") == "http.request"
        and (announced is None or announced <= limit)
    ):
        chunk = message.get("body", b"")
        if len(chunk) <= limit:
            return chunk if type(chunk) is bytes else bytes(chunk)
    return await _read_rest(receive, None, message, announced, limit, timeout)


async def _read_rest(
    receive: Receive,
    pending: Pending | None,
    message: MutableMapping[str, Any] | None,
    announced: int | None,
    limit: int,
    timeout: float,
) -> bytes:
    """The body from the first message on (already received, or still ``pending``), within
    ``timeout`` seconds."""
    body = bytearray()
    head = b""
    seen = 0
    try:
        async with asyncio.timeout(timeout):
            while True:
                if pending is not None:
                    message, pending = await finish(pending), None
                elif message is None:
                    message = await receive()
                if message.get("type") == "http.disconnect":
                    raise BodyError(None, "the client went away while sending the body")
                chunk = message.get("body", b"")
                if chunk:
                    seen += len(chunk)
                    if seen <= limit and (announced is None or announced <= limit):
                        body += chunk
                    else:  # too large: keep only the head, drain the rest (bounded)
                        if not head:
                            head = bytes((body + chunk)[:HEAD_BYTES])
                            body = bytearray()
                        if announced is None or seen > announced:
                            # no length to drain to (chunked): answer now, as the client may
                            # never stop; the connection is closed after the 413
                            raise BodyError(413, _too_large(limit), head)
                if not message.get("more_body", False):
                    if head or (announced is not None and announced > limit):
                        raise BodyError(413, _too_large(limit), head)
                    return bytes(body)
                message = None
    except TimeoutError:
        if head:
            raise BodyError(413, _too_large(limit), head) from None
        raise BodyError(
            408,
            f"Request Timeout: the body did not arrive within {timeout:g} s; send it faster or "
            "in one piece",
        ) from None
    finally:
        if pending is not None:  # cancelled before it was awaited
            pending.close()


def _too_large(limit: int) -> str:
    return (
        f"Payload Too Large: a request body may be at most {limit} bytes (the server's "
        "max_body_bytes)"
    )

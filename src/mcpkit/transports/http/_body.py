"""Reading a request body over ASGI, bounded in size and in time.

A client that announces or sends more than the limit gets 413 before the server buffers it, and
one that trickles its body (a slowloris) gets 408 when the whole body has not arrived in time:
either way the connection is closed, since the rest of the body is never read.
"""

from __future__ import annotations

import asyncio
from typing import Final

from mcpkit.transports.http._sse_response import Receive

__all__ = [
    "BODY_TIMEOUT_SECONDS",
    "MAX_BODY_BYTES",
    "BodyError",
    "read_body",
]

MAX_BODY_BYTES: Final = 4 * 1024 * 1024
"""Largest accepted POST body (one JSON-RPC message); larger ones get 413."""
BODY_TIMEOUT_SECONDS: Final = 30.0
"""Time allowed for a whole body to arrive; a slower client gets 408."""


class BodyError(Exception):
    """The body could not be read: ``status`` says how to answer (``None``: the client left)."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(
    receive: Receive,
    content_length: str | None,
    *,
    limit: int = MAX_BODY_BYTES,
    timeout: float = BODY_TIMEOUT_SECONDS,
) -> bytes:
    """The whole body; raises :class:`BodyError` (413, 408, 400, or a vanished client)."""
    if content_length is not None:
        text = content_length.strip()
        if not text.isdigit():
            raise BodyError(400, f"Bad Request: Content-Length {content_length[:40]!r} is invalid")
        if int(text) > limit:
            raise BodyError(413, _too_large(limit))
    body = bytearray()
    try:
        async with asyncio.timeout(timeout):
            while True:
                message = await receive()
                if message.get("type") == "http.disconnect":
                    raise BodyError(None, "the client went away while sending the body")
                chunk = message.get("body", b"")
                if chunk:
                    body += chunk
                    if len(body) > limit:
                        raise BodyError(413, _too_large(limit))
                if not message.get("more_body", False):
                    return bytes(body)
    except TimeoutError:
        raise BodyError(
            408,
            f"Request Timeout: the body did not arrive within {timeout:g} s; send it faster or "
            "in one piece",
        ) from None


def _too_large(limit: int) -> str:
    return (
        f"Payload Too Large: a request body may be at most {limit} bytes (the server's "
        "max_body_bytes)"
    )

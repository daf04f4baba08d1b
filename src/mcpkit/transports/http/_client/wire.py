"""What every leg of the HTTP client shares: reading bodies and SSE, and naming failures.

This is the boundary where httpx's exceptions stop: a network failure becomes
:class:`~mcpkit.protocol._errors.ConnectionBroken` (saying what was being done, to which URL), a
server that answers something unusable becomes
:class:`~mcpkit.protocol._errors.RemoteProtocolError` quoting what it sent. Everything read is
bounded (:attr:`HttpClientOptions.max_event_bytes` per event or JSON body,
:data:`MAX_ERROR_BODY_BYTES` for error bodies).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

import httpx

from mcpkit.protocol._codec import decode_message
from mcpkit.protocol._errors import (
    HEADER_MISMATCH,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    AuthorizationError,
    ConnectionBroken,
    MessageDecodeError,
    RemoteProtocolError,
    SSEProtocolError,
)
from mcpkit.protocol._sse import SSEDecoder, SSEEvent
from mcpkit.transports.http._client.options import MAX_ERROR_BODY_BYTES
from mcpkit.types._jsonrpc import ErrorResponse, Message

__all__ = [
    "GET_ACCEPT",
    "JSON_MEDIA",
    "MODERN_ERROR_CODES",
    "POST_ACCEPT",
    "SSE_MEDIA",
    "decode_body",
    "error_body",
    "error_response_body",
    "is_modern_rejection",
    "iter_events",
    "media_type",
    "read_limited",
    "snippet",
    "status_error",
    "translate",
]

JSON_MEDIA: Final = "application/json"
SSE_MEDIA: Final = "text/event-stream"
POST_ACCEPT: Final = f"{JSON_MEDIA}, {SSE_MEDIA}"
GET_ACCEPT: Final = SSE_MEDIA
MODERN_ERROR_CODES: Final = frozenset(
    {HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION}
)
"""The JSON-RPC errors a 2026 server answers with HTTP 400 (era detection keys on them)."""
SNIPPET_CHARS: Final = 200
"""How much of an unusable body an error message quotes."""
_AUTH_HINT: Final = {
    401: "the server requires authorization: connect with "
    "Client(HttpClientConnector(url, auth=...)) (for example auth=mcpkit.contrib.auth."
    "OAuthClient(url)), or send an Authorization header (HttpClientConnector(url, headers=...); "
    "mcpkit's --bearer)",
    403: "the server refused these credentials (or their scopes)",
}


def media_type(response: httpx.Response) -> str:
    """The response's media type, lower-cased, without parameters (``""`` when absent)."""
    value: str = response.headers.get("content-type", "")
    return value.partition(";")[0].strip().lower()


def snippet(body: bytes) -> str:
    """A short, printable quote of a body for error messages."""
    text = body[: SNIPPET_CHARS * 4].decode("utf-8", "replace").strip()
    if not text:
        return "(empty body)"
    if len(text) > SNIPPET_CHARS:
        text = text[:SNIPPET_CHARS] + "..."
    return repr(text)


def translate(exc: httpx.HTTPError, doing: str) -> ConnectionBroken:
    """An httpx failure as the transport error callers understand, naming what failed."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return ConnectionBroken(f"cannot connect for {doing}: {detail}")
    if isinstance(exc, httpx.TimeoutException):
        return ConnectionBroken(f"{doing} timed out ({type(exc).__name__}): {detail}")
    if isinstance(exc, httpx.TransportError):
        return ConnectionBroken(f"the connection broke during {doing}: {detail}")
    return ConnectionBroken(f"{doing} failed: {detail}")


async def read_limited(response: httpx.Response, limit: int, doing: str) -> bytes:
    """The whole body, refusing (``RemoteProtocolError``) more than ``limit`` bytes."""
    announced = response.headers.get("content-length")
    if announced is not None and announced.isdigit() and int(announced) > limit:
        raise RemoteProtocolError(
            f"{doing}: the server announced a {announced}-byte body, more than the "
            f"{limit}-byte limit"
        )
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise RemoteProtocolError(
                    f"{doing}: the response body exceeds the {limit}-byte limit"
                )
            chunks.append(chunk)
    except httpx.HTTPError as exc:
        raise translate(exc, doing) from exc
    return b"".join(chunks)


async def iter_events(
    response: httpx.Response, decoder: SSEDecoder, doing: str
) -> AsyncIterator[SSEEvent]:
    """The events of an SSE response, in order; ends cleanly at the end of the stream.

    Network failures raise ``ConnectionBroken``; an oversized event raises
    :class:`~mcpkit.protocol._errors.SSEProtocolError` (the stream must be abandoned).
    ``decoder`` keeps ``last_event_id`` and ``retry`` across reconnections.
    """
    try:
        async for chunk in response.aiter_bytes():
            for event in decoder.feed(chunk):
                yield event
    except httpx.HTTPError as exc:
        decoder.end()
        raise translate(exc, doing) from exc
    except SSEProtocolError as exc:
        decoder.end()
        raise SSEProtocolError(f"{doing}: {exc}") from None
    decoder.end()


def decode_body(data: bytes | str, doing: str) -> Message:
    """One JSON-RPC message from a body or an SSE ``data`` field; garbage is the server's fault."""
    try:
        return decode_message(data)
    except MessageDecodeError as exc:
        raw = data.encode() if isinstance(data, str) else data
        raise RemoteProtocolError(
            f"{doing}: the server sent something that is not a JSON-RPC message "
            f"({exc.error.message}): {snippet(raw)}"
        ) from None


def error_body(body: bytes) -> ErrorResponse | None:
    """The JSON-RPC error an HTTP error body carries, if it is one."""
    if not body.strip():
        return None
    try:
        message = decode_message(body)
    except MessageDecodeError:
        return None
    return message if isinstance(message, ErrorResponse) else None


def is_modern_rejection(status: int, error: ErrorResponse | None) -> bool:
    """Whether a 4xx is a 2026 server speaking (so era detection must not fall back)."""
    if error is None:
        return False
    code = error.error.code
    return (status == 400 and code in MODERN_ERROR_CODES) or (
        status == 404 and code == METHOD_NOT_FOUND
    )


def status_error(response: httpx.Response, body: bytes, doing: str) -> RemoteProtocolError:
    """An HTTP status the client cannot use, as an error quoting the body (and a hint)."""
    reason = response.reason_phrase or ""
    hint = _AUTH_HINT.get(response.status_code)
    text = f"{doing}: HTTP {response.status_code} {reason}".rstrip()
    text += f" ({hint})" if hint else ""
    if response.status_code in _AUTH_HINT:
        return AuthorizationError(f"{text}: {snippet(body)}", response.status_code)
    return RemoteProtocolError(f"{text}: {snippet(body)}")


async def error_response_body(response: httpx.Response, doing: str) -> bytes:
    """Read a (small) error body; a failure to read it leaves it empty."""
    try:
        return await read_limited(response, MAX_ERROR_BODY_BYTES, doing)
    except (ConnectionBroken, RemoteProtocolError):
        return b""

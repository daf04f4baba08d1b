"""The fuzz targets and their invariants, shared by the hypothesis tests and the atheris harness.

Each ``check_*`` function takes raw input (bytes or text), runs one parser on it and asserts the
parser's contract: it either returns a well-formed value or raises the *one* documented error
type; any other exception, or a value that breaks an invariant, is a crash. The hypothesis tests
(``test_fuzz_*.py``) feed them structured and random inputs with bounded example counts; the
atheris harness (``scripts/fuzz <target> [seconds]``) feeds them coverage-guided bytes.
"""

from __future__ import annotations

import json
from typing import Any, Final

import msgspec

from mcpkit.protocol._codec import decode_message, encode_message
from mcpkit.protocol._errors import (
    InvalidParams,
    JSONRPCError,
    MessageDecodeError,
    SSEProtocolError,
    UsageError,
)
from mcpkit.protocol._framing import FrameTooLarge, LineFramer
from mcpkit.protocol._http_headers import (
    InvalidHeaderValue,
    compile_header_params,
    decode_header_value,
    encode_header_value,
    validate_request_headers,
)
from mcpkit.protocol._meta import RequestMeta, parse_request_meta
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.server._uri_template import UriTemplate
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response

__all__ = [
    "TARGETS",
    "check_codec",
    "check_framer",
    "check_header_value",
    "check_headers_vs_body",
    "check_meta",
    "check_sse",
    "check_uri_template",
    "split_points",
]

JSONRPC_CODES: Final = frozenset({-32700, -32600, -32601, -32602, -32603})


def split_points(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut into chunks at the given (wrapped, sorted) offsets."""
    if not data:
        return [data]
    offsets = sorted({c % (len(data) + 1) for c in cuts})
    chunks, last = [], 0
    for offset in offsets:
        chunks.append(data[last:offset])
        last = offset
    chunks.append(data[last:])
    return chunks


# -- JSON-RPC codec ----------------------------------------------------------------------------


def check_codec(data: bytes | str) -> None:
    """Decode; a message re-encodes to one line that decodes to the same message."""
    try:
        message = decode_message(data)
    except MessageDecodeError as exc:
        assert exc.error.code in JSONRPC_CODES, exc.error
        assert isinstance(exc.error.message, str) and exc.error.message
        return
    assert isinstance(message, Request | Notification | Response | ErrorResponse)
    encoded = encode_message(message)
    assert b"\n" not in encoded and b"\r" not in encoded
    again = decode_message(encoded)
    assert encode_message(again) == encoded


# -- stdio framing -----------------------------------------------------------------------------


def check_framer(data: bytes, cuts: list[int], limit: int) -> None:
    """Any chunking yields the lines a one-shot split yields; nothing over ``limit`` is held."""
    framer = LineFramer(max_line_bytes=limit)
    out: list[bytes | FrameTooLarge] = []
    for chunk in split_points(data, cuts):
        out.extend(framer.feed(chunk))
        assert framer.buffered <= limit, (framer.buffered, limit)
    tail = framer.end()
    if tail is not None:
        out.append(tail)
    expected: list[bytes | FrameTooLarge] = []
    pieces = data.split(b"\n")
    for piece in pieces:
        line = piece[:-1] if piece.endswith(b"\r") else piece
        if len(piece) > limit:
            expected.append(FrameTooLarge(0, limit))
            continue
        if line and not line.isspace():
            expected.append(line)
    got = [o if isinstance(o, bytes) else FrameTooLarge(0, o.limit) for o in out]
    assert got == expected, (got[:5], expected[:5])


# -- SSE ---------------------------------------------------------------------------------------


def check_sse(data: bytes, cuts: list[int], limit: int) -> None:
    """Feeding in chunks gives the events feeding at once gives; only SSEProtocolError escapes."""

    def run(chunks: list[bytes]) -> tuple[list[Any], str | None]:
        decoder = SSEDecoder(max_event_bytes=limit)
        events: list[Any] = []
        try:
            for chunk in chunks:
                events.extend(decoder.feed(chunk))
                assert decoder.buffered <= limit + max(len(c) for c in chunks), decoder.buffered
        except SSEProtocolError as exc:
            return events, str(exc)
        decoder.end()
        return events, None

    whole, whole_error = run([data])
    split, split_error = run(split_points(data, cuts))
    if whole_error is None and split_error is None:
        assert whole == split, (whole[:3], split[:3])
    for event in whole + split:
        assert isinstance(event.data, str) and isinstance(event.event, str)
        assert event.id is None or "\0" not in event.id


# -- URI templates -----------------------------------------------------------------------------


def check_uri_template(template: str, uri: str, values: dict[str, str]) -> None:
    """Parse refuses with UsageError or yields a template whose expand/match never crash."""
    try:
        parsed = UriTemplate(template)
    except UsageError:
        return
    try:
        expanded = parsed.expand(values)
    except UsageError:
        expanded = None
    for candidate in (uri, expanded):
        if candidate is None:
            continue
        try:
            found = parsed.match(candidate)
        except UsageError:
            continue  # ambiguous templates ({a}{b}) refuse to match, by design
        assert found is None or isinstance(found, dict)


# -- Mcp-Param-* / Mcp-Name header values ------------------------------------------------------


def check_header_value(raw: str) -> None:
    """Decoding refuses with InvalidHeaderValue only; what it returns re-encodes and round-trips."""
    try:
        value = decode_header_value(raw)
    except InvalidHeaderValue:
        return
    encoded = encode_header_value(value)
    assert all(" " <= ch <= "~" for ch in encoded), encoded
    assert decode_header_value(encoded) == value


_FUZZ_TOOL_SCHEMA: Final = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "flag": {"type": "boolean", "x-mcp-header": "Flag"},
    },
}
_FUZZ_PARAMS: Final = compile_header_params(_FUZZ_TOOL_SCHEMA)


def check_headers_vs_body(headers: list[tuple[str, str]], body: Any) -> None:
    """Header/body validation of a modern POST raises a JSON-RPC error (-32020/-32602) or passes."""
    if not isinstance(body, dict):
        return
    try:
        validate_request_headers(headers, body, tool_input_schema=_FUZZ_PARAMS)
    except JSONRPCError as exc:
        assert isinstance(exc.code, int) and str(exc)


# -- _meta -------------------------------------------------------------------------------------


def check_meta(params: Any) -> None:
    """``parse_request_meta`` returns a RequestMeta or raises -32602, for any JSON value."""
    try:
        meta = parse_request_meta(params)
    except InvalidParams as exc:
        assert exc.code == -32602 and str(exc)
        return
    assert isinstance(meta, RequestMeta)
    assert isinstance(meta.protocol_version, str)
    assert isinstance(meta.client_capabilities, dict)


# -- byte-level entry points for atheris -------------------------------------------------------


def _json_or_none(data: bytes) -> Any:
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None


def _cuts(data: bytes) -> list[int]:
    return list(data[:4])


def _codec(data: bytes) -> None:
    check_codec(data)
    try:
        check_codec(data.decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError:
        pass


def _framer(data: bytes) -> None:
    check_framer(data[4:], _cuts(data), 1 + (data[0] if data else 0) % 64)


def _sse(data: bytes) -> None:
    check_sse(data[4:], _cuts(data), 1 + (data[0] if data else 0) % 256)


def _uri(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    template, _, uri = text.partition("\x00")
    check_uri_template(template, uri, {"a": uri[:8], "b": uri[8:], "x": "/"})


def _header(data: bytes) -> None:
    check_header_value(data.decode("latin-1"))


def _headers(data: bytes) -> None:
    head, _, body = data.partition(b"\x00\x00")
    pairs = []
    for line in head.decode("latin-1").split("\n"):
        name, _, value = line.partition(":")
        pairs.append((name, value))
    check_headers_vs_body(pairs, _json_or_none(body))


def _meta(data: bytes) -> None:
    value = _json_or_none(data)
    check_meta(value)
    check_meta({"_meta": value})


TARGETS: Final = {
    "codec": _codec,
    "framer": _framer,
    "sse": _sse,
    "uri-template": _uri,
    "header-value": _header,
    "headers": _headers,
    "meta": _meta,
}
"""Byte-level targets by name (``scripts/fuzz <name>``); ``asgi`` lives in ``_fuzz_asgi``."""


def _selfcheck() -> None:  # pragma: no cover - a quick manual smoke run
    for name, target in TARGETS.items():
        target(b"")
        target(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode())
        print(name, "ok")

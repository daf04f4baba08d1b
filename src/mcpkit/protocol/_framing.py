"""Newline-delimited framing for stdio (and any other byte-stream transport).

MCP over stdio sends one compact JSON message per line. The framer turns arbitrary chunks of bytes
into complete lines, and is bounded: a peer that sends a line longer than ``max_line_bytes`` gets
that line reported once as :class:`FrameTooLarge` and then skipped up to its newline *without being
buffered*, so a runaway or hostile peer cannot make us hold an unbounded line in memory. The
connection survives: the next line is read normally.

Why 32 MiB by default: tool results of ~10 MB are real (images, files, long documents), and JSON
escaping can inflate text (``\\uXXXX`` is six bytes per character), so 8 MiB would reject
legitimate traffic. 32 MiB gives ~3x headroom over a 10 MB payload while still capping what one
line can cost. Pass a different bound to :class:`LineFramer` to change it.
"""

from __future__ import annotations

import functools
import re
from typing import Final

import msgspec

from mcpkit.protocol._errors import UsageError

__all__ = ["HEAD_BYTES", "MAX_LINE_BYTES", "FrameTooLarge", "LineFramer", "frame", "peek_envelope"]

MAX_LINE_BYTES: Final = 32 * 1024 * 1024
"""Default bound on one line (one message): the bytes before its ``\n`` (a CR before it counts)."""

HEAD_BYTES: Final = 4096
"""How much of a dropped line is kept (:attr:`FrameTooLarge.head`) to find its ``id``."""

_NL: Final = 0x0A
_CR: Final = 0x0D


class FrameTooLarge(msgspec.Struct, frozen=True):
    """A line exceeded the bound and was dropped.

    ``size_seen`` is how many bytes of the line had arrived when the framer gave up (at least
    ``max_line_bytes + 1``); the rest of the line is discarded as it arrives. ``head`` is the
    line's first :data:`HEAD_BYTES` bytes: :func:`peek_envelope` finds the message's ``id`` and
    kind there, so the request the line was (or answered) fails at once with a clear error
    instead of waiting for a deadline.
    """

    size_seen: int
    limit: int
    head: bytes = b""

    # ``head`` is a sample of the dropped line, not part of what happened: equal events compare
    # (and hash) equal whatever bytes each one saw first.
    def __eq__(self, other: object) -> bool:
        if type(other) is not FrameTooLarge:
            return NotImplemented
        return (self.size_seen, self.limit) == (other.size_seen, other.limit)

    def __hash__(self) -> int:
        return hash((self.size_seen, self.limit))


def frame(payload: bytes) -> bytes:
    """One message ready to write: ``payload`` plus the newline.

    ``payload`` must not contain a newline; compact JSON from
    :func:`~mcpkit.protocol._codec.encode_message` never does (newlines in strings are escaped).
    """
    if b"\n" in payload:
        raise UsageError("a framed message must not contain a newline; encode it as compact JSON")
    return payload + b"\n"


class LineFramer:
    """Splits a byte stream into lines; see the module docstring for the bound.

    Lines come out without their ``\\n`` and without a trailing ``\\r`` (so CRLF peers work);
    blank and whitespace-only lines are skipped (they carry no message, and some peers send them
    as keep-alives).
    """

    __slots__ = ("_buf", "_discarding", "max_line_bytes")

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise UsageError("max_line_bytes must be at least 1")
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held for the unfinished line (never more than ``max_line_bytes``)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes | FrameTooLarge]:
        """Add ``data`` and return every line it completed, in order."""
        end = len(data)
        if end and not self._buf and not self._discarding and data.find(b"\n") == end - 1:
            # The usual chunk: exactly one whole line (a message and its newline).
            size = end - 1
            if size <= self.max_line_bytes:
                line = data[: size - 1] if size and data[size - 1] == _CR else data[:size]
                return [line] if line and not line.isspace() else []
        out: list[bytes | FrameTooLarge] = []
        limit = self.max_line_bytes
        start = 0
        while start < end:
            nl = data.find(b"\n", start)
            if self._discarding:
                if nl < 0:
                    return out  # still inside the oversized line: drop the whole chunk
                self._discarding = False
                start = nl + 1
                continue
            if nl < 0:
                # No newline: the rest of the chunk starts (or continues) an unfinished line.
                size = len(self._buf) + end - start
                if size > limit:
                    self._too_large(size, out, self._head(data, start))
                else:
                    self._buf += data[start:] if start else data
                return out
            size = len(self._buf) + nl - start
            if size > limit:  # a complete line, but an oversized one
                head = self._head(data, start)
                self._buf = bytearray()
                out.append(FrameTooLarge(size, limit, head))
                start = nl + 1
                continue
            if self._buf:
                self._buf += data[start:nl]
                line = self._take()
            else:
                stop = nl - 1 if nl > start and data[nl - 1] == _CR else nl
                line = data[start:stop]
            if line and not line.isspace():
                out.append(line)
            start = nl + 1
        return out

    def end(self) -> bytes | None:
        """The final line if the stream ended without a newline (``None`` if there is none).

        Resets the framer, so it can be reused for a new stream.
        """
        discarding, self._discarding = self._discarding, False
        if discarding or not self._buf:
            self._buf.clear()
            return None
        line = self._take()
        return line if line and not line.isspace() else None

    def _take(self) -> bytes:
        buf = self._buf
        if buf and buf[-1] == _CR:
            del buf[-1]
        line = bytes(buf)
        self._buf = bytearray()  # release the memory of a large line at once
        return line

    def _head(self, data: bytes, start: int) -> bytes:
        held = bytes(self._buf[:HEAD_BYTES])
        return held + data[start : start + HEAD_BYTES - len(held)]

    def _too_large(self, size: int, out: list[bytes | FrameTooLarge], head: bytes) -> None:
        self._buf = bytearray()
        self._discarding = True
        out.append(FrameTooLarge(size, self.max_line_bytes, head))


@functools.cache
def _id_value() -> re.Pattern[bytes]:
    """The ``id`` value after its colon (compiled on first use: most programs never need it)."""
    return re.compile(rb'\s*(-?\d+)(?=\s*[,}])|\s*"((?:[^"\\]|\\.){0,256})"')


def peek_envelope(head: bytes) -> tuple[int | str | None, str | None]:
    """The top-level ``id`` and kind (``"request"``/``"response"``) of a JSON object's start.

    Reads only what ``head`` holds (the first bytes of a message too large to decode), tracking
    nesting so an ``"id"`` inside ``params`` or ``result`` is not mistaken for the message's.
    Either part is ``None`` when it is not in ``head``. Encoders that put ``id`` first (mcpkit,
    the official SDKs' Python models) are always recognised.
    """
    depth = 0
    i = 0
    n = len(head)
    found_id: int | str | None = None
    kind: str | None = None
    expect_key = False
    while i < n:
        c = head[i]
        if c == 0x22:  # a string: a key when it opens a member at depth 1
            j = i + 1
            while j < n and head[j] != 0x22:
                j += 2 if head[j] == 0x5C else 1
            if j >= n:
                break
            if depth == 1 and expect_key:
                key = head[i + 1 : j]
                k = j + 1
                while k < n and head[k] in b" \t\r\n":
                    k += 1
                if k < n and head[k] == 0x3A:  # ':'
                    if key == b"id":
                        match = _id_value().match(head, k + 1)
                        if match is not None:
                            if match.group(1) is not None:
                                found_id = int(match.group(1))
                            else:
                                try:
                                    text = msgspec.json.decode(b'"' + match.group(2) + b'"')
                                except msgspec.DecodeError:
                                    text = None
                                found_id = text if isinstance(text, str) else None
                    elif key == b"method":
                        kind = "request"
                    elif key in (b"result", b"error"):
                        kind = "response"
                    if found_id is not None and kind is not None:
                        break
                expect_key = False
            i = j + 1
            continue
        if c in b"{[":
            depth += 1
            expect_key = depth == 1
        elif c in b"}]":
            depth -= 1
        elif c == 0x2C and depth == 1:  # ','
            expect_key = True
        i += 1
    return found_id, kind

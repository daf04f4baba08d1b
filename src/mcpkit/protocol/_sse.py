"""Server-Sent Events: an encoder and a bounded, incremental decoder.

Streamable HTTP answers requests with ``text/event-stream``, so both our server (encoding) and our
client (decoding) speak it. The decoder follows the WHATWG "event stream interpretation" rules:
CRLF, CR and LF line ends (also split across chunks); a leading UTF-8 BOM is dropped once;
``:`` lines are comments (keep-alives); one space after the colon is removed; ``data`` lines join
with ``\\n``; an ``id`` containing NUL is ignored; ``retry`` is honoured only when it is all ASCII
digits; a block without data dispatches nothing but still updates the last event id; an unfinished
event at the end of the stream is dropped.

The last event id *persists*: an event without an ``id`` field carries the previous one, exactly as
a browser's ``lastEventId`` does; that is the value to send back as ``Last-Event-ID`` on reconnect.

Bounded: an event (its pending line plus the data gathered so far) larger than
``max_event_bytes`` raises :class:`~mcpkit.protocol._errors.SSEProtocolError`; the default matches
the stdio line bound so the same ~10 MB tool results fit on both transports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from mcpkit.protocol._errors import SSEProtocolError, UsageError
from mcpkit.protocol._framing import MAX_LINE_BYTES

__all__ = [
    "MAX_SSE_EVENT_BYTES",
    "SSEDecoder",
    "SSEEvent",
    "encode_comment",
    "encode_event",
]

MAX_SSE_EVENT_BYTES: Final = MAX_LINE_BYTES
"""Default bound on one event's buffered bytes (the same as one stdio line)."""

_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
_TEXT_LINE_END: Final = re.compile(r"\r\n|\r|\n")
_BOM: Final = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event.

    ``event`` is the type (``"message"`` when the stream named none); ``id`` is the last event id
    in effect (``None`` when none is set); ``retry`` is the reconnection delay in milliseconds if
    this event's block set one.
    """

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


def _check_field(name: str, value: str) -> None:
    if "\n" in value or "\r" in value:
        raise UsageError(f"SSE {name} must not contain a line break: {value!r}")


def encode_event(
    data: bytes | str,
    *,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """Encode one event; multi-line ``data`` becomes several ``data:`` lines.

    A JSON message (compact, so one line) is written with a single join, so a 10 MB payload is
    copied once.
    """
    if (
        event is None
        and retry is None
        and isinstance(data, bytes)
        and b"\n" not in data
        and b"\r" not in data
    ):  # one line: a JSON message, with or without the id of a stored stream's event
        if id is None:
            return b"data: " + data + b"\n\n" if data else b"data:\n\n"
        if "\n" not in id and "\r" not in id and "\0" not in id:
            return (
                b"id: " + id.encode() + (b"\ndata: " + data + b"\n\n" if data else b"\ndata:\n\n")
            )
    parts: list[bytes] = []
    if event is not None:
        _check_field("event", event)
        parts.append(b"event: " + event.encode())
    if id is not None:
        _check_field("id", id)
        if "\0" in id:
            raise UsageError("an SSE id must not contain NUL (receivers ignore it)")
        parts.append(b"id: " + id.encode())
    if retry is not None:
        if isinstance(retry, bool) or not isinstance(retry, int) or retry < 0:
            raise UsageError(f"SSE retry must be a non-negative integer (ms), not {retry!r}")
        parts.append(b"retry: %d" % retry)
    raw = data.encode() if isinstance(data, str) else data
    lines = _LINE_END.split(raw) if b"\n" in raw or b"\r" in raw else [raw]
    for line in lines:
        parts.append(b"data: " + line if line else b"data:")
    parts.append(b"")
    parts.append(b"")
    return b"\n".join(parts)


def encode_comment(text: str = "") -> bytes:
    """A comment block (``: text``), the keep-alive that readers must ignore."""
    if not text:
        return b":\n\n"
    lines = _TEXT_LINE_END.split(text)
    return b"".join(b": " + line.encode() + b"\n" for line in lines) + b"\n"


class SSEDecoder:
    """Incremental event-stream parser: feed bytes, get complete events.

    After :class:`~mcpkit.protocol._errors.SSEProtocolError` the stream must be abandoned.
    """

    __slots__ = (
        "_bom_checked",
        "_data",
        "_data_size",
        "_event",
        "_id",
        "_pending",
        "_retry",
        "_skip_lf",
        "last_event_id",
        "max_event_bytes",
        "retry",
    )

    def __init__(self, max_event_bytes: int = MAX_SSE_EVENT_BYTES) -> None:
        if max_event_bytes < 1:
            raise UsageError("max_event_bytes must be at least 1")
        self.max_event_bytes = max_event_bytes
        self.last_event_id: str = ""
        """The stream's last event id (``""`` if none): send it as ``Last-Event-ID``."""
        self.retry: int | None = None
        """The latest reconnection delay (ms) the server asked for, if any."""
        self._pending = bytearray()  # the unfinished line
        self._bom_checked = False
        self._skip_lf = False  # the previous chunk ended with CR; a leading LF completes CRLF
        self._data: list[str] = []
        self._data_size = 0
        self._event = ""
        self._id = ""  # the last event id buffer (persists across events)
        self._retry: int | None = None  # a retry set in the current block

    @property
    def buffered(self) -> int:
        """Bytes held for the unfinished event (bounded by ``max_event_bytes``)."""
        return len(self._pending) + self._data_size

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Add ``chunk`` and return every event it completed, in order."""
        if not chunk:
            return []
        if not self._bom_checked:
            head = bytes(self._pending) + chunk
            if len(head) < len(_BOM) and _BOM.startswith(head):
                self._pending = bytearray(head)  # too short to tell yet
                return []
            self._bom_checked = True
            self._pending = bytearray()
            chunk = head[len(_BOM) :] if head.startswith(_BOM) else head
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        events: list[SSEEvent] = []
        start = 0
        for match in _LINE_END.finditer(chunk):
            stop = match.start()
            self._check_bound(len(self._pending) + stop - start)
            if self._pending:
                self._pending += chunk[start:stop]
                line = bytes(self._pending)
                self._pending = bytearray()
            else:
                line = chunk[start:stop]
            self._process_line(line, events)
            start = match.end()
        if start < len(chunk):
            self._check_bound(len(self._pending) + len(chunk) - start)
            self._pending += chunk[start:]
        elif chunk.endswith(b"\r"):
            self._skip_lf = True
        return events

    def end(self) -> None:
        """The stream ended: drop any unfinished event (WHATWG) and reset for a new stream.

        ``last_event_id`` and ``retry`` are kept, since a reconnect needs them.
        """
        self._pending = bytearray()
        self._bom_checked = False
        self._skip_lf = False
        self._reset_event()

    def _check_bound(self, line_size: int) -> None:
        if self._data_size + line_size > self.max_event_bytes:
            self._pending = bytearray()
            self._reset_event()
            raise SSEProtocolError(
                f"SSE event larger than {self.max_event_bytes} bytes; the stream was abandoned"
                " (raise max_event_bytes if the server legitimately sends events this large)"
            )

    def _reset_event(self) -> None:
        self._data = []
        self._data_size = 0
        self._event = ""
        self._retry = None

    def _process_line(self, raw: bytes, events: list[SSEEvent]) -> None:
        if not raw:
            self._dispatch(events)
            return
        if raw[:1] == b":":
            return  # comment
        line = raw.decode("utf-8", "replace")
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_size += len(raw)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
            self.retry = self._retry
        # any other field name is ignored

    def _dispatch(self, events: list[SSEEvent]) -> None:
        self.last_event_id = self._id
        if self._data:
            events.append(
                SSEEvent(
                    event=self._event or "message",
                    data="\n".join(self._data),
                    id=self._id or None,
                    retry=self._retry,
                )
            )
        self._reset_event()

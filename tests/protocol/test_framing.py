"""The stdio line framer: splitting, CRLF, blank lines, and the bound on one line."""

from __future__ import annotations

import pytest

from mcpkit.protocol._codec import decode_message, encode_message
from mcpkit.protocol._errors import UsageError
from mcpkit.protocol._framing import MAX_LINE_BYTES, FrameTooLarge, LineFramer, frame
from mcpkit.types._jsonrpc import Request


def test_default_bound_fits_a_10_mb_result_with_headroom() -> None:
    assert MAX_LINE_BYTES >= 3 * 10 * 1024 * 1024
    assert LineFramer().max_line_bytes == MAX_LINE_BYTES


def test_lines_split_across_and_within_chunks() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert framer.feed(b":2}") == []
    assert framer.feed(b"\n{}\n{}\n") == [b'{"b":2}', b"{}", b"{}"]
    assert framer.buffered == 0


def test_byte_at_a_time() -> None:
    framer = LineFramer()
    out: list[bytes | FrameTooLarge] = []
    for byte in b"one\r\ntwo\nthree\n":
        out += framer.feed(bytes([byte]))
    assert out == [b"one", b"two", b"three"]


def test_crlf_is_stripped_even_when_split() -> None:
    framer = LineFramer()
    assert framer.feed(b"abc\r") == []
    assert framer.feed(b"\ndef\r\n") == [b"abc", b"def"]


def test_only_one_trailing_cr_is_stripped() -> None:
    assert LineFramer().feed(b"x\r\r\n") == [b"x\r"]


def test_blank_and_whitespace_lines_are_skipped() -> None:
    framer = LineFramer()
    assert framer.feed(b"\n\r\n   \n\t\r\nok\n\n") == [b"ok"]


def test_end_returns_unterminated_last_line_and_resets() -> None:
    framer = LineFramer()
    assert framer.feed(b"first\nlast") == [b"first"]
    assert framer.end() == b"last"
    assert framer.end() is None
    assert framer.feed(b"again\n") == [b"again"]


def test_end_with_nothing_or_blank() -> None:
    framer = LineFramer()
    assert framer.end() is None
    framer.feed(b"  \r")
    assert framer.end() is None


def test_line_exactly_at_the_bound_is_delivered() -> None:
    framer = LineFramer(max_line_bytes=10)
    assert framer.feed(b"0123456789\n") == [b"0123456789"]
    assert framer.feed(b"01234") == []
    assert framer.feed(b"56789\n") == [b"0123456789"]


def test_oversized_complete_line_in_one_chunk_is_reported_and_next_line_survives() -> None:
    framer = LineFramer(max_line_bytes=10)
    assert framer.feed(b"0123456789X\nok\n") == [FrameTooLarge(11, 10), b"ok"]


def test_oversized_line_reported_once_then_discarded_without_buffering() -> None:
    framer = LineFramer(max_line_bytes=10)
    assert framer.feed(b"012345") == []
    out = framer.feed(b"6789AB")
    assert out == [FrameTooLarge(12, 10)]
    assert framer.buffered == 0
    for _ in range(100):
        assert framer.feed(b"more garbage without a newline") == []
        assert framer.buffered == 0
    assert framer.feed(b"tail\nnext\n") == [b"next"]


def test_end_after_an_oversized_unterminated_line_returns_nothing() -> None:
    framer = LineFramer(max_line_bytes=4)
    assert framer.feed(b"123456") == [FrameTooLarge(6, 4)]
    assert framer.end() is None
    assert framer.feed(b"ok\n") == [b"ok"]


def test_invalid_bound() -> None:
    with pytest.raises(UsageError):
        LineFramer(max_line_bytes=0)


def test_frame_appends_newline_and_refuses_embedded_newlines() -> None:
    payload = encode_message(Request(id=1, method="ping"))
    assert frame(payload) == payload + b"\n"
    with pytest.raises(UsageError):
        frame(b'{"a":\n1}')


def test_frame_then_feed_round_trip() -> None:
    messages = [Request(id=i, method="tools/call", params={"n": "x" * i}) for i in range(50)]
    stream = b"".join(frame(encode_message(m)) for m in messages)
    framer = LineFramer()
    got: list[bytes | FrameTooLarge] = []
    for i in range(0, len(stream), 7):
        got += framer.feed(stream[i : i + 7])
    assert [decode_message(line) for line in got if isinstance(line, bytes)] == messages


CHUNK = 64 * 1024
TEN_MB = 10 * 1024 * 1024


def test_10_mb_line_over_the_bound_is_never_held_in_memory() -> None:
    """A 10 MB line against an 8 MiB bound: reported once, buffer stays under the bound."""
    bound = 8 * 1024 * 1024
    framer = LineFramer(max_line_bytes=bound)
    chunk = b"x" * CHUNK
    reports: list[bytes | FrameTooLarge] = []
    peak = 0
    for _ in range(TEN_MB // CHUNK):
        reports += framer.feed(chunk)
        peak = max(peak, framer.buffered)
        assert framer.buffered <= bound
    assert len(reports) == 1
    report = reports[0]
    assert isinstance(report, FrameTooLarge) and report.size_seen == bound + CHUNK
    assert framer.buffered == 0  # discarding: nothing of the rest is held
    assert peak <= bound
    assert framer.feed(b'x"}\n{"ok":true}\n') == [b'{"ok":true}']


def test_10_mb_line_within_the_default_bound_is_delivered_intact() -> None:
    framer = LineFramer()
    payload = b'{"data":"' + b"y" * (TEN_MB - 11) + b'"}'
    out: list[bytes | FrameTooLarge] = []
    data = payload + b"\r\n"
    for i in range(0, len(data), CHUNK):
        out += framer.feed(data[i : i + CHUNK])
        assert framer.buffered <= len(payload)
    assert len(out) == 1 and out[0] == payload
    assert framer.buffered == 0


@pytest.mark.parametrize(
    "chunk",
    [
        b'{"a":1}\n',
        b"\n",
        b"  \n",
        b"\r\n",
        b'{"a":1}\r\n',
        b"x\r\r\n",
        b"12345678\n",
        b"123456789\n",
    ],
)
def test_a_chunk_of_one_line_is_framed_as_when_split(chunk: bytes) -> None:
    """A chunk holding exactly one line takes a shortcut; it must frame as the general path
    does (the same chunk fed in two pieces), at and over the bound too."""
    whole, split = LineFramer(8), LineFramer(8)
    one = whole.feed(chunk)
    two = split.feed(chunk[:1]) + split.feed(chunk[1:])
    assert one == two
    assert whole.feed(b"ok\n") == split.feed(b"ok\n") == [b"ok"]

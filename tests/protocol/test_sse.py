"""SSE encoder and decoder against the WHATWG event-stream rules."""

from __future__ import annotations

import pytest

from mcpkit.protocol._errors import RemoteProtocolError, SSEProtocolError, UsageError
from mcpkit.protocol._sse import (
    MAX_SSE_EVENT_BYTES,
    SSEDecoder,
    SSEEvent,
    encode_comment,
    encode_event,
)


def decode_all(data: bytes, *, chunk: int | None = None) -> list[SSEEvent]:
    decoder = SSEDecoder()
    if chunk is None:
        return decoder.feed(data)
    events: list[SSEEvent] = []
    for i in range(0, len(data), chunk):
        events += decoder.feed(data[i : i + chunk])
    return events


# --- encoder --------------------------------------------------------------------------------


def test_encode_simple_event() -> None:
    assert encode_event(b'{"a":1}') == b'data: {"a":1}\n\n'
    assert encode_event("x", event="message", id="7", retry=1000) == (
        b"event: message\nid: 7\nretry: 1000\ndata: x\n\n"
    )


def test_multiline_data_becomes_several_data_lines() -> None:
    assert encode_event("a\nb\r\nc\rd") == b"data: a\ndata: b\ndata: c\ndata: d\n\n"
    assert encode_event("a\n") == b"data: a\ndata:\n\n"


def test_empty_data_priming_event() -> None:
    wire = encode_event("", id="stream-1:0")
    assert wire == b"id: stream-1:0\ndata:\n\n"
    assert decode_all(wire) == [SSEEvent("message", "", "stream-1:0")]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"event": "a\nb"},
        {"id": "a\rb"},
        {"id": "a\0b"},
        {"retry": -1},
        {"retry": True},
        {"retry": 1.5},
    ],
)
def test_encoder_refuses_fields_that_would_corrupt_the_stream(kwargs: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        encode_event("x", **kwargs)  # type: ignore[arg-type]


def test_comments() -> None:
    assert encode_comment() == b":\n\n"
    assert encode_comment("keep-alive") == b": keep-alive\n\n"
    assert encode_comment("a\nb") == b": a\n: b\n\n"
    assert decode_all(encode_comment("ping") + encode_event("x")) == [SSEEvent("message", "x")]


@pytest.mark.parametrize(
    "data",
    ["", "x", "line1\nline2", "\n\n", "trailing\n", " leading space", "ünïcödé ✓", '{"j":"s"}'],
)
def test_round_trip(data: str) -> None:
    wire = encode_event(data, event="ev", id="1")
    expected = data.replace("\r\n", "\n").replace("\r", "\n")
    assert decode_all(wire) == [SSEEvent("ev", expected, "1")]
    assert decode_all(wire, chunk=1) == [SSEEvent("ev", expected, "1")]


# --- decoder --------------------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_all_line_endings(eol: bytes) -> None:
    wire = eol.join([b"event: e", b"data: 1", b"data: 2", b"", b"data: 3", b"", b""])
    expected = [SSEEvent("e", "1\n2"), SSEEvent("message", "3")]
    assert decode_all(wire) == expected
    assert decode_all(wire, chunk=1) == expected


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    # the LF completes the CRLF; it must not count as an empty line (which would dispatch)
    assert decoder.feed(b"\ndata: b\r") == []
    assert decoder.feed(b"\n\r\n") == [SSEEvent("message", "a\nb")]


def test_bom_is_stripped_once_even_when_split() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"\xef") == []
    assert decoder.feed(b"\xbb") == []
    assert decoder.feed(b"\xbfdata: x\n\n") == [SSEEvent("message", "x")]
    # a BOM later in the stream is not special: it makes an unknown field name
    assert decoder.feed(b"\xef\xbb\xbfdata: y\n\ndata: z\n\n") == [SSEEvent("message", "z")]


def test_comments_and_unknown_fields_are_ignored() -> None:
    wire = b": comment\nfoo: bar\ndata: x\n:another\n\n"
    assert decode_all(wire) == [SSEEvent("message", "x")]


def test_field_parsing_rules() -> None:
    # only one leading space is removed; no colon means an empty value; "data" alone is data
    wire = b"data:  two spaces\ndata:nospace\ndata\n\n"
    assert decode_all(wire) == [SSEEvent("message", " two spaces\nnospace\n")]


def test_block_without_data_dispatches_nothing_but_resets_event_type() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"event: custom\n\ndata: x\n\n") == [SSEEvent("message", "x")]


def test_last_event_id_persists_across_events() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n")
    assert [e.id for e in events] == ["1", "1", None]
    assert decoder.last_event_id == ""


def test_id_only_block_updates_last_event_id_without_an_event() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"id: 42\n\n") == []
    assert decoder.last_event_id == "42"
    assert decoder.feed(b"data: x\n\n") == [SSEEvent("message", "x", "42")]


def test_id_containing_nul_is_ignored() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b"id: good\ndata: a\n\nid: b\x00ad\ndata: b\n\n")
    assert [e.id for e in events] == ["good", "good"]


def test_retry_only_accepts_ascii_digits() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"retry: 2500\n\n") == []  # no data: no event, but the delay is kept
    assert decoder.retry == 2500
    events = decoder.feed(
        b"retry: 12a\ndata: x\n\nretry: -5\nretry: 1.5\nretry: \xd9\xa3\ndata: y\n\n"
    )
    assert decoder.retry == 2500
    assert [e.retry for e in events] == [None, None]
    assert decoder.feed(b"retry: 10\ndata: z\n\n") == [SSEEvent("message", "z", None, 10)]


def test_unfinished_event_at_end_of_stream_is_dropped() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"id: 3\ndata: complete\n\ndata: partial") == [
        SSEEvent("message", "complete", "3")
    ]
    decoder.end()
    assert decoder.last_event_id == "3"  # kept for Last-Event-ID on reconnect
    assert decoder.feed(b"data: new stream\n\n") == [SSEEvent("message", "new stream", "3")]


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert decode_all(b"data: \xff\xfe\n\n") == [SSEEvent("message", "\ufffd\ufffd")]


def test_multibyte_character_split_across_chunks() -> None:
    wire = encode_event("€uro")
    assert decode_all(wire, chunk=1) == [SSEEvent("message", "€uro")]


def test_empty_feed() -> None:
    assert SSEDecoder().feed(b"") == []


# --- bound ----------------------------------------------------------------------------------


def test_default_bound() -> None:
    assert SSEDecoder().max_event_bytes == MAX_SSE_EVENT_BYTES >= 30 * 1024 * 1024


def test_unterminated_line_over_bound_raises() -> None:
    decoder = SSEDecoder(max_event_bytes=100)
    decoder.feed(b"data: " + b"x" * 50)
    with pytest.raises(SSEProtocolError) as info:
        decoder.feed(b"x" * 60)
    assert "100 bytes" in str(info.value)
    assert isinstance(info.value, RemoteProtocolError)


def test_many_data_lines_over_bound_raise() -> None:
    decoder = SSEDecoder(max_event_bytes=100)
    with pytest.raises(SSEProtocolError):
        for _ in range(20):
            decoder.feed(b"data: 0123456789\n")
            assert decoder.buffered <= 100


def test_buffer_stays_bounded_while_feeding_a_huge_event_in_chunks() -> None:
    bound = 1024 * 1024
    decoder = SSEDecoder(max_event_bytes=bound)
    decoder.feed(b"data: ")
    with pytest.raises(SSEProtocolError):
        for _ in range(100):
            decoder.feed(b"y" * 64 * 1024)
            assert decoder.buffered <= bound


def test_events_under_the_bound_pass_and_comments_do_not_count() -> None:
    decoder = SSEDecoder(max_event_bytes=64)
    for _ in range(100):
        assert decoder.feed(b": keep-alive\n\n") == []
        assert decoder.feed(b"data: " + b"z" * 40 + b"\n\n") == [SSEEvent("message", "z" * 40)]


def test_large_event_in_chunks_is_linear_and_intact() -> None:
    payload = b"q" * (10 * 1024 * 1024)
    wire = encode_event(payload)
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for i in range(0, len(wire), 64 * 1024):
        events += decoder.feed(wire[i : i + 64 * 1024])
    assert len(events) == 1 and len(events[0].data) == len(payload)

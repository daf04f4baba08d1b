"""Property-based fuzzing of the sans-IO parsers (bounded for CI; see ``_fuzz_settings``).

Each test feeds one parser random *and* structured input (JSON-RPC-shaped objects, SSE built
from the encoder, templates built from RFC 6570 pieces) and asserts the contract in
``_fuzz_targets``. Crashes found while writing these are pinned as regression tests at the end.
"""

from __future__ import annotations

from typing import Any

import pytest
from _fuzz_settings import FUZZ
from _fuzz_targets import (
    check_codec,
    check_framer,
    check_header_value,
    check_headers_vs_body,
    check_meta,
    check_sse,
    check_uri_template,
)
from hypothesis import example, given
from hypothesis import strategies as st

from mcpkit.protocol._codec import encode_json
from mcpkit.protocol._errors import InvalidParams
from mcpkit.protocol._meta import parse_request_meta
from mcpkit.protocol._sse import encode_event

pytestmark = pytest.mark.no_schema_check  # nothing here sends messages

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
METHODS = [
    "initialize",
    "ping",
    "tools/call",
    "tools/list",
    "resources/read",
    "notifications/initialized",
    "notifications/cancelled",
    "server/discover",
    "subscriptions/listen",
    "",
]
ids = st.none() | st.booleans() | st.integers() | st.text(max_size=6) | st.floats(allow_nan=False)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": ids,
        "method": st.sampled_from(METHODS) | st.text(max_size=10) | st.integers(),
        "params": json_values,
        "result": json_values,
        "error": st.fixed_dictionaries(
            {}, optional={"code": st.integers() | st.text(), "message": json_values}
        ),
    },
)


@FUZZ
@given(st.binary(max_size=512))
@example(b"[" * 10_000)
@example(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
@example(b"\xed\xa0\x80")  # a UTF-8-encoded lone surrogate
def test_codec_random_bytes(data: bytes) -> None:
    check_codec(data)


@FUZZ
@given(st.text(max_size=256))
@example("\ud800")  # a lone surrogate in a str
def test_codec_random_text(text: str) -> None:
    check_codec(text)


@FUZZ
@given(messages)
def test_codec_jsonrpc_shaped_objects(message: dict[str, Any]) -> None:
    check_codec(encode_json(message))


@FUZZ
@given(
    st.lists(
        st.binary(max_size=40) | st.sampled_from([b"\n", b"\r\n", b"\r", b" ", b"{}"]),
        max_size=30,
    ).map(b"".join),
    st.lists(st.integers(min_value=0), max_size=8),
    st.integers(min_value=1, max_value=64),
)
def test_framer_any_chunking(data: bytes, cuts: list[int], limit: int) -> None:
    check_framer(data, cuts, limit)


sse_fields = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12
)


@st.composite
def sse_streams(draw: st.DrawFn) -> bytes:
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        choice = draw(st.integers(0, 2))
        if choice == 0:
            data = draw(st.text(max_size=30).filter(lambda t: "\ud800" not in t))
            event_id = draw(st.none() | sse_fields.filter(lambda t: "\0" not in t))
            event = draw(st.none() | sse_fields)
            retry = draw(st.none() | st.integers(0, 10_000))
            parts.append(encode_event(data, event=event, id=event_id, retry=retry))
        elif choice == 1:
            parts.append(draw(st.binary(max_size=30)))
        else:
            parts.append(draw(st.sampled_from([b"\r\n", b"\r", b"\n", b":x\n", b"\xef\xbb\xbf"])))
    return b"".join(parts)


@FUZZ
@given(
    sse_streams(),
    st.lists(st.integers(min_value=0), max_size=8),
    st.integers(min_value=1, max_value=512),
)
def test_sse_any_chunking(data: bytes, cuts: list[int], limit: int) -> None:
    check_sse(data, cuts, limit)


template_pieces = st.sampled_from(
    [
        "{a}",
        "{+a}",
        "{#a}",
        "{.a}",
        "{/a}",
        "{;a}",
        "{?a,b}",
        "{&b}",
        "{/x*}",
        "{?x*}",
        "{a:3}",
        "{",
        "}",
        "{}",
        "{a",
        "{%}",
        "{a*:2}",
        "{=a}",
        "file://",
        "/",
        "?",
        "&",
        "#",
        "%",
        "%41",
        "x",
    ]
)


@FUZZ
@given(
    st.lists(template_pieces | st.text(max_size=6), max_size=8).map("".join),
    st.text(max_size=40),
    st.dictionaries(
        st.sampled_from(["a", "b", "x"]),
        st.text(max_size=10),
        max_size=3,
    ),
)
@example("file:///{+path}", "file:///etc/../passwd", {"path": "../x"})
def test_uri_templates(template: str, uri: str, values: dict[str, str]) -> None:
    check_uri_template(template, uri, values)


@FUZZ
@given(
    st.text(max_size=40)
    | st.builds(lambda s: f"=?base64?{s}?=", st.text(max_size=20))
    | st.builds(
        lambda b: "=?base64?" + __import__("base64").b64encode(b).decode() + "?=",
        st.binary(max_size=20),
    )
)
@example("=?base64??=")
@example("=?base64?gA==?=")  # base64 of a lone continuation byte: not UTF-8
def test_param_header_values(raw: str) -> None:
    check_header_value(raw)


header_names = st.sampled_from(
    [
        "Mcp-Method",
        "Mcp-Name",
        "MCP-Protocol-Version",
        "Mcp-Param-Region",
        "Mcp-Param-Count",
        "Mcp-Param-Flag",
        "mcp-param-region",
        "X-Other",
    ]
)


@FUZZ
@given(
    st.lists(st.tuples(header_names, st.text(max_size=20)), max_size=6),
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "method": st.sampled_from(METHODS) | json_values},
        optional={
            "id": ids,
            "params": st.fixed_dictionaries(
                {},
                optional={
                    "name": json_values,
                    "uri": json_values,
                    "arguments": json_values
                    | st.fixed_dictionaries(
                        {},
                        optional={"region": json_values, "count": json_values, "flag": json_values},
                    ),
                    "_meta": json_values,
                },
            ),
        },
    ),
)
def test_headers_against_bodies(headers: list[tuple[str, str]], body: dict[str, Any]) -> None:
    check_headers_vs_body(headers, body)


@FUZZ
@given(
    json_values
    | st.fixed_dictionaries(
        {},
        optional={
            "_meta": json_values
            | st.fixed_dictionaries(
                {},
                optional={
                    "io.modelcontextprotocol/protocolVersion": st.just("2026-07-28") | json_values,
                    "io.modelcontextprotocol/clientCapabilities": st.just({}) | json_values,
                    "io.modelcontextprotocol/clientInfo": json_values,
                    "io.modelcontextprotocol/logLevel": json_values,
                    "progressToken": json_values,
                    "traceparent": json_values,
                },
            )
        },
    )
)
def test_meta_parsing(params: Any) -> None:
    check_meta(params)


# -- regressions: crashes the fuzzers found ----------------------------------------------------


@pytest.mark.parametrize("level", [{}, [], {"a": 1}, ["debug"]])
def test_an_unhashable_log_level_is_invalid_params_not_a_type_error(level: Any) -> None:
    # found by test_meta_parsing: ``level not in _SEVERITY`` raised TypeError for a dict/list
    params = {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": level,
        }
    }
    with pytest.raises(InvalidParams, match="log level"):
        parse_request_meta(params)

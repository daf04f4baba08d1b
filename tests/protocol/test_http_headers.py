"""Request-metadata headers (2026-07-28): encoding, x-mcp-header rules, client and server sides."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from mcpkit.protocol._errors import HEADER_MISMATCH, HeaderMismatch, UsageError
from mcpkit.protocol._http_headers import (
    MAX_SAFE_INTEGER,
    InvalidHeaderValue,
    ParamHeader,
    compile_header_params,
    decode_header_value,
    encode_header_value,
    header_params,
    lint_x_mcp_header,
    normalize_headers,
    request_headers,
    tool_header_problem,
    validate_request_headers,
)

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "priority": {"type": "integer", "x-mcp-header": "Priority"},
        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
        "target": {
            "type": "object",
            "properties": {"zone": {"type": ["string", "null"], "x-mcp-header": "Zone"}},
        },
        "query": {"type": "string"},
    },
}


def call(arguments: dict[str, Any], name: str = "execute_sql") -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": META},
    }


# --- value encoding (the spec's own table) ---------------------------------------------------


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("us-west1", "us-west1"),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ("us west 1", "us west 1"),
        ("\tlead", "=?base64?CWxlYWQ=?="),
        ("a\tb", "=?base64?YQli?="),
        ("", ""),
        (42, "42"),
        (-7, "-7"),
        (True, "true"),
        (False, "false"),
    ],
)
def test_encode_matches_spec_examples(value: str | int | bool, encoded: str) -> None:
    assert encode_header_value(value) == encoded
    assert decode_header_value(encoded) == (
        value if isinstance(value, str) else encode_header_value(value)
    )


def test_encode_refuses_unsafe_integers_and_other_types() -> None:
    assert encode_header_value(MAX_SAFE_INTEGER) == str(MAX_SAFE_INTEGER)
    with pytest.raises(UsageError, match="outside the range"):
        encode_header_value(MAX_SAFE_INTEGER + 1)
    with pytest.raises(UsageError):
        encode_header_value(1.5)  # type: ignore[arg-type]


def test_decode_trims_optional_whitespace_and_keeps_literals() -> None:
    assert decode_header_value("  get_weather \t") == "get_weather"
    b64 = base64.b64encode(b"Hello").decode()
    assert decode_header_value(b64) == b64  # no prefix: a literal
    assert decode_header_value(f"=?base64?{b64}") == f"=?base64?{b64}"  # no suffix: a literal
    assert (
        decode_header_value("=?BASE64?SGVsbG8=?=") == "=?BASE64?SGVsbG8=?="
    )  # markers are lowercase
    assert decode_header_value("=?base64??=") == ""


@pytest.mark.parametrize(
    "bad",
    [
        "=?base64?SGVsbG8?=",  # missing padding
        "=?base64?SGVs!!!bG8=?=",  # not in the alphabet
        "=?base64?SGVsbG9=?=",  # non-canonical trailing bits
        "=?base64?/w==?=",  # not UTF-8
        "caf\u00e9",  # obs-text is not allowed
        "a\x00b",
    ],
)
def test_decode_rejects_malformed_values(bad: str) -> None:
    with pytest.raises(InvalidHeaderValue):
        decode_header_value(bad)


@pytest.mark.parametrize("bad", ["a\x7fb", "a\x1fb", "caf\u00e9", "\u2028"])
def test_decode_rejects_each_character_outside_the_header_alphabet(bad: str) -> None:
    # the alphabet is checked at once for the usual value; anything else, character by character
    with pytest.raises(InvalidHeaderValue, match="is not allowed"):
        decode_header_value(bad)


def test_decode_keeps_inner_tabs_and_spaces() -> None:
    assert decode_header_value(" a\tb c ") == "a\tb c"


# --- x-mcp-header annotations ----------------------------------------------------------------


def tool(prop: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": prop}}


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        (tool({"type": "string", "x-mcp-header": ""}), "non-empty"),
        (tool({"type": "object", "x-mcp-header": "Data"}), "type"),
        (tool({"type": "array", "items": {"type": "string"}, "x-mcp-header": "Items"}), "type"),
        (tool({"type": "null", "x-mcp-header": "Nil"}), "type"),
        (tool({"type": "number", "x-mcp-header": "Score"}), "type"),
        (tool({"x-mcp-header": "Untyped"}), "type"),
        (tool({"type": ["string", "integer"], "x-mcp-header": "Either"}), "type"),
        (tool({"type": "string", "x-mcp-header": "My Region"}), "token"),
        (tool({"type": "string", "x-mcp-header": "Region:Primary"}), "token"),
        (tool({"type": "string", "x-mcp-header": "Région"}), "token"),
        (tool({"type": "string", "x-mcp-header": "Region\t1"}), "token"),
        (tool({"type": "string", "x-mcp-header": "Region\r\n1"}), "CR or LF"),
        (tool({"type": "string", "x-mcp-header": 7}), "non-empty string"),
        (tool({"type": "integer", "x-mcp-header": "Big", "const": 2**60}), "JavaScript-safe"),
        (
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "x-mcp-header": "MyField"},
                    "b": {"type": "string", "x-mcp-header": "myfield"},
                },
            },
            "unique",
        ),
        ({"type": "object", "x-mcp-header": "Root"}, "properties"),
        (
            {
                "type": "object",
                "properties": {
                    "xs": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"h": {"type": "string", "x-mcp-header": "H"}},
                        },
                    }
                },
            },
            "properties",
        ),
        (
            {
                "type": "object",
                "oneOf": [{"properties": {"r": {"type": "string", "x-mcp-header": "R"}}}],
            },
            "properties",
        ),
        (
            {
                "type": "object",
                "if": {"properties": {"r": {"type": "string", "x-mcp-header": "R"}}},
            },
            "properties",
        ),
        (
            {
                "type": "object",
                "$defs": {"R": {"type": "string", "x-mcp-header": "R"}},
                "properties": {"r": {"$ref": "#/$defs/R"}},
            },
            "properties",
        ),
        (tool({"$ref": "#/$defs/R", "x-mcp-header": "R"}), "type"),
    ],
)
def test_lint_rejects_invalid_annotations(schema: dict[str, Any], why: str) -> None:
    problems = lint_x_mcp_header(schema)
    assert problems, schema
    assert why in " ".join(str(p) for p in problems)
    assert tool_header_problem(schema) is not None
    with pytest.raises(UsageError, match="invalid x-mcp-header"):
        header_params(schema)


def test_lint_accepts_valid_annotations_and_ignores_lookalikes() -> None:
    assert lint_x_mcp_header(SCHEMA) == []
    assert tool_header_problem(SCHEMA) is None
    # A property *named* x-mcp-header, and an instance value containing the key, are not
    # annotations.
    lookalikes = {
        "type": "object",
        "properties": {
            "x-mcp-header": {"type": "object", "default": {"x-mcp-header": "nope"}},
        },
        "examples": [{"x-mcp-header": 5}],
    }
    assert lint_x_mcp_header(lookalikes) == []
    assert lint_x_mcp_header({"type": "object"}) == []


def test_lint_bounds_schema_depth() -> None:
    schema: dict[str, Any] = {"type": "string", "x-mcp-header": "Deep"}
    for i in range(100):
        schema = {"type": "object", "properties": {f"p{i}": schema}}
    assert any("deeper" in str(p) for p in lint_x_mcp_header(schema))


def test_lint_points_at_the_broken_property() -> None:
    (problem,) = lint_x_mcp_header(tool({"type": "number", "x-mcp-header": "Score"}))
    assert problem.pointer == "/properties/value"


def test_header_params_maps_paths_to_headers() -> None:
    assert header_params(SCHEMA) == {
        ("region",): "Mcp-Param-Region",
        ("priority",): "Mcp-Param-Priority",
        ("verbose",): "Mcp-Param-Verbose",
        ("target", "zone"): "Mcp-Param-Zone",
    }
    compiled = compile_header_params(SCHEMA)
    assert ParamHeader(("priority",), "Mcp-Param-Priority", "integer") in compiled.params
    assert ParamHeader(("target", "zone"), "Mcp-Param-Zone", "string") in compiled.params


# --- client side -----------------------------------------------------------------------------


def test_request_headers_for_a_tool_call() -> None:
    body = call(
        {
            "region": "us-west1",
            "priority": 42,
            "verbose": False,
            "target": {"zone": "Zürich"},
            "query": "SELECT 1",
        }
    )
    assert request_headers(body, protocol_version=V, tool_input_schema=SCHEMA) == {
        "MCP-Protocol-Version": V,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "execute_sql",
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-Priority": "42",
        "Mcp-Param-Verbose": "false",
        "Mcp-Param-Zone": "=?base64?WsO8cmljaA==?=",
    }


def test_request_headers_omit_null_and_absent_values() -> None:
    body = call({"region": None, "target": {"zone": None}})
    headers = request_headers(body, protocol_version=V, tool_input_schema=SCHEMA)
    assert not [h for h in headers if h.startswith("Mcp-Param-")]


def test_request_headers_for_other_methods() -> None:
    def headers(method: str, params: dict[str, Any]) -> dict[str, str]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
        return request_headers(body, protocol_version=V)

    assert headers("tools/list", {}) == {"MCP-Protocol-Version": V, "Mcp-Method": "tools/list"}
    assert headers("resources/read", {"uri": "file:///a b"})["Mcp-Name"] == "file:///a b"
    assert headers("prompts/get", {"name": "greet"})["Mcp-Name"] == "greet"
    assert headers("tasks/get", {"taskId": "t-1"})["Mcp-Name"] == "t-1"
    assert headers("resources/read", {"uri": "file:///ü"})["Mcp-Name"].startswith("=?base64?")


def test_request_headers_refuse_what_a_header_cannot_carry() -> None:
    with pytest.raises(UsageError, match="region"):
        request_headers(call({"region": ["eu"]}), protocol_version=V, tool_input_schema=SCHEMA)
    with pytest.raises(UsageError, match="outside the range"):
        request_headers(call({"priority": 2**60}), protocol_version=V, tool_input_schema=SCHEMA)
    with pytest.raises(UsageError, match="invalid x-mcp-header"):
        request_headers(
            call({}),
            protocol_version=V,
            tool_input_schema=tool({"type": "number", "x-mcp-header": "N"}),
        )
    with pytest.raises(UsageError, match="Mcp-Method"):
        request_headers({"id": 1, "method": "bad\nmethod"}, protocol_version=V)


def test_integral_floats_are_sent_as_integers() -> None:
    headers = request_headers(
        call({"priority": 42.0}), protocol_version=V, tool_input_schema=SCHEMA
    )
    assert headers["Mcp-Param-Priority"] == "42"


# --- server side -----------------------------------------------------------------------------


def mismatch(headers: Any, body: dict[str, Any], schema: Any = SCHEMA) -> HeaderMismatch:
    with pytest.raises(HeaderMismatch) as info:
        validate_request_headers(headers, body, tool_input_schema=schema)
    assert info.value.code == HEADER_MISMATCH
    return info.value


def test_round_trip_client_headers_validate() -> None:
    body = call({"region": " padded ", "priority": 7, "verbose": True, "target": {"zone": "z"}})
    for schema in (SCHEMA, compile_header_params(SCHEMA)):
        headers = request_headers(body, protocol_version=V, tool_input_schema=schema)
        validate_request_headers(headers, body, tool_input_schema=schema)
        # Header names are case-insensitive, in a mapping or as ASGI byte pairs.
        validate_request_headers({k.upper(): v for k, v in headers.items()}, body)
        pairs = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        validate_request_headers(pairs, body, tool_input_schema=schema)


def test_missing_required_standard_headers() -> None:
    body = call({})
    good = request_headers(body, protocol_version=V)
    for name in ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"):
        headers = {k: v for k, v in good.items() if k != name}
        error = mismatch(headers, body, None)
        assert name in error.message and "required" in error.message
        assert error.data == {"header": name}


def test_mismatched_standard_headers_name_both_values() -> None:
    body = call({}, name="bar")
    error = mismatch({**request_headers(body, protocol_version=V), "Mcp-Name": "foo"}, body, None)
    assert "'foo'" in error.message and "'bar'" in error.message and "Mcp-Name" in error.message
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    error = mismatch({"MCP-Protocol-Version": V, "Mcp-Method": "TOOLS/LIST"}, body, None)
    assert "case-sensitive" in error.message
    mismatch({"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list"}, body, None)


@pytest.mark.parametrize("value", ["tools/ call", "tools/\tcall", "tools/call\x7f", "tööls/call"])
def test_plain_headers_allow_visible_ascii_only(value: str) -> None:
    body = call({}, name="bar")
    headers = {**request_headers(body, protocol_version=V), "Mcp-Method": value}
    error = mismatch(headers, body, None)
    assert "outside visible ASCII" in error.message and error.data == {"header": "Mcp-Method"}


def test_whitespace_around_values_is_not_part_of_them() -> None:
    body = call({}, name="get_weather")
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": "  get_weather  "}
    validate_request_headers(headers, body)


def test_base64_mcp_name_is_decoded_before_comparing() -> None:
    body = call({}, name="wetter/zürich")
    headers = request_headers(body, protocol_version=V)
    assert headers["Mcp-Name"].startswith("=?base64?")
    validate_request_headers(headers, body)


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("get_weather", "get_weather"),
        ("  get_weather\t", "get_weather"),
        ("=?base64?" + base64.b64encode("wetter/zürich".encode()).decode() + "?=", "wetter/zürich"),
        ("=?base64?abc", "=?base64?abc"),  # a literal
    ],
)
def test_a_name_header_seen_before_is_judged_as_the_first_time(raw: str, name: str) -> None:
    """Accepted values are remembered decoded: every later request gets the same verdict as
    the decoder's, for the value it names and for any other body."""
    assert decode_header_value(raw) == name
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": raw}
    for _ in range(3):
        validate_request_headers(headers, call({}, name=name))
        with pytest.raises(HeaderMismatch, match="does not match body value"):
            validate_request_headers(headers, call({}, name=name + "x"))


@pytest.mark.parametrize("bad", ["=?base64?SGVsbG8?=", "=?base64?/w==?=", "caf\u00e9", "a\x00b"])
def test_a_malformed_name_header_is_refused_every_time(bad: str) -> None:
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": bad}
    for _ in range(3):
        with pytest.raises(HeaderMismatch, match="Mcp-Name header is malformed"):
            validate_request_headers(headers, call({}, name="Hello"))


def test_param_header_cases_from_the_conformance_suite() -> None:
    b64 = base64.b64encode(b"Hello").decode()
    standard = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": "execute_sql"}

    def check(body_value: str, header_value: str | None) -> None:
        headers = dict(standard)
        if header_value is not None:
            headers["Mcp-Param-Region"] = header_value
        validate_request_headers(headers, call({"region": body_value}), tool_input_schema=SCHEMA)

    check("Hello", f"=?base64?{b64}?=")
    check(b64, b64)
    check(f"=?base64?{b64}", f"=?base64?{b64}")
    for bad in ("=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="):
        with pytest.raises(HeaderMismatch, match="malformed"):
            check("Hello", bad)
    with pytest.raises(HeaderMismatch, match="required"):
        check("test-value", None)
    with pytest.raises(HeaderMismatch, match="does not match"):
        check("us-west1", "us-east1")


def test_param_null_or_absent_expects_no_header() -> None:
    standard = request_headers(call({}), protocol_version=V)
    validate_request_headers(standard, call({"region": None}), tool_input_schema=SCHEMA)
    validate_request_headers(standard, call({}), tool_input_schema=SCHEMA)
    error = mismatch({**standard, "Mcp-Param-Region": "eu"}, call({}))
    assert "omit it" in error.message


def test_numbers_compare_numerically_and_booleans_exactly() -> None:
    standard = request_headers(call({}), protocol_version=V)
    for header in ("42", "42.0", "4.2e1", "+42"):
        validate_request_headers(
            {**standard, "Mcp-Param-Priority": header},
            call({"priority": 42}),
            tool_input_schema=SCHEMA,
        )
    for header in ("43", "forty-two", "0x2a", "NaN", ""):
        mismatch({**standard, "Mcp-Param-Priority": header}, call({"priority": 42}))
    big = 2**60 + 1  # beyond double precision: still compared exactly
    mismatch({**standard, "Mcp-Param-Priority": str(2**60)}, call({"priority": big}))
    validate_request_headers(
        {**standard, "Mcp-Param-Verbose": "true"}, call({"verbose": True}), tool_input_schema=SCHEMA
    )
    mismatch({**standard, "Mcp-Param-Verbose": "True"}, call({"verbose": True}))
    mismatch({**standard, "Mcp-Param-Verbose": "1"}, call({"verbose": True}))


def test_body_value_of_the_wrong_kind_cannot_match() -> None:
    standard = request_headers(call({}), protocol_version=V)
    mismatch({**standard, "Mcp-Param-Region": '["eu"]'}, call({"region": ["eu"]}))


def test_invalid_characters_are_rejected() -> None:
    body = call({})
    headers = {**request_headers(body, protocol_version=V), "Mcp-Method": "tools/call\x01"}
    assert "visible ASCII" in mismatch(headers, body, None).message


def test_repeated_mcp_headers_are_rejected() -> None:
    body = call({}, name="a")
    pairs = [
        (b"mcp-protocol-version", V.encode()),
        (b"mcp-method", b"tools/call"),
        (b"mcp-name", b"a"),
        (b"Mcp-Name", b"b"),
    ]
    assert "more than once" in mismatch(pairs, body, None).message
    assert normalize_headers([("Accept", "a"), ("accept", "b")]) == {"accept": "a, b"}


def test_name_header_for_a_method_body_without_the_field() -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"_meta": META}}
    validate_request_headers({"MCP-Protocol-Version": V, "Mcp-Method": "tasks/get"}, body)
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": "tasks/get", "Mcp-Name": "x"}
    mismatch(headers, body, None)


def test_removed_2025_task_methods_need_no_name_header() -> None:
    # tasks/result and tasks/list are not 2026 methods: the server answers -32601, so a
    # missing Mcp-Name must not turn that into a -32020 first (conformance tasks-dispatch).
    for method in ("tasks/result", "tasks/list"):
        params = {"taskId": "t", "_meta": META}
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        validate_request_headers({"MCP-Protocol-Version": V, "Mcp-Method": method}, body)


def test_notifications_only_compare_headers_that_are_present() -> None:
    body = {"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"_meta": META}}
    validate_request_headers({}, body)
    validate_request_headers({"mcp-method": "notifications/initialized"}, body)
    mismatch({"mcp-method": "notifications/cancelled"}, body, None)


def test_error_messages_do_not_echo_unbounded_input() -> None:
    body = call({}, name="a")
    headers = {**request_headers(body, protocol_version=V), "Mcp-Name": "x" * 10_000}
    assert len(mismatch(headers, body, None).message) < 400

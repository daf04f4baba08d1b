"""The JSON-RPC codec against every kind of bad input: each must become a MessageDecodeError
carrying the right code, never another exception."""

from __future__ import annotations

import os
import random

import msgspec
import pytest

from mcpkit.protocol._codec import decode_message, encode_message, message_from_obj
from mcpkit.protocol._errors import (
    INVALID_REQUEST,
    PARSE_ERROR,
    JSONRPCError,
    MessageDecodeError,
    MethodNotFound,
)
from mcpkit.types._jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Notification,
    Request,
    Response,
)


def decode_error(data: bytes | str) -> MessageDecodeError:
    with pytest.raises(MessageDecodeError) as info:
        decode_message(data)
    return info.value


# --- valid messages -------------------------------------------------------------------------


def test_request_notification_response_error_round_trip() -> None:
    messages = [
        Request(id=1, method="tools/list", params={"cursor": "x"}),
        Request(id="abc", method="ping"),
        Notification(method="notifications/initialized"),
        Notification(method="notifications/progress", params={"progressToken": 1, "progress": 2}),
        Response(id=7, result={}),
        ErrorResponse(id=3, error=ErrorObject(code=-32601, message="nope", data={"m": "x"})),
        ErrorResponse(id=None, error=ErrorObject(code=-32700, message="Parse error")),
    ]
    for message in messages:
        wire = encode_message(message)
        assert b"\n" not in wire
        assert decode_message(wire) == message


def test_encoded_string_with_newlines_stays_on_one_line() -> None:
    wire = encode_message(Request(id=1, method="x", params={"text": "a\nb\r\nc"}))
    assert b"\n" not in wire and b"\r" not in wire
    decoded = decode_message(wire)
    assert isinstance(decoded, Request) and decoded.params == {"text": "a\nb\r\nc"}


def test_str_input_is_accepted() -> None:
    assert decode_message('{"jsonrpc":"2.0","method":"ping","id":1}') == Request(1, "ping")


def test_error_response_data_is_preserved_and_mapped() -> None:
    msg = decode_message(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}')
    assert isinstance(msg, ErrorResponse)
    assert msg.error.data is msgspec.UNSET
    err = JSONRPCError.from_error_object(msg.error)
    assert isinstance(err, MethodNotFound) and err.remote


# --- invalid JSON ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b'{"jsonrpc":"2.0",',
        b"not json",
        b"{'single': 'quotes'}",
        b'{"a":1}{"b":2}',
        b"NaN",
        b'{"jsonrpc":"2.0","id":1,"method":"x",}',
        b'"\xff\xfe"',  # invalid UTF-8 inside a string
        b"\x00\x01\x02",
        b"\xef\xbb\xbf" + b"\xff" * 10,
    ],
)
def test_invalid_json_is_parse_error(data: bytes) -> None:
    err = decode_error(data)
    assert err.error.code == PARSE_ERROR
    assert err.request_id is None
    assert err.answerable
    assert err.error.message.startswith("Parse error")


def test_binary_garbage_never_escapes_as_another_exception() -> None:
    rng = random.Random(1234)
    for _ in range(500):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        try:
            decode_message(blob)
        except MessageDecodeError as exc:
            assert exc.error.code in (PARSE_ERROR, INVALID_REQUEST)
    # and truly random bytes
    for _ in range(50):
        try:
            decode_message(os.urandom(256))
        except MessageDecodeError:
            pass


def test_deeply_nested_json_is_a_parse_error_not_a_crash() -> None:
    err = decode_error(b"[" * 200_000)
    assert err.error.code == PARSE_ERROR
    nested = b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":' + b"[" * 100_000
    assert decode_error(nested).error.code == PARSE_ERROR


def test_lone_surrogate_in_str_input_is_a_parse_error() -> None:
    err = decode_error('{"jsonrpc":"2.0","method":"x","params":{"a":"\ud800"}}')
    assert err.error.code == PARSE_ERROR


def test_number_out_of_range_is_a_parse_error() -> None:
    assert decode_error(b'{"jsonrpc":"2.0","id":1e400,"method":"x"}').error.code == PARSE_ERROR


# --- valid JSON that is not JSON-RPC --------------------------------------------------------


@pytest.mark.parametrize("data", [b"1", b'"text"', b"null", b"true", b"3.5"])
def test_non_object_json_is_invalid_request(data: bytes) -> None:
    err = decode_error(data)
    assert err.error.code == INVALID_REQUEST
    assert "JSON object" in err.error.message


def test_batch_is_rejected() -> None:
    err = decode_error(b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert err.error.code == INVALID_REQUEST
    assert "batch" in err.error.message
    assert decode_error(b"[]").error.code == INVALID_REQUEST


def test_object_without_jsonrpc_fields() -> None:
    err = decode_error(b'{"hello":"world"}')
    assert err.error.code == INVALID_REQUEST
    assert not err.answerable  # nothing identifies it as a request to answer


@pytest.mark.parametrize("version", [None, "1.0", 2.0, "2.1", ""])
def test_wrong_jsonrpc_version(version: object) -> None:
    obj = {"id": 5, "method": "ping"}
    if version is not None:
        obj["jsonrpc"] = version
    err = decode_error(msgspec.json.encode(obj))
    assert err.error.code == INVALID_REQUEST
    assert '"jsonrpc" must be "2.0"' in err.error.message
    assert err.request_id == 5  # readable, so the error can be addressed
    assert err.answerable


def test_not_a_request_notification_or_response() -> None:
    err = decode_error(b'{"jsonrpc":"2.0","id":1}')
    assert err.error.code == INVALID_REQUEST
    assert err.request_id == 1


# --- wrong field types ----------------------------------------------------------------------


@pytest.mark.parametrize("method", [1, None, ["x"], {"a": 1}, True])
def test_method_must_be_a_string(method: object) -> None:
    err = decode_error(msgspec.json.encode({"jsonrpc": "2.0", "id": 9, "method": method}))
    assert err.error.code == INVALID_REQUEST
    assert '"method" must be a string' in err.error.message
    assert err.request_id == 9


@pytest.mark.parametrize("params", [[1, 2], "x", 3, True])
def test_params_must_be_an_object(params: object) -> None:
    obj = {"jsonrpc": "2.0", "id": 2, "method": "x", "params": params}
    err = decode_error(msgspec.json.encode(obj))
    assert err.error.code == INVALID_REQUEST
    assert '"params" must be an object' in err.error.message


def test_null_params_is_treated_as_absent() -> None:
    assert decode_message(b'{"jsonrpc":"2.0","id":2,"method":"x","params":null}') == Request(2, "x")


@pytest.mark.parametrize("bad_id", [1.5, True, False, [1], {"a": 1}])
def test_request_id_must_be_string_or_integer(bad_id: object) -> None:
    obj = {"jsonrpc": "2.0", "id": bad_id, "method": "x"}
    err = decode_error(msgspec.json.encode(obj))
    assert err.error.code == INVALID_REQUEST
    assert "string or an integer" in err.error.message
    assert err.request_id is None


def test_request_id_null_is_rejected() -> None:
    err = decode_error(b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}')
    assert err.error.code == INVALID_REQUEST
    assert "must not be null" in err.error.message
    assert err.request_id is None and err.answerable


def test_big_integer_id_is_accepted() -> None:
    msg = decode_message(b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"x"}')
    assert isinstance(msg, Request) and msg.id == 123456789012345678901234567890


def test_notification_carrying_an_id_is_rejected_with_that_id() -> None:
    err = decode_error(b'{"jsonrpc":"2.0","id":4,"method":"notifications/initialized"}')
    assert err.error.code == INVALID_REQUEST
    assert "notification" in err.error.message and "id" in err.error.message
    assert err.request_id == 4
    assert err.answerable


@pytest.mark.parametrize(
    "data",
    [
        b'{"jsonrpc":"2.0","id":1,"result":"ok"}',  # result must be an object
        b'{"jsonrpc":"2.0","id":1,"result":[]}',
        b'{"jsonrpc":"2.0","id":null,"result":{}}',  # a result needs an id
        b'{"jsonrpc":"2.0","result":{}}',
        b'{"jsonrpc":"2.0","id":1.5,"result":{}}',
        b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
    ],
)
def test_malformed_response_is_not_answerable(data: bytes) -> None:
    err = decode_error(data)
    assert err.error.code == INVALID_REQUEST
    assert not err.answerable  # answering a response would start a ping-pong


@pytest.mark.parametrize(
    "error",
    [
        "boom",
        {"message": "no code"},
        {"code": "1", "message": "string code"},
        {"code": 1.5, "message": "float code"},
        {"code": True, "message": "bool code"},
        {"code": 1},
        {"code": 1, "message": 2},
    ],
)
def test_malformed_error_response_is_not_answerable(error: object) -> None:
    err = decode_error(msgspec.json.encode({"jsonrpc": "2.0", "id": 1, "error": error}))
    assert err.error.code == INVALID_REQUEST
    assert not err.answerable


def test_error_response_with_bad_id_type() -> None:
    obj = {"jsonrpc": "2.0", "id": [1], "error": {"code": -1, "message": "x"}}
    assert not decode_error(msgspec.json.encode(obj)).answerable


def test_error_response_with_null_id_is_valid() -> None:
    msg = decode_message(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"P"}}')
    assert isinstance(msg, ErrorResponse) and msg.id is None


def test_message_from_obj_classifies_parsed_values() -> None:
    assert message_from_obj({"jsonrpc": "2.0", "method": "m"}) == Notification("m")
    with pytest.raises(MessageDecodeError):
        message_from_obj("x")


class _Id(int):
    """An int subclass (not what JSON decodes to): the exact-type shortcut must leave it alone."""


SHAPES: list[object] = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}},
    {"jsonrpc": "2.0", "id": "a", "method": "ping"},
    {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": None},
    {"jsonrpc": "2.0", "id": 1, "method": "notifications/progress"},
    {"jsonrpc": "2.0", "id": None, "method": "ping"},
    {"jsonrpc": "2.0", "id": True, "method": "ping"},
    {"jsonrpc": "2.0", "id": 1.0, "method": "ping"},
    {"jsonrpc": "2.0", "id": _Id(3), "method": "ping"},
    {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": []},
    {"jsonrpc": "2.0", "id": 1, "method": None},
    {"jsonrpc": "2.0", "id": 1, "method": 5},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": 1}},
    {"jsonrpc": "2.0", "id": 1, "result": {}},
    {"jsonrpc": "2.0", "id": "r", "result": {"a": [1]}},
    {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}},
    {"jsonrpc": "2.0", "id": 1, "result": {}, "method": None},
    {"jsonrpc": "2.0", "id": 1, "result": []},
    {"jsonrpc": "2.0", "id": None, "result": {}},
    {"jsonrpc": "2.0", "result": {}},
    {"jsonrpc": "2.0", "id": True, "result": {}},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}},
    {"jsonrpc": "2.0", "id": 1},
    {"jsonrpc": "1.0", "id": 1, "method": "ping"},
    {"id": 1, "method": "ping"},
    [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
    "text",
]


@pytest.mark.parametrize("obj", SHAPES)
def test_the_fast_path_classifies_as_the_full_rules_do(obj: object) -> None:
    """``message_from_obj`` takes well-formed messages by exact type before the full rules
    (``_classify``); both must agree on every input, errors included."""
    from mcpkit.protocol._codec import _classify

    def outcome(classify: object) -> object:
        try:
            message = classify(obj)  # type: ignore[operator]
        except MessageDecodeError as exc:
            return ("error", exc.error.code, exc.error.message, exc.request_id, exc.answerable)
        return (type(message), message)

    assert outcome(message_from_obj) == outcome(_classify)


def test_encode_message_writes_what_message_to_dict_says() -> None:
    """A response is encoded without ``message_to_dict`` (the common case on a server); the
    bytes must be exactly those of the general path."""
    from mcpkit.types._jsonrpc import message_to_dict

    for message in [
        Response(1, {"content": [{"type": "text", "text": "é\\n"}]}),
        Response("x", {}),
        Request(2, "ping"),
        Notification("notifications/progress", {"progressToken": 1, "progress": 1}),
        ErrorResponse(None, ErrorObject(-32700, "Parse error")),
    ]:
        assert encode_message(message) == msgspec.json.encode(message_to_dict(message))

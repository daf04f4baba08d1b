"""JSON-RPC 2.0 codec: bytes to one :data:`~mcpkit.types._jsonrpc.Message` and back.

One decode per message: msgspec parses the JSON into builtins, then a few type checks classify it.
MCP sends single messages; a JSON array (a batch) is a decode error (-32600) that carries its
decoded members, for the one revision that accepts batches (2025-03-26). Every kind of
bad input ends as a :class:`~mcpkit.protocol._errors.MessageDecodeError`, never another exception:
deeply nested JSON (which exhausts the C decoder's recursion) and text with lone surrogates are
parse errors too, so a hostile peer cannot crash the reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from mcpkit.protocol._errors import InvalidRequest, MessageDecodeError, ParseError
from mcpkit.types._jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    message_to_dict,
)

__all__ = [
    "decode_json",
    "decode_message",
    "encode_batch",
    "encode_json",
    "encode_message",
    "message_from_obj",
]

_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


def _valid_id(value: Any) -> bool:
    # bool is an int subclass in Python but not a JSON-RPC id.
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def decode_message(data: bytes | str) -> Message:
    """Decode one JSON-RPC message.

    Raises :class:`~mcpkit.protocol._errors.MessageDecodeError` carrying the JSON-RPC error to
    answer
    with (-32700 for invalid JSON, -32600 for anything that is not a single valid message).
    """
    try:
        obj = _decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MessageDecodeError(ParseError(f"Parse error: {exc}")) from None
    except RecursionError:
        raise MessageDecodeError(ParseError("Parse error: JSON nested too deeply")) from None
    except UnicodeEncodeError:
        # A str holding lone surrogates cannot be re-encoded as UTF-8 for the decoder.
        raise MessageDecodeError(ParseError("Parse error: text is not valid Unicode")) from None
    return message_from_obj(obj)


def message_from_obj(obj: Any) -> Message:
    """Classify an already-parsed JSON value as a message (see :func:`decode_message`)."""
    # The hot path: a well-formed request, notification or result, checked by exact type. What
    # it does not take is judged by _classify, which words every error (and takes subclasses).
    if type(obj) is dict and obj.get("jsonrpc") == "2.0":
        raw_id: Any = obj.get("id")
        id_type = type(raw_id)
        method = obj.get("method")
        if type(method) is str:
            params = obj.get("params")
            if params is None or type(params) is dict:
                if id_type is int or id_type is str:
                    if not method.startswith("notifications/"):
                        return Request(raw_id, method, params)
                elif raw_id is None and "id" not in obj:
                    return Notification(method, params)
        elif method is None and (id_type is int or id_type is str) and "method" not in obj:
            result = obj.get("result")
            if type(result) is dict and "error" not in obj:
                return Response(raw_id, result)
    return _classify(obj)


def _classify(obj: Any) -> Message:
    if isinstance(obj, list):
        # Decoded member by member: a 2025-03-26 connection serves them (see protocol.batch).
        raise MessageDecodeError(
            InvalidRequest("Invalid Request: batches are not supported"),
            batch=tuple(_batch_member(item) for item in obj),
        )
    if not isinstance(obj, dict):
        raise MessageDecodeError(InvalidRequest("Invalid Request: a message must be a JSON object"))
    raw_id = obj.get("id")
    msg_id: RequestId | None = raw_id if _valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        raise MessageDecodeError(
            InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"'),
            msg_id,
            answerable="method" in obj or "id" in obj,
        )
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str):
            raise MessageDecodeError(
                InvalidRequest('Invalid Request: "method" must be a string'), msg_id
            )
        params = obj.get("params")
        if params is not None and not isinstance(params, dict):
            raise MessageDecodeError(
                InvalidRequest('Invalid Request: "params" must be an object'), msg_id
            )
        if "id" not in obj:
            return Notification(method=method, params=params)
        if method.startswith("notifications/"):
            # Every MCP notification lives under notifications/; one sent with an id would be
            # answered by nobody (or wrongly), so say exactly what is wrong.
            raise MessageDecodeError(
                InvalidRequest(
                    f'Invalid Request: {method} is a notification and must not carry "id"'
                ),
                msg_id,
            )
        if raw_id is None:
            raise MessageDecodeError(InvalidRequest('Invalid Request: "id" must not be null'))
        if msg_id is None:
            raise MessageDecodeError(
                InvalidRequest('Invalid Request: "id" must be a string or an integer')
            )
        return Request(id=msg_id, method=method, params=params)
    if "result" in obj:
        result = obj["result"]
        if msg_id is None or not isinstance(result, dict) or "error" in obj:
            raise MessageDecodeError(
                InvalidRequest("Invalid Request: malformed response"), msg_id, answerable=False
            )
        return Response(id=msg_id, result=result)
    if "error" in obj:
        error = obj["error"]
        if (
            not isinstance(error, dict)
            or not isinstance(error.get("code"), int)
            or isinstance(error.get("code"), bool)
            or not isinstance(error.get("message"), str)
            or (raw_id is not None and msg_id is None)
        ):
            raise MessageDecodeError(
                InvalidRequest("Invalid Request: malformed error response"),
                msg_id,
                answerable=False,
            )
        return ErrorResponse(
            id=msg_id,
            error=ErrorObject(
                code=error["code"],
                message=error["message"],
                data=error.get("data", msgspec.UNSET),
            ),
        )
    raise MessageDecodeError(
        InvalidRequest("Invalid Request: not a request, notification or response"), msg_id
    )


def _batch_member(obj: Any) -> Message | MessageDecodeError:
    if isinstance(obj, list):
        return MessageDecodeError(InvalidRequest("Invalid Request: a batch inside a batch"))
    try:
        return message_from_obj(obj)
    except MessageDecodeError as exc:
        return exc


def encode_message(message: Message) -> bytes:
    """Compact JSON for ``message`` with no newlines (safe for stdio framing)."""
    if type(message) is Response:  # what a server sends most: message_to_dict's last case
        return _encoder.encode({"jsonrpc": "2.0", "id": message.id, "result": message.result})
    if type(message) is Request and message.params is not None:  # what a client sends most
        return _encoder.encode(
            {"jsonrpc": "2.0", "id": message.id, "method": message.method, "params": message.params}
        )
    return _encoder.encode(message_to_dict(message))


def encode_batch(messages: Sequence[Message]) -> bytes:
    """Compact JSON array of ``messages`` (a JSON-RPC batch, or the answer to one)."""
    return _encoder.encode([message_to_dict(message) for message in messages])


def encode_json(value: Any) -> bytes:
    """Compact JSON for any value (used for SSE data lines and HTTP bodies)."""
    return _encoder.encode(value)


def decode_json(data: bytes | str) -> Any:
    """Parse JSON; raises :class:`msgspec.DecodeError` on invalid input."""
    return _decoder.decode(data)

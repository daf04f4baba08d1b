"""JSON-RPC 2.0 envelopes as MCP uses them.

Params and results stay plain JSON objects (``dict``) at this level: the envelope is what every
layer shares, while the typed view of a particular method's params or result is decoded on demand
by the layer that needs it (see :mod:`mcpkit.types._methods`). This keeps the hot path to one JSON
decode per message.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

__all__ = [
    "JSONRPC_VERSION",
    "ErrorObject",
    "ErrorResponse",
    "JSONObject",
    "Message",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "message_to_dict",
]

JSONRPC_VERSION: Final = "2.0"

RequestId = int | str
"""A JSON-RPC id: a string or an integer, never ``null`` (MCP forbids null ids)."""

JSONObject = dict[str, Any]
"""A JSON object kept as a plain dict (open sets, schemas, arbitrary arguments)."""


class Request(msgspec.Struct, omit_defaults=True):
    """A request: expects exactly one response with the same id."""

    id: RequestId
    method: str
    params: JSONObject | None = None


class Notification(msgspec.Struct, omit_defaults=True):
    """A one-way message; it has no id and gets no response."""

    method: str
    params: JSONObject | None = None


class Response(msgspec.Struct, omit_defaults=True):
    """A successful response to the request with the same id."""

    id: RequestId
    result: JSONObject


class ErrorObject(msgspec.Struct, omit_defaults=True):
    """The ``error`` member of an error response."""

    code: int
    message: str
    data: Any = msgspec.UNSET


class ErrorResponse(msgspec.Struct, omit_defaults=True):
    """A failed response. ``id`` is ``None`` only when the request's id could not be read."""

    id: RequestId | None
    error: ErrorObject


Message = Request | Notification | Response | ErrorResponse
"""Any single JSON-RPC message (MCP has no batches)."""


def message_to_dict(message: Message) -> JSONObject:
    """The exact JSON object that goes on the wire for ``message``."""
    if isinstance(message, Request):
        out: JSONObject = {"jsonrpc": JSONRPC_VERSION, "id": message.id, "method": message.method}
        if message.params is not None:
            out["params"] = message.params
        return out
    if isinstance(message, Notification):
        out = {"jsonrpc": JSONRPC_VERSION, "method": message.method}
        if message.params is not None:
            out["params"] = message.params
        return out
    if isinstance(message, Response):
        return {"jsonrpc": JSONRPC_VERSION, "id": message.id, "result": message.result}
    error: JSONObject = {"code": message.error.code, "message": message.error.message}
    if message.error.data is not msgspec.UNSET:
        error["data"] = message.error.data
    # An unreadable request id is answered with "id": null (JSON-RPC 2.0 §5), never omitted.
    return {"jsonrpc": JSONRPC_VERSION, "id": message.id, "error": error}

"""The base classes every wire model derives from, and the two conversion helpers.

Every MCP object is a :class:`msgspec.Struct` so that one msgspec pass turns a parsed JSON
object into a typed, validated value (and back). The config is chosen for the wire:

* ``rename="camel"``: Python ``snake_case`` attributes map to the protocol's ``camelCase`` keys.
* ``omit_defaults=True``: optional fields left at their default (``None``/``UNSET``) are not sent,
  so an absent key round-trips as absent and an explicit ``false`` round-trips as ``false``.
* ``_meta`` is always an attribute named ``meta`` (renamed explicitly) holding a plain ``dict``:
  ``_meta`` is an open map whose unknown keys must survive a round trip, so it is never a Struct.

A constant that must always be on the wire (``"type": "text"``, ``"resultType": "input_required"``)
is a msgspec *tag*, not a defaulted field: ``omit_defaults`` would drop a field equal to its
default, while a tag is always written and is checked when decoding.

``None`` means "absent" for ordinary optional fields. Fields whose value may legitimately be JSON
``null`` (``structuredContent``, error ``data``) use :data:`msgspec.UNSET` for "absent" instead.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeVar, overload

import msgspec
from msgspec import UNSET, UnsetType

from mcpkit.types._jsonrpc import JSONObject, RequestId

__all__ = [
    "UNSET",
    "CacheScope",
    "InputRequestModel",
    "InputResponses",
    "JSONRPCVersion",
    "NotificationModel",
    "RequestModel",
    "Cursor",
    "JSONObject",
    "LoggingLevel",
    "Meta",
    "MessageModel",
    "ProgressToken",
    "INPUT_REQUESTS_KEY",
    "INPUT_RESPONSES_KEY",
    "REQUEST_STATE_KEY",
    "RESULT_TYPE_COMPLETE",
    "RESULT_TYPE_INPUT_REQUIRED",
    "RESULT_TYPE_TASK",
    "RESULT_TYPE_KEY",
    "RequestId",
    "Role",
    "UnsetType",
    "WireModel",
    "decode",
    "to_wire",
]

Meta = dict[str, Any]
"""The ``_meta`` map. See :mod:`mcpkit.types.meta` for the reserved keys and the key syntax."""

ProgressToken = int | str
Cursor = str
Role = Literal["user", "assistant"]
LoggingLevel = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
CacheScope = Literal["public", "private"]

JSONRPCVersion = Literal["2.0"]

InputResponses = dict[str, JSONObject]
"""2026-07-28 MRTR answers, keyed like the ``inputRequests`` they answer. Each value is the result
of the matching input request (``ElicitResult``, ``CreateMessageResult``, ``ListRootsResult``);
JSON cannot tell them apart, so decode each one with
:func:`mcpkit.types._methods.decode_input_response` once you know which request it answers."""

RESULT_TYPE_KEY: Final = "resultType"
"""2026-07-28: the result member saying what kind of result it is (one of the values below)."""
INPUT_REQUESTS_KEY: Final = "inputRequests"
"""2026-07-28 MRTR: the questions an ``input_required`` result asks, keyed by the server."""
INPUT_RESPONSES_KEY: Final = "inputResponses"
"""2026-07-28 MRTR: the client's answers, sent with the retried request (same keys)."""
REQUEST_STATE_KEY: Final = "requestState"
"""2026-07-28 MRTR: the server's sealed state, echoed back unchanged with the answers."""
RESULT_TYPE_COMPLETE: Final = "complete"
RESULT_TYPE_INPUT_REQUIRED: Final = "input_required"
RESULT_TYPE_TASK: Final = "task"
"""Added by the Tasks extension (``io.modelcontextprotocol/tasks``) for 2026-07-28."""
TASKS_EXTENSION_ID: Final = "io.modelcontextprotocol/tasks"
"""The key in ``capabilities.extensions`` that both sides must declare to use tasks (here, not
in :mod:`mcpkit.types._tasks_ext`, so the method table can gate on it without the task models)."""


class WireModel(msgspec.Struct, omit_defaults=True, rename="camel", kw_only=True):
    """Base of every MCP object.

    Subclasses repeat ``kw_only=True``: msgspec does not inherit it, and keyword-only fields let
    required and optional members appear in wire order.
    """


class MessageModel(msgspec.Struct, kw_only=True, tag_field="method"):
    """Base of the typed whole-message models (``CallToolRequest``, ``ProgressNotification`` ...).

    The ``method`` is the msgspec tag, so unions of these decode by method in one pass.
    ``omit_defaults`` is off so ``"jsonrpc": "2.0"`` is always written; optional members default
    to :data:`~msgspec.UNSET`, which is never written.

    mcpkit itself sends messages through the envelopes of :mod:`mcpkit.types._jsonrpc` with
    ``params=to_wire(params_model)``; these models exist to decode or build a whole message at
    once, and (for the three MRTR input requests) as the ``inputRequests`` entries of 2026-07-28.
    """


class RequestModel(MessageModel, kw_only=True):
    """A whole JSON-RPC request with typed ``params``."""

    jsonrpc: JSONRPCVersion = "2.0"
    id: RequestId


class NotificationModel(MessageModel, kw_only=True):
    """A whole JSON-RPC notification with typed ``params``."""

    jsonrpc: JSONRPCVersion = "2.0"


class InputRequestModel(MessageModel, kw_only=True):
    """A request the *server* asks of the client: ``sampling/createMessage``,
    ``elicitation/create``, ``roots/list``.

    In a legacy session it is a JSON-RPC request (set ``jsonrpc="2.0"`` and ``id``); in 2026-07-28
    it is an MRTR input request inside ``InputRequiredResult.inputRequests``, a bare
    ``{method, params}`` object, so both members default to absent.
    """

    jsonrpc: JSONRPCVersion | UnsetType = UNSET
    id: RequestId | UnsetType = UNSET


T = TypeVar("T")


@overload
def decode(model: type[T], obj: Any) -> T: ...
@overload
def decode(model: Any, obj: Any) -> Any: ...
def decode(model: Any, obj: Any) -> Any:
    """Convert parsed JSON (dicts, lists, scalars) into ``model`` in one validating pass.

    ``model`` is a Struct class or any type msgspec understands (a union of tagged Structs,
    ``dict[str, SomeStruct]`` ...). Raises :class:`msgspec.ValidationError` (a ``ValueError``)
    whose message names the offending path, e.g. ``Expected `str`, got `int` - at `$.name```;
    the protocol layer turns it into a -32602 error.
    """
    return msgspec.convert(obj, model)


def to_wire(value: Any) -> Any:
    """The JSON-ready builtins for a model (or any value containing models).

    Absent optional fields are omitted, attribute names become wire names. The result can be
    handed to any JSON encoder; mcpkit's msgspec encoder could also encode the Struct directly.
    """
    return msgspec.to_builtins(value)

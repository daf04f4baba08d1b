"""Typed views of what the server sent, decoded once at the edge of the client.

A result that does not fit its model is the server's fault, reported as
:class:`~mcpkit.client._errors.ServerMisbehaved` naming the method and the offending path — never
a bare ``msgspec.ValidationError`` escaping from deep inside the client.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

import msgspec

from mcpkit.client._errors import ServerMisbehaved
from mcpkit.types._elicitation import ElicitRequestParams
from mcpkit.types._jsonrpc import JSONObject, Notification
from mcpkit.types._notifications import (
    ElicitationCompleteNotification,
    LoggingMessageNotification,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    ToolListChangedNotification,
)
from mcpkit.types._sampling import CreateMessageRequestParams
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification
from mcpkit.types._tools import CallToolResult

__all__ = [
    "ChangeNotification",
    "decode_notification",
    "decode_question",
    "decode_result",
    "decode_tool_result",
]

logger = logging.getLogger("mcpkit.client")

T = TypeVar("T")

ChangeNotification = (
    SubscriptionsAcknowledgedNotification
    | ToolListChangedNotification
    | PromptListChangedNotification
    | ResourceListChangedNotification
    | ResourceUpdatedNotification
)
"""What a subscription yields: its acknowledgement first, then change notifications."""

_KNOWN = ChangeNotification | LoggingMessageNotification | ElicitationCompleteNotification


def decode_result(model: type[T], raw: Any, method: str) -> T:
    try:
        return msgspec.convert(raw, model)
    except msgspec.ValidationError as exc:
        raise ServerMisbehaved(f"{method}: the server's result is malformed: {exc}") from None


def decode_tool_result(raw: Any) -> CallToolResult:
    """A ``tools/call`` result as callers test it: ``is_error`` a bool (``False`` when absent),
    ``structured_content`` ``None`` when absent (the model's default)."""
    try:  # decode_result, inlined: this runs once per call
        typed = msgspec.convert(raw, CallToolResult)
    except msgspec.ValidationError as exc:
        raise ServerMisbehaved(f"tools/call: the server's result is malformed: {exc}") from None
    if typed.is_error is None:
        typed.is_error = False
    return typed


def decode_notification(note: Notification) -> Any | None:
    """The typed notification, or ``None`` (logged) when it is malformed or unknown."""
    obj: JSONObject = {"jsonrpc": "2.0", "method": note.method}
    obj["params"] = note.params if note.params is not None else {}
    try:
        return msgspec.convert(obj, _KNOWN)
    except msgspec.ValidationError as exc:
        logger.warning("dropped a malformed %s from the server: %s", note.method, exc)
        return None


_QUESTION_PARAMS: dict[str, Any] = {
    "elicitation/create": ElicitRequestParams,
    "sampling/createMessage": CreateMessageRequestParams,
}


def decode_question(method: str, params: JSONObject) -> Any:
    """Typed params for a handler; a malformed question is refused with -32602."""
    model = _QUESTION_PARAMS.get(method)
    if model is None:
        return params
    try:
        return msgspec.convert(params, model)
    except msgspec.ValidationError as exc:
        from mcpkit.protocol._errors import InvalidParams

        raise InvalidParams(f"Invalid params for {method}: {exc}") from None

"""The sampling tool loop's message rules (2025-11-25 ``client/sampling``), checked on both sides.

A sampling conversation that uses tools alternates: the assistant asks for tools (``tool_use``
blocks, each with an ``id``), the next message is the user's answers (``tool_result`` blocks, each
naming the ``toolUseId`` it answers). The spec makes that shape a MUST, and a model API fed
anything else fails in ways far from the cause, so both ends check it:

* a message holding a ``tool_result`` holds **only** tool results, and is a ``user`` message;
* each ``tool_result`` answers a ``tool_use`` of the message right before it, an ``assistant``
  message (ids match, each answered once);
* every ``tool_use`` of an assistant message is answered by the next message, before anything else.

:func:`sampling_messages_problem` says what is wrong (or ``None``); the server raises it to the
tool author before anything is sent, the client answers such a request with -32602.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["sampling_messages_problem"]


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    items = content if isinstance(content, list) else [content]
    return [block for block in items if isinstance(block, Mapping)]


def _ids(blocks: Sequence[Mapping[str, Any]], kind: str, field: str) -> list[Any]:
    return [block.get(field) for block in blocks if block.get("type") == kind]


def sampling_messages_problem(messages: Any) -> str | None:
    """What breaks the tool-loop rules in ``messages`` (a sampling request's list), or ``None``.

    Only the tool-loop rules are checked here; the shape of each block is the schema's business.
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        return None
    previous_uses: list[Any] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            return None
        where = f"sampling message {index}"
        blocks = _blocks(message)
        results = _ids(blocks, "tool_result", "toolUseId")
        if results:
            if len(results) != len(blocks):
                return f"{where} mixes tool results with other content (only tool results allowed)"
            if message.get("role") != "user":
                return f"{where} holds tool results, so its role must be 'user'"
            if not previous_uses:
                return (
                    f"{where} holds tool results, but the message before it is not an assistant "
                    "message with tool uses"
                )
            unknown = [i for i in results if i not in previous_uses]
            if unknown:
                return (
                    f"{where}: tool result(s) for {_names(unknown)} answer no tool use of the "
                    f"previous assistant message (its tool uses: {_names(previous_uses)})"
                )
            if len(set(map(repr, results))) != len(results):
                return f"{where} answers the same tool use more than once"
            missing = [i for i in previous_uses if i not in results]
            if missing:
                return f"{where} leaves tool use(s) {_names(missing)} without a tool result"
        elif previous_uses:
            return (
                f"{where} must be the tool results for {_names(previous_uses)} (the previous "
                "assistant message used tools)"
            )
        uses = _ids(blocks, "tool_use", "id")
        previous_uses = uses if message.get("role") == "assistant" else []
    if previous_uses:
        return (
            f"the last sampling message uses tool(s) {_names(previous_uses)}: their results must "
            "follow in a user message"
        )
    return None


def _names(ids: Sequence[Any]) -> str:
    return ", ".join(repr(i) for i in ids)

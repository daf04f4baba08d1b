"""An answer belongs to its question: what binds a ``Command(resume=...)`` to what was asked.

LangGraph replays a node's ``interrupt()`` answers *by position*: after a restart the call is
made again, and whatever the server asks first gets the answer given to the first question of
the previous run. If the server now asks something else (the price went from 10 to 12), that
answer — the user's consent — would be applied to a question the user never saw.

So every question gets an id (:func:`question_id`: a digest of what the user was shown — the
kind of question, its message, its schema or URL), and each interrupt's payload carries
``question_ids``: the ids of every question the call asked so far, one per interrupt, its own
last. The latest interrupt of a node is kept by the checkpointer with the node's task, so a run
after a restart reads it back (:func:`asked_before`) and replays an answer only where the new
question has the same id; any other question interrupts again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec
from langgraph.config import get_config

__all__ = ["QUESTION_IDS", "asked_before", "question_id"]

QUESTION_IDS = "question_ids"
"""The interrupt payload's key listing the ids of the questions asked so far (its own last)."""

_SHOWN = ("mode", "message", "requestedSchema", "url")
"""What the user sees of an elicitation: a change in any of them is another question."""

# LangGraph's own configurable keys (langgraph._internal._constants), read, never written.
_CHECKPOINTER = "__pregel_checkpointer"
_TASK_ID = "__pregel_task_id"
_INTERRUPT = "__interrupt__"


def question_id(method: str, params: Mapping[str, Any]) -> str:
    """A short stable digest of a question as the user sees it (its kind, message, schema)."""
    shown = {key: params.get(key) for key in _SHOWN if params.get(key) is not None}
    shown.setdefault("mode", "form")
    canonical = msgspec.json.encode([method, shown], order="sorted")
    return hashlib.sha256(canonical).hexdigest()[:16]


async def asked_before() -> list[str]:
    """The ``question_ids`` of the running node's last interrupt, as the checkpointer kept it
    (``[]`` when there is none, no checkpointer, or it cannot be read)."""
    try:
        config = get_config()
    except RuntimeError:
        return []
    configurable = config.get("configurable") or {}
    saver = configurable.get(_CHECKPOINTER)
    task = configurable.get(_TASK_ID)
    if saver is None or task is None:
        return []
    namespace = str(configurable.get("checkpoint_ns") or "")
    parent = namespace.rsplit("|", 1)[0] if "|" in namespace else ""
    target: dict[str, Any] = {
        "thread_id": configurable.get("thread_id"),
        "checkpoint_ns": parent,
    }
    checkpoint_id = (configurable.get("checkpoint_map") or {}).get(parent)
    if checkpoint_id is not None:
        target["checkpoint_id"] = checkpoint_id
    try:
        saved = await saver.aget_tuple({"configurable": target})
    except NotImplementedError:  # a sync-only checkpointer
        saved = saver.get_tuple({"configurable": target})
    if saved is None:
        return []
    found: list[str] = []
    for task_id, channel, value in saved.pending_writes or ():
        if task_id != task or channel != _INTERRUPT:
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            payload = getattr(item, "value", None)
            if isinstance(payload, Mapping) and isinstance(payload.get(QUESTION_IDS), list):
                found = [str(v) for v in payload[QUESTION_IDS]]
    return found

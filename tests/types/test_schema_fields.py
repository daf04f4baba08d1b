"""Every model's wire names match the properties of the same-named definition in the official
schemas (across all revisions), so a misspelt camelCase name cannot slip through, and nothing the
schemas define is left unmodelled."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import msgspec
import pytest

import mcpkit.types as t
from _schema_check import SPEC_DIR

SPEC = SPEC_DIR
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "ext-tasks")

DEFINITION_OF = {
    "ExtCreateTaskResult": ("ext-tasks", "CreateTaskResult"),
    # the JSON-RPC envelopes (mcpkit.types.Request is the whole message, id included)
    "Request": ("2025-11-25", "JSONRPCRequest"),
    "Notification": ("2025-11-25", "JSONRPCNotification"),
    "Response": ("2025-11-25", "JSONRPCResultResponse"),
    "ErrorResponse": ("2025-11-25", "JSONRPCErrorResponse"),
    "ErrorObject": ("2025-11-25", "Error"),
}
"""Models whose schema definition has another name."""

EXTRA_WIRE_NAMES: dict[str, set[str]] = {
    # One decodable Struct for both variants (JSON has no tag to choose by).
    "ResourceContents": {"text", "blob"},
    "TextResourceContents": {"blob"},
    "BlobResourceContents": {"text"},
    "ElicitRequestFormParams": {"url", "elicitationId"},
    "ElicitRequestURLParams": {"requestedSchema"},
    # Extension task states also serve as the ``tasks/get`` result and notification params.
    **{
        name: {"_meta", "resultType"}
        for name in (
            "WorkingTask",
            "InputRequiredTask",
            "CompletedTask",
            "FailedTask",
            "CancelledTask",
        )
    },
    # The Tasks extension's listen filter (TaskSubscriptionNotifications) shares the filter.
    "SubscriptionFilter": {"taskIds"},
}

UNMODELLED: dict[str, set[str]] = {
    # the envelopes write "jsonrpc": "2.0" themselves (message_to_dict, the codec)
    "Request": {"jsonrpc"},
    "Notification": {"jsonrpc"},
    "Response": {"jsonrpc"},
    "ErrorResponse": {"jsonrpc"},
    # Same names in the Tasks extension, modelled separately (ExtCreateTaskResult, DetailedTask).
    "Task": {"ttlMs", "pollIntervalMs"},
    "CreateTaskResult": {
        "taskId",
        "status",
        "statusMessage",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
        "resultType",
    },
    "GetTaskResult": {"ttlMs", "pollIntervalMs", "inputRequests", "result", "error", "resultType"},
    "CancelTaskResult": {"resultType"},
    "TaskStatusNotificationParams": {"ttlMs", "pollIntervalMs", "inputRequests", "result", "error"},
}


@cache
def _definitions(revision: str) -> dict[str, Any]:
    document = json.loads((SPEC / revision / "schema.json").read_text(encoding="utf-8"))
    defs: dict[str, Any] = document.get("$defs", document.get("definitions"))
    return defs


def _properties(schema: Any, revision: str) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    found = set(schema.get("properties", {}))
    if "$ref" in schema:
        found |= _properties(_definitions(revision)[schema["$ref"].rsplit("/", 1)[-1]], revision)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []):
            found |= _properties(sub, revision)
    return found


def _models_with_definitions() -> list[str]:
    names = []
    for name in t.__all__:
        model = getattr(t, name)
        if not (isinstance(model, type) and issubclass(model, msgspec.Struct)):
            continue
        revision, definition = DEFINITION_OF.get(name, (None, name))
        revisions = (revision,) if revision else REVISIONS
        if any(definition in _definitions(r) for r in revisions):
            names.append(name)
    return names


MODELS = _models_with_definitions()


def test_most_models_have_a_definition() -> None:
    assert len(MODELS) > 100


@pytest.mark.parametrize("name", MODELS)
def test_wire_names_match_the_schema(name: str) -> None:
    model = getattr(t, name)
    revision, definition = DEFINITION_OF.get(name, (None, name))
    revisions = (revision,) if revision else REVISIONS
    schema_names: set[str] = set()
    for rev in revisions:
        if definition in _definitions(rev):
            schema_names |= _properties(_definitions(rev)[definition], rev)
    config = model.__struct_config__
    wire = {field.encode_name for field in msgspec.structs.fields(model)}
    if config.tag_field is not None:
        wire.add(config.tag_field)
    assert wire - schema_names == EXTRA_WIRE_NAMES.get(name, set())
    assert schema_names - wire == UNMODELLED.get(name, set())

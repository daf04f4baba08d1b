"""Validate every message mcpkit sends during a test against the official MCP JSON Schema.

The autouse fixture :func:`schema_check` registers an outbound observer
(:func:`mcpkit.protocol._observe.add_outbound_observer`). Each message our code is about to send is
validated against ``tests/data/spec/<protocol_version>/schema.json``:

* the envelope definition (``JSONRPCRequest``, ``JSONRPCNotification``, ``JSONRPCResultResponse``
  — ``JSONRPCResponse`` before 2025-11-25 — and ``JSONRPCErrorResponse`` — ``JSONRPCError``
  before 2025-11-25);
* and the method's own definition: ``CallToolRequest`` for a ``tools/call`` request,
  ``CallToolResult`` for its response (``InputRequiredResult`` when ``resultType`` is
  ``"input_required"``; the Tasks extension's ``CreateTaskResult`` when it is ``"task"``;
  2025-11-25 ``CreateTaskResult`` for a task-augmented answer), ``ProgressNotification`` for a
  progress notification, and ``UnsupportedProtocolVersionError`` & co. for the MCP error codes that
  have one. Tasks-extension methods of 2026-07-28 use ``tests/data/spec/ext-tasks/schema.json``.

A method the revision does not have (``ping`` under 2026-07-28, ``elicitation/create`` under
2025-03-26) is itself a violation; a method mcpkit does not know at all (a custom one) is checked
against the envelope only. With ``protocol_version`` ``None`` (before a version is known) or an
unknown version, only the envelope is checked, against 2025-11-25.

Violations are collected, and the test fails at teardown with a readable list: the message, the
revision, the definition, the JSON path of the failing part and jsonschema's message.

Opting out — for a test that deliberately emits invalid messages:

* mark it ``@pytest.mark.no_schema_check`` (no observer is installed at all), or
* take the ``schema_check`` fixture, assert on ``schema_check.violations`` yourself and call
  ``schema_check.clear()`` before the test ends.

Validators are compiled once per (revision, definition) and cached for the whole session. Schema
``$ref``\\ s resolve only inside the local registry: nothing is ever fetched from the network.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import msgspec
import pytest
from jsonschema import exceptions as jsonschema_exceptions
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types import method_spec
from mcpkit.types._jsonrpc import Message, message_to_dict
from mcpkit.types._versions import ALL_VERSIONS

__all__ = [
    "ENVELOPE_FALLBACK_REVISION",
    "MARKER",
    "MESSAGE_DEFINITIONS",
    "RESULT_DEFINITIONS",
    "SPEC_DIR",
    "SchemaCheck",
    "Violation",
    "check_message",
    "configure",
    "definition_names",
    "format_violations",
    "schema_check",
    "unknown_properties",
]

SPEC_DIR: Final = Path(__file__).resolve().parent / "data" / "spec"
"""The official schema files, copied into the repository (see tests/data/spec/README.md)."""
EXT_TASKS: Final = "ext-tasks"
ENVELOPE_FALLBACK_REVISION: Final = "2025-11-25"
MARKER: Final = "no_schema_check"
MAX_SHOWN_MESSAGE_CHARS: Final = 400
"""How much of an offending message the failure report shows."""
MAX_ERRORS_PER_CHECK: Final = 5
"""At most this many errors are reported per (message, definition)."""

MESSAGE_DEFINITIONS: Final[Mapping[str, str]] = {
    # requests (the whole JSON-RPC message)
    "initialize": "InitializeRequest",
    "ping": "PingRequest",
    "server/discover": "DiscoverRequest",
    "tools/list": "ListToolsRequest",
    "tools/call": "CallToolRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "resources/read": "ReadResourceRequest",
    "resources/subscribe": "SubscribeRequest",
    "resources/unsubscribe": "UnsubscribeRequest",
    "prompts/list": "ListPromptsRequest",
    "prompts/get": "GetPromptRequest",
    "completion/complete": "CompleteRequest",
    "logging/setLevel": "SetLevelRequest",
    "subscriptions/listen": "SubscriptionsListenRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "elicitation/create": "ElicitRequest",
    "roots/list": "ListRootsRequest",
    "tasks/get": "GetTaskRequest",
    "tasks/result": "GetTaskPayloadRequest",
    "tasks/list": "ListTasksRequest",
    "tasks/cancel": "CancelTaskRequest",
    "tasks/update": "UpdateTaskRequest",
    # notifications
    "notifications/initialized": "InitializedNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/roots/list_changed": "RootsListChangedNotification",
    "notifications/elicitation/complete": "ElicitationCompleteNotification",
    "notifications/tasks/status": "TaskStatusNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/tasks": "TaskStatusNotification",
}
"""Method → the definition of the whole request or notification."""

RESULT_DEFINITIONS: Final[Mapping[str, str]] = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "logging/setLevel": "EmptyResult",
    "subscriptions/listen": "SubscriptionsListenResult",
    "sampling/createMessage": "CreateMessageResult",
    "elicitation/create": "ElicitResult",
    "roots/list": "ListRootsResult",
    "tasks/get": "GetTaskResult",
    "tasks/result": "GetTaskPayloadResult",
    "tasks/list": "ListTasksResult",
    "tasks/cancel": "CancelTaskResult",
    "tasks/update": "UpdateTaskResult",
}
"""Method → the definition of its (complete) result."""

_EXT_TASKS_METHODS: Final = frozenset(
    {"tasks/get", "tasks/update", "tasks/cancel", "notifications/tasks"}
)
"""In 2026-07-28 these belong to the Tasks extension, whose definitions live in ext-tasks."""

_ERROR_DEFINITIONS: Final[Mapping[int, str]] = {
    -32020: "HeaderMismatchError",
    -32021: "MissingRequiredClientCapabilityError",
    -32022: "UnsupportedProtocolVersionError",
    -32042: "URLElicitationRequiredError",
}
"""Error code → the definition of the whole error response, where the revision has one."""

_ENVELOPE_KEYS: Final = frozenset({"jsonrpc", "id"})

_ID_REQUIRED_IN_ERRORS: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18"})
"""Revisions whose error response requires ``id`` (see the "id": null case in check_message)."""

_TASK_AUGMENTABLE: Final = frozenset({"tools/call", "sampling/createMessage", "elicitation/create"})


@dataclass(frozen=True)
class Violation:
    message: str
    """The offending message as compact JSON."""
    revision: str
    definition: str
    path: str
    """JSON path of the failing part, from the message root (``$.params.name``)."""
    error: str

    def describe(self) -> str:
        shown = self.message
        if len(shown) > MAX_SHOWN_MESSAGE_CHARS:
            shown = shown[:MAX_SHOWN_MESSAGE_CHARS] + "…"
        return (
            f"revision {self.revision}, definition {self.definition}, at {self.path}: "
            f"{self.error}\n      message: {shown}"
        )


def format_violations(violations: list[Violation]) -> str:
    lines = [f"{len(violations)} MCP JSON Schema violation(s) in outbound messages:"]
    lines += [f"  {n}. {v.describe()}" for n, v in enumerate(violations, 1)]
    lines.append(
        f"(a test that sends invalid messages on purpose: @pytest.mark.{MARKER}, "
        "or assert on schema_check.violations and call schema_check.clear())"
    )
    return "\n".join(lines)


@cache
def _document(revision: str) -> dict[str, Any]:
    path = SPEC_DIR / revision / "schema.json"
    with path.open(encoding="utf-8") as file:
        document: dict[str, Any] = json.load(file)
    return document


def _uri(revision: str) -> str:
    document = _document(revision)
    explicit = document.get("$id")
    return explicit if isinstance(explicit, str) else f"urn:mcpkit:spec:{revision}"


def _definitions_key(revision: str) -> str:
    return "$defs" if "$defs" in _document(revision) else "definitions"


def definition_names(revision: str) -> frozenset[str]:
    return frozenset(_document(revision)[_definitions_key(revision)])


@cache
def _registry() -> Registry:
    resources = []
    for revision in (*ALL_VERSIONS, EXT_TASKS):
        resource = Resource.from_contents(_document(revision), default_specification=DRAFT202012)
        resources.append((_uri(revision), resource))
    registry: Registry = Registry().with_resources(resources)
    return registry


_validators: dict[tuple[str, str], Validator] = {}
_validators_lock = threading.Lock()


def _validator(revision: str, definition: str) -> Validator:
    key = (revision, definition)
    validator = _validators.get(key)
    if validator is None:
        document = _document(revision)
        cls = validator_for(document)
        ref = f"{_uri(revision)}#/{_definitions_key(revision)}/{definition}"
        validator = cls({"$ref": ref}, registry=_registry())
        with _validators_lock:
            _validators[key] = validator
    return validator


def _to_json(message: Message | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """Exactly what goes on the wire: encode (Structs inside params/results included), decode."""
    obj = message_to_dict(message) if isinstance(message, msgspec.Struct) else message
    raw = msgspec.json.encode(obj)
    decoded: dict[str, Any] = msgspec.json.decode(raw)
    return decoded, raw.decode("utf-8")


class _Checker:
    def __init__(self, wire: dict[str, Any], text: str) -> None:
        self.wire = wire
        self.text = text
        self.violations: list[Violation] = []

    def validate(self, revision: str, definition: str, instance: Any, prefix: str) -> None:
        if definition not in definition_names(revision):
            self.fail(revision, definition, prefix, "the revision has no such definition")
            return
        errors = _validator(revision, definition).iter_errors(instance)
        failed = False
        for count, top in enumerate(errors):
            failed = True
            if count == MAX_ERRORS_PER_CHECK:
                self.fail(revision, definition, prefix, "(more errors not shown)")
                break
            # Inside anyOf/oneOf, report the branch that came closest rather than "not valid
            # under any of the given schemas".
            error = jsonschema_exceptions.best_match([top]) or top
            self.fail(revision, definition, prefix + error.json_path[1:], error.message)
        if not failed:
            for path, key in unknown_properties(revision, definition, instance):
                if path == "$" and prefix == "$" and key in _ENVELOPE_KEYS:
                    continue  # a method definition before 2025-11-25 leaves these to the envelope
                self.fail(
                    revision,
                    definition,
                    prefix + path[1:],
                    f"{key!r} is not a field of this revision's schema (strict check)",
                )

    def fail(self, revision: str, definition: str, path: str, error: str) -> None:
        self.violations.append(Violation(self.text, revision, definition, path, error))


def _first_present(revision: str, *names: str) -> str:
    present = definition_names(revision)
    return next((name for name in names if name in present), names[-1])


def check_message(
    message: Message | Mapping[str, Any], protocol_version: str | None, method: str | None
) -> list[Violation]:
    """Validate one outbound message; see the module docstring for what is checked."""
    try:
        wire, text = _to_json(message)
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        return [Violation(repr(message), str(protocol_version), "-", "$", f"not JSON: {exc}")]
    checker = _Checker(wire, text)
    known = protocol_version in ALL_VERSIONS
    revision = protocol_version if known and protocol_version else ENVELOPE_FALLBACK_REVISION
    if "method" in wire:
        method = wire["method"] if isinstance(wire["method"], str) else None
        is_request = "id" in wire
        envelope = "JSONRPCRequest" if is_request else "JSONRPCNotification"
        checker.validate(revision, envelope, wire, "$")
        if known and method is not None:
            _check_method_message(checker, revision, method, is_request)
    elif "error" in wire:
        envelope = wire
        if "id" in wire and wire["id"] is None:
            # JSON-RPC 2.0 §5: an error answering a request whose id could not be read carries
            # "id": null. No MCP schema lets RequestId be null (2024-11-05..2025-06-18 even
            # require id), yet the spec defers to JSON-RPC here; accept exactly this case by
            # checking the rest of the message without the id.
            envelope = {key: value for key, value in wire.items() if key != "id"}
            if revision in _ID_REQUIRED_IN_ERRORS:
                envelope["id"] = 0
        checker.validate(
            revision,
            _first_present(revision, "JSONRPCErrorResponse", "JSONRPCError"),
            envelope,
            "$",
        )
        code = wire["error"].get("code") if isinstance(wire["error"], dict) else None
        specific = _ERROR_DEFINITIONS.get(code) if isinstance(code, int) else None
        if known and specific is not None and specific in definition_names(revision):
            checker.validate(revision, specific, envelope, "$")
    else:
        checker.validate(
            revision,
            _first_present(revision, "JSONRPCResultResponse", "JSONRPCResponse"),
            wire,
            "$",
        )
        result = wire.get("result")
        if known and method is not None and isinstance(result, dict):
            _check_result(checker, revision, method, result)
    return checker.violations


def _schema_for(revision: str, method: str) -> str:
    return EXT_TASKS if revision >= "2026-07-28" and method in _EXT_TASKS_METHODS else revision


def _check_method_message(checker: _Checker, revision: str, method: str, is_request: bool) -> None:
    definition = MESSAGE_DEFINITIONS.get(method)
    if definition is None:
        return  # a method mcpkit does not know (custom/experimental): envelope only
    spec = method_spec(method, revision)
    kind = "request" if is_request else "notification"
    if spec is None:
        checker.fail(revision, definition, "$.method", f"{method!r} is not a method of {revision}")
        return
    if spec.kind != kind:
        checker.fail(
            revision,
            definition,
            "$",
            f"{method!r} is a {spec.kind.replace('_', ' ')} in {revision}, not a JSON-RPC {kind}",
        )
        return
    checker.validate(_schema_for(revision, method), definition, checker.wire, "$")


def _check_result(checker: _Checker, revision: str, method: str, result: dict[str, Any]) -> None:
    definition = RESULT_DEFINITIONS.get(method)
    if definition is None:
        return
    if method_spec(method, revision) is None:
        checker.fail(revision, definition, "$", f"answers {method!r}, not a method of {revision}")
        return
    schema = _schema_for(revision, method)
    result_type = result.get("resultType")
    if revision >= "2026-07-28" and result_type == "input_required":
        schema, definition = revision, "InputRequiredResult"
    elif revision >= "2026-07-28" and result_type == "task":
        schema, definition = EXT_TASKS, "CreateTaskResult"
    elif (
        method in _TASK_AUGMENTABLE
        and "task" in result
        and "CreateTaskResult" in (definition_names(revision))
    ):
        definition = "CreateTaskResult"
    checker.validate(schema, definition, result, "$.result")


OPAQUE_PROPERTIES: Final = frozenset({"_meta", "inputSchema", "outputSchema", "requestedSchema"})
"""Never walked by the strict check: ``_meta`` maps are open by definition; the others hold JSON
Schema documents written by the user, which the MCP schema describes only loosely (the
2024-11-05 ``inputSchema`` lists just ``type``/``properties``/``required``, yet ``$defs`` or
``additionalProperties`` are legitimate JSON Schema there)."""


_EXTENSION_FIELDS: Final[Mapping[tuple[str, str], tuple[str, str]]] = {
    ("2026-07-28", "SubscriptionFilter"): (EXT_TASKS, "TaskSubscriptionNotifications"),
}
"""Core objects the Tasks extension adds fields to: a listen filter (and its acknowledgement)
may name task ids. The strict walk declares the extension's properties there too."""


def _extension_properties(revision: str, name: str) -> dict[str, Any]:
    source = _EXTENSION_FIELDS.get((revision, name))
    if source is None:
        return {}
    properties: dict[str, Any] = _document(source[0])["$defs"][source[1]]["properties"]
    return properties


def _resolve(revision: str, schema: Any) -> Any:
    document = _document(revision)
    key = _definitions_key(revision)
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref: str = schema["$ref"]
        prefix = f"#/{key}/"
        if not ref.startswith(prefix):
            return {}  # a reference we do not follow: treat as open
        name = ref[len(prefix) :]
        schema = document[key][name]
        extra = _extension_properties(revision, name)
        if extra:
            schema = {**schema, "properties": {**schema.get("properties", {}), **extra}}
    return schema


def _object_fields(revision: str, schema: Any) -> tuple[dict[str, Any], bool, Any]:
    """(declared properties, open?, schema of undeclared values) of an object schema, allOf
    arms merged."""
    schema = _resolve(revision, schema)
    if not isinstance(schema, dict):
        return {}, True, None
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    extra = schema.get("additionalProperties")
    open_ = extra is not None and extra is not False
    for arm in schema.get("allOf") or ():
        arm_properties, arm_open, arm_extra = _object_fields(revision, arm)
        properties.update(arm_properties)
        open_ = open_ or arm_open
        extra = extra if extra is not None else arm_extra
    if not properties and "allOf" not in schema:
        open_ = True  # an object with no declared properties is a free-form map
    return properties, open_, extra if isinstance(extra, dict) else None


def _candidates(revision: str, arms: list[Any], instance: Any) -> list[Any]:
    """The union arms ``instance`` can belong to: by JSON type, then by a ``type`` const tag."""
    resolved = []
    for arm in arms:
        target = _resolve(revision, arm)
        if isinstance(target, dict) and ("anyOf" in target or "oneOf" in target):
            resolved += _candidates(revision, target.get("anyOf") or target["oneOf"], instance)
        else:
            resolved.append(target)
    if isinstance(instance, list):
        return [arm for arm in resolved if isinstance(arm, dict) and arm.get("type") == "array"]
    objects = [
        arm
        for arm in resolved
        if isinstance(arm, dict) and (arm.get("type") == "object" or "properties" in arm)
    ]
    if isinstance(instance, dict) and "type" in instance:
        tagged = [
            arm
            for arm in objects
            if ((arm.get("properties") or {}).get("type") or {}).get("const") == instance["type"]
        ]
        if tagged:
            return tagged
    return objects


def _walk(revision: str, schema: Any, instance: Any, path: str) -> Iterator[tuple[str, str]]:
    schema = _resolve(revision, schema)
    if not isinstance(schema, dict):
        return
    arms = schema.get("anyOf") or schema.get("oneOf")
    if arms:
        candidates = _candidates(revision, arms, instance)
        if len(candidates) == 1:
            yield from _walk(revision, candidates[0], instance, path)
        elif candidates and isinstance(instance, dict):
            # several object shapes fit: a key is unknown only if no shape declares it
            fields = [_object_fields(revision, arm) for arm in candidates]
            if not any(open_ for _, open_, _ in fields):
                declared = set().union(*(properties for properties, _, _ in fields))
                for key in instance:
                    if key not in declared and key != "_meta":
                        yield path, key
        return
    if isinstance(instance, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(instance):
                yield from _walk(revision, items, item, f"{path}[{index}]")
        return
    if not isinstance(instance, dict) or not (
        schema.get("type") == "object" or "properties" in schema or "allOf" in schema
    ):
        return
    properties, open_, extra = _object_fields(revision, schema)
    for key, value in instance.items():
        if key in OPAQUE_PROPERTIES:
            continue
        if key in properties:
            yield from _walk(revision, properties[key], value, f"{path}.{key}")
        elif not open_:
            yield path, key
        elif extra is not None:
            yield from _walk(revision, extra, value, f"{path}.{key}")


def unknown_properties(revision: str, definition: str, instance: Any) -> list[tuple[str, str]]:
    """``(json_path, key)`` of every key in ``instance`` that ``definition`` does not declare.

    JSON Schema lets an object without ``additionalProperties: false`` carry anything, so the
    official schemas alone accept fields a revision never defined (a 2024-11-05 tool with
    ``title``). This walk closes every object that declares ``properties``, except ``_meta`` maps,
    the user's own JSON Schemas (:data:`OPAQUE_PROPERTIES`) and objects the schema itself leaves
    open (``additionalProperties`` present and not ``false``: ``arguments``,
    ``structuredContent``, ``experimental``).
    """
    schema = _document(revision)[_definitions_key(revision)][definition]
    return list(_walk(revision, schema, instance, "$"))


class SchemaCheck:
    """The outbound observer: collects the violations of every message it sees."""

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.messages_checked = 0
        self._lock = threading.Lock()

    def __call__(self, message: Message, protocol_version: str | None, method: str | None) -> None:
        # An observer must never break the code under test: every failure becomes a violation.
        try:
            found = check_message(message, protocol_version, method)
        except Exception as exc:  # pragma: no cover - a bug in this module, reported loudly
            found = [Violation(repr(message), str(protocol_version), "-", "$", repr(exc))]
        with self._lock:
            self.messages_checked += 1
            self.violations.extend(found)

    def clear(self) -> None:
        with self._lock:
            self.violations.clear()


def configure(config: pytest.Config) -> None:
    """Register the opt-out marker (call from ``pytest_configure``)."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}: do not validate this test's outbound messages against the MCP JSON Schema "
        "(for tests that send invalid messages on purpose)",
    )


@pytest.fixture(autouse=True)
def schema_check(request: pytest.FixtureRequest) -> Iterator[SchemaCheck]:
    """Validate every outbound message of the test; fail at teardown if any was invalid."""
    check = SchemaCheck()
    if request.node.get_closest_marker(MARKER) is not None:
        yield check
        return
    add_outbound_observer(check)
    try:
        yield check
    finally:
        remove_outbound_observer(check)
    if check.violations:
        pytest.fail(format_violations(check.violations), pytrace=False)

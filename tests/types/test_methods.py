"""The method table: membership per revision, directions, gates, flags, typed decoding."""

from __future__ import annotations

import msgspec
import pytest

import mcpkit.types as t
from mcpkit.types._versions import ALL_VERSIONS, LEGACY_VERSIONS


def test_lookup_by_version_and_era() -> None:
    assert t.method_spec("initialize", "2024-11-05") is not None
    assert t.method_spec("initialize", "2026-07-28") is None
    assert t.method_spec("server/discover", "modern") is not None
    assert t.method_spec("server/discover", "2025-11-25") is None
    assert t.method_spec("tools/call", "1999-01-01") is None
    assert t.methods_for("1999-01-01") == {}


@pytest.mark.parametrize(
    ("method", "first"),
    [
        ("elicitation/create", "2025-06-18"),
        ("tasks/get", "2025-11-25"),
        ("notifications/elicitation/complete", "2025-11-25"),
        ("completion/complete", "2024-11-05"),
    ],
)
def test_methods_appear_in_their_first_revision(method: str, first: str) -> None:
    for version in LEGACY_VERSIONS:
        assert (t.method_spec(method, version) is not None) is (version >= first), version


def test_removed_in_2026() -> None:
    for method in (
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "notifications/roots/list_changed",
        "tasks/result",
        "tasks/list",
    ):
        assert t.method_spec(method, "2026-07-28") is None, method


def test_mrtr_and_cacheable_flags() -> None:
    modern = t.methods_for("2026-07-28")
    assert {m for m, s in modern.items() if s.mrtr} == {
        "tools/call",
        "resources/read",
        "prompts/get",
    }
    assert {m for m, s in modern.items() if s.cacheable} == {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
    assert not any(s.mrtr or s.cacheable for s in t.methods_for("legacy").values())
    assert {m for m, s in modern.items() if s.paginated} == {
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    }


def test_directions() -> None:
    sampling_legacy = t.method_spec("sampling/createMessage", "2025-11-25")
    sampling_modern = t.method_spec("sampling/createMessage", "2026-07-28")
    assert sampling_legacy is not None and sampling_modern is not None
    assert (sampling_legacy.kind, sampling_legacy.sender) == ("request", "server")
    assert (sampling_modern.kind, sampling_modern.sender) == ("input_request", "server")
    ping = t.method_spec("ping", "legacy")
    assert ping is not None and ping.sender == "both"


def test_gates() -> None:
    subscribe = t.method_spec("resources/subscribe", "legacy")
    assert subscribe is not None and subscribe.gate == t.Gate("server", ("resources", "subscribe"))
    complete = t.method_spec("completion/complete", "legacy")
    assert complete is not None and complete.gate is not None
    assert not complete.gate.applies_to("2024-11-05")  # no `completions` capability back then
    assert complete.gate.applies_to("2025-03-26")
    task_get = t.method_spec("tasks/get", "modern")
    assert task_get is not None and task_get.gate is not None
    assert task_get.gate.path == ("extensions", t.TASKS_EXTENSION_ID)


def test_every_spec_has_models() -> None:
    for version in ALL_VERSIONS:
        for spec in t.methods_for(version).values():
            assert spec.params is not None, spec.method
            assert (spec.result is None) is (spec.kind == "notification"), spec.method


def test_decode_params_and_errors() -> None:
    spec = t.method_spec("tools/call", "2026-07-28")
    assert spec is not None
    params = t.decode_params(
        spec,
        {
            "name": "echo",
            "arguments": {"a": 1},
            "requestState": "s",
            "inputResponses": {"k": {"action": "cancel"}},
        },
    )
    assert isinstance(params, t.CallToolRequestParams) and params.request_state == "s"
    with pytest.raises(msgspec.ValidationError, match="name"):
        t.decode_params(spec, None)
    ping = t.method_spec("ping", "2025-11-25")
    assert ping is not None and isinstance(t.decode_params(ping, None), t.RequestParams)


def test_decode_result_honours_result_type() -> None:
    modern = t.method_spec("tools/call", "2026-07-28")
    legacy = t.method_spec("tools/call", "2025-11-25")
    assert modern is not None and legacy is not None
    assert isinstance(
        t.decode_result(modern, {"resultType": "complete", "content": []}), t.CallToolResult
    )
    assert isinstance(t.decode_result(modern, {"content": []}), t.CallToolResult)
    assert isinstance(
        t.decode_result(modern, {"resultType": "input_required"}), t.InputRequiredResult
    )
    task = {
        "taskId": "t",
        "status": "working",
        "createdAt": "c",
        "lastUpdatedAt": "c",
        "ttlMs": None,
    }
    assert isinstance(t.decode_result(modern, task | {"resultType": "task"}), t.ExtCreateTaskResult)
    legacy_task = {
        "task": {
            "taskId": "t",
            "status": "working",
            "createdAt": "c",
            "lastUpdatedAt": "c",
            "ttl": 1000,
        }
    }
    assert isinstance(t.decode_result(legacy, legacy_task), t.CreateTaskResult)
    tasks_get = t.method_spec("tasks/get", "2026-07-28")
    assert tasks_get is not None
    assert isinstance(t.decode_result(tasks_get, task | {"resultType": "complete"}), t.WorkingTask)


def test_decode_input_response() -> None:
    roots = t.decode_input_response("roots/list", {"roots": [{"uri": "file:///a"}]})
    assert isinstance(roots, t.ListRootsResult)
    with pytest.raises(KeyError):
        t.decode_input_response("tools/call", {})

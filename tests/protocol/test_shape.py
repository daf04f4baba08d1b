"""mcpkit.protocol._shape: what each revision receives, and that the tables match the schemas."""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.protocol._shape import (
    convert_content,
    prepare_outbound,
    request_unsupported,
    shape_for,
    shape_result,
)
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Notification, Request, Response
from mcpkit.types._versions import ALL_VERSIONS

ROOT = Path(__file__).resolve().parents[2]
ICON = {"src": "https://example.com/i.png"}
TOOL: dict[str, Any] = {
    "name": "weather",
    "title": "Weather",
    "description": "forecast",
    "icons": [ICON],
    "inputSchema": {"type": "object", "$defs": {"x": {}}, "additionalProperties": False},
    "outputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True, "title": "Weather"},
    "_meta": {"example.com/k": 1},
}


def tool_in(revision: str) -> dict[str, Any]:
    result = shape_result(revision, "tools/list", {"tools": [TOOL]})
    tool: dict[str, Any] = result["tools"][0]
    return tool


def test_a_tool_has_only_the_fields_of_each_revision() -> None:
    assert set(tool_in("2024-11-05")) == {"name", "description", "inputSchema"}
    assert set(tool_in("2025-03-26")) == {"name", "description", "inputSchema", "annotations"}
    assert set(tool_in("2025-06-18")) == set(TOOL) - {"icons"}
    assert set(tool_in("2025-11-25")) == set(TOOL)
    assert set(tool_in("2026-07-28")) == set(TOOL)


def test_a_users_json_schema_is_never_trimmed() -> None:
    assert tool_in("2024-11-05")["inputSchema"] == TOOL["inputSchema"]


def test_shaping_copies_what_it_changes_and_never_mutates_the_input() -> None:
    before = copy.deepcopy(TOOL)
    listing = {"tools": [TOOL]}
    shaped = shape_result("2024-11-05", "tools/list", listing)
    assert shaped is not listing and before == TOOL
    assert shape_result("2025-11-25", "tools/list", listing) is listing  # nothing to change


def test_an_unchanged_message_is_the_same_object() -> None:
    response = Response(1, {"content": [{"type": "text", "text": "x"}], "isError": False})
    assert shape_for("2024-11-05", response, "tools/call") is response
    assert shape_for(None, response, "tools/call") is response  # before negotiation
    assert shape_for("2099-01-01", response, "tools/call") is response  # unknown revision
    assert shape_for("2024-11-05", response, None) is response  # unknown request


def test_the_newest_revisions_are_shaped_too() -> None:
    """mcpkit's structs span every revision, so even a 2025-11-25 or 2026-07-28 peer could be
    sent a field its schema lacks: 2025-11-25 has no ``capabilities.extensions`` (a 2026-07-28
    field), 2026-07-28 no ``execution`` on a tool (a 2025-11-25 core-tasks field)."""
    odd = {"content": [{"type": "text", "text": "x", "vendor": 1}]}
    for revision in ("2025-06-18", "2025-11-25", "2026-07-28"):
        shaped = shape_for(revision, Response(1, odd), "tools/call")
        assert isinstance(shaped, Response)
        assert shaped.result["content"][0] == {"type": "text", "text": "x"}
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}, "extensions": {"com.example/x": {}}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    answer = shape_for("2025-11-25", Response(0, hello), "initialize")
    assert isinstance(answer, Response) and answer.result["capabilities"] == {"tools": {}}
    modern_hello = {**hello, "protocolVersion": "2026-07-28"}
    kept = shape_result("2026-07-28", "server/discover", modern_hello)
    assert "extensions" in kept["capabilities"]  # a 2026-07-28 field stays for 2026-07-28
    task_tool = {"name": "t", "inputSchema": {"type": "object"}, "execution": {}}
    assert "execution" in tool_in_listing("2025-11-25", task_tool)
    assert "execution" not in tool_in_listing("2026-07-28", task_tool)


def tool_in_listing(revision: str, tool: dict[str, Any]) -> dict[str, Any]:
    shaped: dict[str, Any] = shape_result(revision, "tools/list", {"tools": [tool]})["tools"][0]
    return shaped


def test_an_initialize_request_is_shaped_for_the_revision_it_offers() -> None:
    """Sent before anything is negotiated, yet it must be valid in the revision it names."""
    from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer

    seen: list[tuple[str | None, str | None]] = []

    def observer(message: Any, version: str | None, method: str | None) -> None:
        seen.append((version, method))

    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {}, "extensions": {"com.example/x": {}}},
        "clientInfo": {"name": "c", "version": "1"},
    }
    add_outbound_observer(observer)
    try:
        sent = prepare_outbound(Request(0, "initialize", params), None, "initialize")
    finally:
        remove_outbound_observer(observer)
    assert isinstance(sent, Request) and sent.params is not None
    assert sent.params["capabilities"] == {"roots": {}}
    assert seen == [("2025-11-25", "initialize")]


def test_initialize_capabilities_per_revision() -> None:
    result = {
        "protocolVersion": "2024-11-05",
        "capabilities": {"tools": {"listChanged": True}, "completions": {}, "logging": {}},
        "serverInfo": {"name": "s", "version": "1", "title": "S", "websiteUrl": "https://x"},
    }
    old = shape_result("2024-11-05", "initialize", result)
    assert old["capabilities"] == {"tools": {"listChanged": True}, "logging": {}}
    assert old["serverInfo"] == {"name": "s", "version": "1"}
    assert "completions" in shape_result("2025-03-26", "initialize", result)["capabilities"]
    info = shape_result("2025-06-18", "initialize", result)["serverInfo"]
    assert info == {"name": "s", "version": "1", "title": "S"}


def test_structured_content_and_content_conversion() -> None:
    result = {
        "content": [
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "title": "A file"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav", "_meta": {"k": 1}},
        ],
        "structuredContent": {"n": 1},
    }
    old = shape_result("2024-11-05", "tools/call", result)
    assert old == {
        "content": [
            {"type": "text", "text": "A file: file:///a.txt"},
            {
                "type": "text",
                "text": "[audio (audio/wav) omitted: protocol revision 2024-11-05 cannot carry "
                "audio]",
            },
        ]
    }
    mid = shape_result("2025-03-26", "tools/call", result)
    assert [b["type"] for b in mid["content"]] == ["text", "audio"]
    assert "_meta" not in mid["content"][1]  # content _meta arrived in 2025-06-18
    new = shape_result("2025-06-18", "tools/call", result)
    assert new == result


TEXT = {"type": "text", "text": "hi"}
CALL_RESULTS: list[dict[str, Any]] = [
    {"content": [TEXT]},
    {"content": [TEXT, {"type": "text", "text": ""}], "isError": True},
    {"content": []},
    {"content": [TEXT], "structuredContent": {"a": 1}},
    {"content": [TEXT], "_meta": {"k": 1}, "resultType": "complete"},
    {"content": [{"type": "text", "text": "hi", "annotations": {"priority": 1}}]},
    {"content": [{"type": "text", "text": "x", "annotations": {"lastModified": "t"}}]},
    {"content": [{"type": "text", "text": "x", "_meta": {}}]},
    {"content": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]},
    {"content": [{"type": "resource_link", "uri": "file:///a", "name": "a"}]},
    {"content": [{"type": "text", "data": "x"}]},
    {"content": [TEXT, "not a block"]},
    {"content": "not a list"},
    {"content": [TEXT], "extra": 1},
    {"content": [TEXT], "task": {"taskId": "t"}},
    {"content": [TEXT], "resultType": "input_required", "inputRequests": {}},
    {"isError": False},
]


@pytest.mark.parametrize("revision", ALL_VERSIONS)
def test_the_plain_tool_result_shortcut_agrees_with_the_full_walk(revision: str) -> None:
    """A plain ``tools/call`` result skips the walk (shape._plain_call_result): whatever the
    shortcut passes, the full walk returns unchanged too, and what it does not pass is walked."""
    from mcpkit.protocol._shape import _plain_call_result, _revision

    compiled = _revision(revision)
    assert compiled is not None and compiled.plain_call_keys is not None
    walk = compiled.results["tools/call"]
    passed = 0
    for result in CALL_RESULTS:
        before = copy.deepcopy(result)
        expected = walk(copy.deepcopy(result))
        shaped = shape_result(revision, "tools/call", result)
        assert result == before
        if "resultType" not in result and "task" not in result:
            assert shaped == expected
        if _plain_call_result(result, compiled.plain_call_keys):
            passed += 1
            assert walk(result) is result
            assert shaped is result
    assert passed >= 3


def test_content_conversion_rules() -> None:
    link = {"type": "resource_link", "uri": "x://1", "name": "x://1", "description": "one"}
    assert convert_content(link, "2025-03-26") == {"type": "text", "text": "x://1 (one)"}
    annotated = {"type": "audio", "mimeType": "audio/ogg", "annotations": {"priority": 1}}
    assert convert_content(annotated, "2024-11-05")["annotations"] == {"priority": 1}
    other = {"type": "tool_use", "id": "1", "name": "t", "input": {}}
    assert convert_content(other, "2024-11-05") is other


def test_prompt_messages_and_sampling_content_are_converted_too() -> None:
    prompt = {
        "messages": [
            {"role": "user", "content": {"type": "resource_link", "uri": "u:/", "name": "n"}}
        ]
    }
    shaped = shape_result("2025-03-26", "prompts/get", prompt)
    assert shaped["messages"][0]["content"] == {"type": "text", "text": "n: u:/"}
    request = Request(
        7,
        "sampling/createMessage",
        {
            "messages": [
                {"role": "user", "content": {"type": "audio", "data": "", "mimeType": "audio/wav"}}
            ],
            "maxTokens": 5,
        },
    )
    sent = shape_for("2024-11-05", request, "sampling/createMessage")
    assert isinstance(sent, Request) and sent.id == 7
    assert sent.params is not None
    assert sent.params["messages"][0]["content"]["type"] == "text"


def test_request_and_notification_params_are_shaped() -> None:
    init = Request(
        1,
        "initialize",
        {
            "protocolVersion": "2025-03-26",
            "capabilities": {"elicitation": {}, "sampling": {}, "roots": {"listChanged": True}},
            "clientInfo": {"name": "c", "version": "1", "title": "C"},
        },
    )
    sent = shape_for("2025-03-26", init, "initialize")
    assert isinstance(sent, Request) and sent.params is not None
    assert sent.params["capabilities"] == {"sampling": {}, "roots": {"listChanged": True}}
    assert sent.params["clientInfo"] == {"name": "c", "version": "1"}
    progress = Notification(
        "notifications/progress", {"progressToken": "t", "progress": 1, "message": "half"}
    )
    old = shape_for("2024-11-05", progress, "notifications/progress")
    assert isinstance(old, Notification) and old.params == {"progressToken": "t", "progress": 1}
    assert shape_for("2025-03-26", progress, "notifications/progress") is progress


def test_the_progress_token_survives_in_every_revision() -> None:
    call = Request(1, "tools/call", {"name": "t", "_meta": {"progressToken": 5}})
    for revision in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        assert shape_for(revision, call, "tools/call") is call


def test_error_responses_and_task_answers_are_left_alone() -> None:
    error = ErrorResponse(None, ErrorObject(-32700, "Parse error", {"any": "thing"}))
    assert shape_for("2024-11-05", error, None) is error
    task = {
        "task": {
            "taskId": "t1",
            "status": "working",
            "createdAt": "2025-01-01T00:00:00Z",
            "lastUpdatedAt": "2025-01-01T00:00:00Z",
            "ttl": None,
        }
    }
    assert shape_result("2025-11-25", "tools/call", task) is task
    ext_task = {"resultType": "task", "taskId": "t1", "status": "working"}
    assert shape_result("2026-07-28", "tools/call", ext_task) is ext_task


def test_prepare_outbound_shows_observers_the_shaped_message() -> None:
    from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer

    seen: list[Any] = []

    def observer(message: Any, version: str | None, method: str | None) -> None:
        seen.append((message, version, method))

    add_outbound_observer(observer)
    try:
        response = Response(3, {"tools": [TOOL]})
        sent = prepare_outbound(response, "2024-11-05", "tools/list")
    finally:
        remove_outbound_observer(observer)
    assert isinstance(sent, Response) and "title" not in sent.result["tools"][0]
    assert seen == [(sent, "2024-11-05", "tools/list")]


@pytest.mark.parametrize(
    ("revision", "method", "params", "refused"),
    [
        ("2025-03-26", "elicitation/create", {"message": "m"}, "2025-06-18"),
        ("2025-06-18", "elicitation/create", {"message": "m"}, None),
        ("2025-06-18", "elicitation/create", {"mode": "url", "url": "https://x"}, "2025-11-25"),
        ("2025-11-25", "elicitation/create", {"mode": "url", "url": "https://x"}, None),
        ("2025-06-18", "sampling/createMessage", {"tools": []}, "2025-11-25"),
        ("2025-06-18", "sampling/createMessage", {"toolChoice": {"mode": "auto"}}, "2025-11-25"),
        ("2025-06-18", "sampling/createMessage", {"maxTokens": 1}, None),
        ("2025-11-25", "sampling/createMessage", {"tools": []}, None),
        ("2026-07-28", "elicitation/create", {"mode": "url"}, None),
        (None, "elicitation/create", {}, None),
    ],
)
def test_requests_a_revision_cannot_carry(
    revision: str | None, method: str, params: dict[str, Any], refused: str | None
) -> None:
    reason = request_unsupported(revision, method, params)
    if refused is None:
        assert reason is None
    else:
        assert reason is not None and refused in reason and str(revision) in reason


def test_the_committed_tables_match_the_schemas() -> None:
    """scripts/gen_shape_tables.py regenerates the table; it must equal the committed file."""
    spec = importlib.util.spec_from_file_location(
        "gen_shape_tables", ROOT / "scripts" / "gen_shape_tables.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_shape_tables"] = module
    try:
        spec.loader.exec_module(module)
        expected = module.build()
    finally:
        del sys.modules["gen_shape_tables"]
    committed = (ROOT / "src" / "mcpkit" / "protocol" / "_shape_tables.py").read_text("utf-8")
    assert committed == expected, "run scripts/gen_shape_tables.py"


def test_a_revision_compiles_only_the_shapers_it_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first answer of a session (``initialize``) compiles one shaper, not the revision's
    whole table (~1.2 M instructions of a server's start); the rest come on first use."""
    from mcpkit.protocol import _shape

    monkeypatch.setattr(_shape, "_compiled", {})
    result = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": ICON}
    shape_result("2025-06-18", "initialize", result)
    compiled = _shape._compiled["2025-06-18"]
    assert list(compiled.results) == ["initialize"] and compiled.params == {}
    assert compiled.special == {}
    assert "icons" not in tool_in("2025-06-18")  # (icons came in 2025-11-25)
    assert sorted(compiled.results) == ["initialize", "tools/list"]

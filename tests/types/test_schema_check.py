"""The schema-validation fixture itself: valid messages pass, invalid ones are reported with the
revision, definition and path, and the autouse fixture fails a test that emits one."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import mcpkit.types as t
from _schema_check import (
    MESSAGE_DEFINITIONS,
    RESULT_DEFINITIONS,
    SchemaCheck,
    check_message,
    definition_names,
)
from mcpkit._runtime.wire_log import WIRE_LOG_ENV
from mcpkit.protocol._observe import notify_outbound
from mcpkit.types import meta
from mcpkit.types._jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Notification,
    Request,
    Response,
    message_to_dict,
)
from mcpkit.types._versions import ALL_VERSIONS

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
SUBPROCESS_TIMEOUT_S = 120.0
TESTS_DIR = Path(__file__).resolve().parents[1]


def modern_meta() -> dict[str, Any]:
    return {
        meta.PROTOCOL_VERSION: MODERN,
        meta.CLIENT_CAPABILITIES: {},
        meta.CLIENT_INFO: {"name": "t", "version": "1"},
    }


def call_tool_result(**extra: Any) -> dict[str, Any]:
    return t.to_wire(
        t.CallToolResult(content=[t.TextContent(text="hi")], result_type="complete", **extra)
    )


# --- valid messages -------------------------------------------------------------------------


def test_valid_modern_request_passes() -> None:
    params = t.CallToolRequestParams(name="echo", arguments={"x": 1}, meta=modern_meta())
    request = Request(id=1, method="tools/call", params=t.to_wire(params))
    assert check_message(request, MODERN, "tools/call") == []


def test_valid_results_pass_in_both_eras() -> None:
    assert check_message(Response(id=1, result=call_tool_result()), MODERN, "tools/call") == []
    legacy = t.to_wire(t.CallToolResult(content=[t.TextContent(text="hi")]))
    assert check_message(Response(id=1, result=legacy), LEGACY, "tools/call") == []


def test_structs_inside_params_are_encoded_before_validation() -> None:
    result = t.InitializeResult(
        protocol_version="2024-11-05",
        capabilities=t.ServerCapabilities(tools=t.ToolsCapability()),
        server_info=t.Implementation(name="s", version="1"),
    )
    response = Response(id=7, result=result)  # type: ignore[arg-type]  # a Struct, not a dict
    assert check_message(response, "2024-11-05", "initialize") == []


def test_input_required_result_is_checked_as_such() -> None:
    mrtr = t.InputRequiredResult(
        input_requests={
            "who": t.ElicitRequest(
                params=t.ElicitRequestFormParams(
                    message="Name?",
                    requested_schema=t.ElicitRequestedSchema(properties={"name": t.StringSchema()}),
                )
            )
        },
        request_state="opaque",
    )
    response = Response(id=1, result=t.to_wire(mrtr))
    assert check_message(response, MODERN, "tools/call") == []
    broken = t.to_wire(mrtr)
    broken["inputRequests"]["who"]["params"]["requestedSchema"]["properties"]["name"] = {
        "type": "object"
    }
    [violation] = check_message(Response(id=1, result=broken), MODERN, "tools/call")
    assert violation.definition == "InputRequiredResult"
    assert violation.path.startswith("$.result.inputRequests")


def test_tasks_extension_result_uses_the_extension_schema() -> None:
    task = t.ExtCreateTaskResult(
        task_id="t1",
        status="working",
        created_at="2026-01-01T00:00:00Z",
        last_updated_at="2026-01-01T00:00:00Z",
        ttl_ms=None,
    )
    assert check_message(Response(id=1, result=t.to_wire(task)), MODERN, "tools/call") == []
    detailed = t.CompletedTask(
        task_id="t1",
        created_at="x",
        last_updated_at="x",
        ttl_ms=60_000,
        result=call_tool_result(),
        result_type="complete",
    )
    assert check_message(Response(id=2, result=t.to_wire(detailed)), MODERN, "tasks/get") == []


def test_unknown_methods_get_envelope_only() -> None:
    request = Request(id=1, method="x-vendor/thing", params={"anything": [1, 2]})
    assert check_message(request, MODERN, "x-vendor/thing") == []


# --- invalid messages -----------------------------------------------------------------------


def test_missing_required_param_is_reported_with_path() -> None:
    request = Request(id=1, method="tools/call", params={"_meta": modern_meta()})
    [violation] = check_message(request, MODERN, "tools/call")
    assert violation.revision == MODERN
    assert violation.definition == "CallToolRequest"
    assert violation.path == "$.params"
    assert "'name' is a required property" in violation.error
    assert '"method":"tools/call"' in violation.message


def test_modern_request_without_meta_is_reported() -> None:
    request = Request(id=1, method="tools/list", params={})
    [violation] = check_message(request, MODERN, "tools/list")
    assert violation.definition == "ListToolsRequest"
    assert "_meta" in violation.error


def test_bad_result_is_reported_under_result_path() -> None:
    result = call_tool_result()
    result["content"][0]["text"] = 5
    [violation] = check_message(Response(id=1, result=result), MODERN, "tools/call")
    assert violation.definition == "CallToolResult"
    assert violation.path.startswith("$.result.content[0]")


def test_modern_result_without_result_type_is_reported() -> None:
    result = t.to_wire(t.ListToolsResult(tools=[]))
    violations = check_message(Response(id=1, result=result), MODERN, "tools/list")
    assert any("resultType" in v.error for v in violations)
    # ... but the same result is fine in a legacy session.
    assert check_message(Response(id=1, result=result), LEGACY, "tools/list") == []


def test_envelope_violation_is_reported() -> None:
    # an error whose id is missing: 2024-11-05 requires one
    error = {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}
    [violation] = check_message(error, "2024-11-05", None)
    assert violation.revision == "2024-11-05"
    assert "'id' is a required property" in violation.error


@pytest.mark.parametrize("revision", [None, *ALL_VERSIONS])
def test_an_error_answering_an_unreadable_id_carries_id_null_in_every_revision(
    revision: str | None,
) -> None:
    error = ErrorResponse(id=None, error=ErrorObject(code=-32700, message="Parse error"))
    assert message_to_dict(error)["id"] is None
    assert check_message(error, revision, None) == []
    # only that case: a null id elsewhere is still a violation
    request = {"jsonrpc": "2.0", "id": None, "method": "ping"}
    assert check_message(request, revision, "ping") != []


def test_the_strict_check_reports_fields_a_revision_does_not_define() -> None:
    tool = {"name": "t", "title": "T", "inputSchema": {"type": "object", "$defs": {}}}
    result = {"tools": [tool]}
    [violation] = check_message(Response(id=1, result=result), "2024-11-05", "tools/list")
    assert violation.path == "$.result.tools[0]" and "'title'" in violation.error
    # the same tool is fine where the revision defines title; inputSchema is never walked
    assert check_message(Response(id=1, result=result), "2025-06-18", "tools/list") == []
    # open objects stay open: arguments, structuredContent, _meta
    call = {"content": [], "structuredContent": {"anything": 1}, "_meta": {"x": 1}}
    assert check_message(Response(id=1, result=call), "2025-06-18", "tools/call") == []
    nested = {"content": [{"type": "text", "text": "x", "extra": 1}]}
    [violation] = check_message(Response(id=1, result=nested), "2025-06-18", "tools/call")
    assert violation.path == "$.result.content[0]" and "'extra'" in violation.error


def test_mcp_error_codes_are_checked_against_their_definition() -> None:
    error = ErrorResponse(
        id=1, error=ErrorObject(code=-32022, message="Unsupported protocol version")
    )
    [violation] = check_message(error, MODERN, "tools/call")
    assert violation.definition == "UnsupportedProtocolVersionError"
    good = ErrorResponse(
        id=1,
        error=ErrorObject(
            code=-32022,
            message="Unsupported protocol version",
            data=t.to_wire(t.UnsupportedProtocolVersionData(supported=[MODERN], requested="x")),
        ),
    )
    assert check_message(good, MODERN, "tools/call") == []


def test_method_absent_from_the_revision_is_reported() -> None:
    ping = Request(id=1, method="ping")
    [violation] = check_message(ping, MODERN, "ping")
    assert "not a method of 2026-07-28" in violation.error
    assert check_message(ping, LEGACY, "ping") == []
    elicit = Request(
        id=2,
        method="elicitation/create",
        params={"message": "m", "requestedSchema": {"type": "object", "properties": {}}},
    )
    assert check_message(elicit, "2025-06-18", "elicitation/create") == []
    [violation] = check_message(elicit, "2025-03-26", "elicitation/create")
    assert "not a method of 2025-03-26" in violation.error


def test_modern_server_must_not_send_input_requests_as_json_rpc_requests() -> None:
    request = Request(id=1, method="roots/list")
    [violation] = check_message(request, MODERN, "roots/list")
    assert "input request" in violation.error


def test_draft07_revisions_are_validated_too() -> None:
    progress = Notification(
        method="notifications/progress", params={"progressToken": 1, "progress": "half"}
    )
    [violation] = check_message(progress, "2024-11-05", "notifications/progress")
    assert violation.definition == "ProgressNotification"
    assert violation.path == "$.params.progress"


def test_version_none_checks_the_envelope_only() -> None:
    request = Request(id=1, method="tools/call", params={})
    assert check_message(request, None, "tools/call") == []


# --- the tables agree with the schemas ------------------------------------------------------


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_every_method_of_the_table_has_definitions_in_its_schema(version: str) -> None:
    names = definition_names(version)
    ext_names = definition_names("ext-tasks")
    for method, spec in t.methods_for(version).items():
        in_ext = version == MODERN and method in (
            "tasks/get",
            "tasks/update",
            "tasks/cancel",
            "notifications/tasks",
        )
        available = ext_names if in_ext else names
        assert MESSAGE_DEFINITIONS[method] in available, (version, method)
        if spec.kind != "notification":
            assert RESULT_DEFINITIONS[method] in available, (version, method)


# --- the fixture ----------------------------------------------------------------------------


def test_fixture_collects_violations(schema_check: SchemaCheck) -> None:
    before = schema_check.messages_checked
    notify_outbound(Request(id=1, method="tools/call", params={}), MODERN, "tools/call")
    assert schema_check.messages_checked == before + 1
    assert {v.definition for v in schema_check.violations} == {"CallToolRequest"}
    assert len(schema_check.violations) == 2  # no _meta, no name
    schema_check.clear()  # this test emitted an invalid message on purpose


@pytest.mark.no_schema_check
def test_marker_opts_out(schema_check: SchemaCheck) -> None:
    notify_outbound(Request(id=1, method="tools/call", params={}), MODERN, "tools/call")
    assert schema_check.violations == []
    assert schema_check.messages_checked == 0


def test_fixture_fails_the_test_at_teardown(tmp_path: Path) -> None:
    """Run a real pytest session whose test emits an invalid message."""
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(TESTS_DIR)!r})
            import _schema_check
            from _schema_check import schema_check  # noqa: F401

            def pytest_configure(config):
                _schema_check.configure(config)
            """
        )
    )
    (tmp_path / "test_inner.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from mcpkit.protocol._observe import notify_outbound
            from mcpkit.types._jsonrpc import Request

            def test_emits_invalid():
                notify_outbound(
                    Request(id=1, method="tools/call", params={}), "2026-07-28", "tools/call"
                )

            @pytest.mark.no_schema_check
            def test_opted_out():
                notify_outbound(
                    Request(id=1, method="tools/call", params={}), "2026-07-28", "tools/call"
                )

            def test_valid():
                notify_outbound(Request(id=1, method="ping"), "2025-11-25", "ping")
            """
        )
    )
    # the inner run's deliberate violations must not land in this session's subprocess wire log
    env = {k: v for k, v in os.environ.items() if k != WIRE_LOG_ENV}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the inner run needs no plugin: 3 s less
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "3 passed, 1 error" in out, out
    assert "ERROR at teardown of test_emits_invalid" in out, out
    assert "2 MCP JSON Schema violation(s)" in out, out
    assert (
        "revision 2026-07-28, definition CallToolRequest, at $.params: '_meta' is a required" in out
    ), out
    assert (
        "revision 2026-07-28, definition CallToolRequest, at $.params: 'name' is a required" in out
    ), out

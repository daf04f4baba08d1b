"""Dual-era routing of Streamable HTTP requests, media checks, statuses and session ids."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._errors import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    UsageError,
)
from mcpkit.protocol._http_headers import compile_header_params, request_headers
from mcpkit.protocol._http_routing import (
    MAX_SESSION_ID_LENGTH,
    Route,
    RouteKind,
    check_media,
    is_valid_session_id,
    new_session_id,
    route_request,
    session_version_error,
    status_for_error,
)
from mcpkit.types._versions import LEGACY_VERSIONS, MODERN_VERSIONS

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
}
JSON_ACCEPT = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def modern(method: str = "tools/list", meta: dict[str, Any] | None = None, **params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
    if meta is not None:
        body["params"]["_meta"] = meta
    return body


def legacy(method: str = "tools/list", **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


INITIALIZE = legacy(
    "initialize",
    protocolVersion="2025-11-25",
    capabilities={},
    clientInfo={"name": "c", "version": "1"},
)


def post(body: Any, headers: dict[str, str] | None = None, **kwargs: Any) -> Route:
    return route_request("POST", headers or {}, body, **kwargs)


def rejected(route: Route, status: int, code: int) -> str:
    assert route.kind is RouteKind.ERROR, route
    assert route.rejection is not None
    assert route.rejection.status == status
    assert route.rejection.error.code == code, route.rejection.error
    return route.rejection.error.message


# --- the era decision ------------------------------------------------------------------------


def test_initialize_is_legacy() -> None:
    route = post(INITIALIZE)
    assert route.kind is RouteKind.LEGACY_INITIALIZE
    assert route.protocol_version == "2025-11-25"


def test_initialize_on_a_modern_only_server_names_supported_versions() -> None:
    route = post(INITIALIZE, supported_versions=MODERN_VERSIONS)
    rejected(route, 400, UNSUPPORTED_PROTOCOL_VERSION)
    assert route.rejection is not None
    assert route.rejection.error.data == {"supported": [V], "requested": "2025-11-25"}


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_legacy_version_header_means_legacy_session(version: str) -> None:
    route = post(legacy(), {"MCP-Protocol-Version": version, "Mcp-Session-Id": "abc"})
    assert route.kind is RouteKind.LEGACY_SESSION
    assert (route.protocol_version, route.session_id) == (version, "abc")


def test_session_id_without_version_header_is_legacy_2025_03_26() -> None:
    route = post(legacy(), {"mcp-session-id": "abc"})
    assert route.kind is RouteKind.LEGACY_SESSION
    assert route.protocol_version == "2025-03-26"


def test_no_version_anywhere_is_a_2025_03_26_client() -> None:
    route = post(legacy())
    assert (route.kind, route.protocol_version, route.session_id) == (
        RouteKind.LEGACY_SESSION,
        "2025-03-26",
        None,
    )


def test_modern_request_with_matching_headers() -> None:
    body = modern()
    route = post(body, request_headers(body, protocol_version=V))
    assert route.kind is RouteKind.MODERN
    assert route.protocol_version == V
    assert route.meta is not None and route.meta.client_capabilities == {}


def test_modern_request_ignores_session_and_last_event_id() -> None:
    body = modern()
    headers = {
        **request_headers(body, protocol_version=V),
        "Mcp-Session-Id": "stale",
        "Last-Event-ID": "x.1",
    }
    route = post(body, headers)
    assert route.kind is RouteKind.MODERN and route.session_id is None
    assert post(body, headers, supported_versions=MODERN_VERSIONS).kind is RouteKind.MODERN


def test_modern_version_header_and_meta_must_agree() -> None:
    body = modern()
    headers = {**request_headers(body, protocol_version=V), "MCP-Protocol-Version": "2027-01-01"}
    message = rejected(post(body, headers), 400, HEADER_MISMATCH)
    assert "MCP-Protocol-Version" in message and "2027-01-01" in message
    headers.pop("MCP-Protocol-Version")
    assert "required" in rejected(post(body, headers), 400, HEADER_MISMATCH)


@pytest.mark.parametrize("legacy_version", ["2025-11-25", "2025-03-26"])
def test_a_2026_body_under_a_legacy_version_header_is_a_mismatch(legacy_version: str) -> None:
    """Also with a legacy session id: a 2026 body is never served inside a legacy session."""
    body = modern()
    headers = {**request_headers(body, protocol_version=V), "MCP-Protocol-Version": legacy_version}
    assert legacy_version in rejected(post(body, headers), 400, HEADER_MISMATCH)
    headers["Mcp-Session-Id"] = "a-legacy-session"
    assert legacy_version in rejected(post(body, headers), 400, HEADER_MISMATCH)
    headers.pop("MCP-Protocol-Version")
    assert "required" in rejected(post(body, headers), 400, HEADER_MISMATCH)


def test_unknown_modern_version_gets_32022_with_supported() -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    body = modern(meta=meta)
    headers = {**request_headers(body, protocol_version="2099-01-01")}
    route = post(body, headers)
    rejected(route, 400, UNSUPPORTED_PROTOCOL_VERSION)
    assert route.rejection is not None
    data = route.rejection.error.data
    assert data["requested"] == "2099-01-01" and V in data["supported"]


def test_version_is_judged_before_the_rest_of_meta() -> None:
    # A future client whose _meta differs must still learn which versions to retry with.
    meta = {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    body = modern(meta=meta)
    route = post(body, request_headers(body, protocol_version="2099-01-01"))
    rejected(route, 400, UNSUPPORTED_PROTOCOL_VERSION)


def test_missing_meta_fields_are_400_32602() -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": V}
    body = modern(meta=meta)
    message = rejected(post(body, request_headers(body, protocol_version=V)), 400, INVALID_PARAMS)
    assert "clientCapabilities" in message
    # A modern header without any _meta: a modern request missing its metadata.
    body = legacy()
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/list"}
    assert "_meta" in rejected(post(body, headers), 400, INVALID_PARAMS)


def test_modern_only_server_rejects_requests_without_meta() -> None:
    rejected(post(legacy(), supported_versions=MODERN_VERSIONS), 400, INVALID_PARAMS)


def test_legacy_header_on_modern_only_server() -> None:
    route = post(legacy(), {"MCP-Protocol-Version": "2025-11-25"}, supported_versions=[V])
    rejected(route, 400, INVALID_PARAMS)  # treated as modern: its _meta is missing


def test_modern_standard_headers_are_validated() -> None:
    body = modern("tools/call", name="get_weather", arguments={})
    headers = request_headers(body, protocol_version=V)
    assert post(body, headers).kind is RouteKind.MODERN
    rejected(post(body, {**headers, "Mcp-Name": "other"}), 400, HEADER_MISMATCH)
    headers.pop("Mcp-Method")
    rejected(post(body, headers), 400, HEADER_MISMATCH)


def test_modern_param_headers_use_the_tool_lookup() -> None:
    schema = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "R"}}}
    compiled = compile_header_params(schema)
    tools = {"t": compiled}
    body = modern("tools/call", name="t", arguments={"region": "eu"})
    headers = request_headers(body, protocol_version=V, tool_input_schema=compiled)
    assert post(body, headers, tool_headers=tools.get).kind is RouteKind.MODERN
    headers.pop("Mcp-Param-R")
    rejected(post(body, headers, tool_headers=tools.get), 400, HEADER_MISMATCH)
    # Without a lookup (or for an unknown tool) params are not checked here.
    assert post(body, headers).kind is RouteKind.MODERN
    other = modern("tools/call", name="unknown", arguments={"region": "eu"})
    assert (
        post(other, request_headers(other, protocol_version=V), tool_headers=tools.get).kind
        is RouteKind.MODERN
    )


@pytest.mark.parametrize("version", ["2025-13-45", "garbage", "2099-01-01"])
def test_invalid_legacy_version_header_is_400(version: str) -> None:
    route = post(legacy(), {"MCP-Protocol-Version": version, "Mcp-Session-Id": "s"})
    message = rejected(route, 400, UNSUPPORTED_PROTOCOL_VERSION)
    assert version in message


def test_legacy_only_server_does_not_claim_to_be_modern() -> None:
    route = post(
        modern(), {"MCP-Protocol-Version": V}, supported_versions=("2025-06-18", "2025-11-25")
    )
    message = rejected(route, 400, INVALID_REQUEST)
    assert "2025-11-25" in message
    # No header at all: the _meta is just an unknown key to a legacy server.
    route = post(modern(), supported_versions=LEGACY_VERSIONS)
    assert route.kind is RouteKind.LEGACY_SESSION


def test_unsupported_legacy_version_on_legacy_server() -> None:
    route = post(
        legacy(), {"MCP-Protocol-Version": "2025-06-18"}, supported_versions=["2025-11-25"]
    )
    rejected(route, 400, INVALID_REQUEST)


def test_malformed_session_id_is_400() -> None:
    for bad in ("with space", "x" * (MAX_SESSION_ID_LENGTH + 1), "é"):
        rejected(post(legacy(), {"Mcp-Session-Id": bad}), 400, INVALID_REQUEST)


def test_client_responses_are_legacy_only() -> None:
    response = {"jsonrpc": "2.0", "id": 5, "result": {}}
    route = post(response, {"Mcp-Session-Id": "s", "MCP-Protocol-Version": "2025-11-25"})
    assert route.kind is RouteKind.LEGACY_SESSION
    rejected(post(response, supported_versions=[V]), 400, INVALID_REQUEST)
    rejected(post(response, {"MCP-Protocol-Version": V}), 400, INVALID_REQUEST)


def test_bodies_that_are_not_one_message() -> None:
    assert "batches" in rejected(post([legacy()]), 400, INVALID_REQUEST)
    rejected(post({"jsonrpc": "2.0", "id": 1}), 400, INVALID_REQUEST)


def test_repeated_mcp_header_is_a_header_mismatch() -> None:
    pairs = [(b"mcp-session-id", b"a"), (b"mcp-session-id", b"b")]
    rejected(route_request("POST", pairs, legacy()), 400, HEADER_MISMATCH)


def test_no_known_version_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        post(legacy(), supported_versions=["1999-01-01"])


# --- GET / DELETE / others -------------------------------------------------------------------


def test_get_and_delete_on_modern_only_server_are_405() -> None:
    for method in ("GET", "DELETE"):
        route = route_request(method, {}, supported_versions=MODERN_VERSIONS)
        rejected(route, 405, INVALID_REQUEST)
        assert route.rejection is not None and ("allow", "POST") in route.rejection.headers


def test_get_resumes_a_legacy_stream() -> None:
    headers = {
        "Mcp-Session-Id": "s",
        "MCP-Protocol-Version": "2025-11-25",
        "Last-Event-ID": " k.3 ",
    }
    route = route_request("GET", headers)
    assert route.kind is RouteKind.LEGACY_SESSION
    assert (route.session_id, route.last_event_id) == ("s", "k.3")
    assert route_request("DELETE", headers).last_event_id is None


def test_get_with_modern_version_is_405_on_dual_server() -> None:
    route = route_request("GET", {"MCP-Protocol-Version": V})
    rejected(route, 405, INVALID_REQUEST)
    assert route.rejection is not None and ("allow", "GET, POST, DELETE") in route.rejection.headers


def test_get_with_invalid_version_is_400() -> None:
    rejected(
        route_request("GET", {"MCP-Protocol-Version": "nope"}), 400, UNSUPPORTED_PROTOCOL_VERSION
    )


def test_other_methods_are_405() -> None:
    rejected(route_request("PUT", {}), 405, INVALID_REQUEST)
    rejected(route_request("patch", {}, supported_versions=[V]), 405, INVALID_REQUEST)


# --- media types -----------------------------------------------------------------------------


def test_post_media_checks() -> None:
    assert check_media("POST", JSON_ACCEPT) is None
    assert check_media("POST", {"Content-Type": "application/json; charset=utf-8"}) is None
    assert check_media("POST", {**JSON_ACCEPT, "accept": "*/*"}) is None
    assert check_media("POST", {**JSON_ACCEPT, "accept": "application/*, text/*;q=0.5"}) is None
    for content_type in ("text/plain", "application/jsonx", ""):
        rejection = check_media("POST", {**JSON_ACCEPT, "content-type": content_type})
        assert rejection is not None and rejection.status == 415
    rejection = check_media("POST", {"content-type": "application/json", "accept": "text/html"})
    assert rejection is not None and rejection.status == 406
    assert "text/event-stream" in rejection.error.message
    rejection = check_media("POST", {**JSON_ACCEPT, "accept": "application/json"})
    assert rejection is not None and rejection.status == 406
    rejection = check_media("POST", {**JSON_ACCEPT, "accept": "*/*, text/event-stream;q=0"})
    assert rejection is not None and rejection.status == 406
    assert (
        check_media("POST", {**JSON_ACCEPT, "accept": "text/*;q=0, */*, text/event-stream"}) is None
    )


def test_get_media_checks() -> None:
    assert check_media("GET", {"accept": "text/event-stream"}) is None
    assert check_media("GET", {}) is None
    rejection = check_media("GET", {"accept": "application/json"})
    assert rejection is not None and rejection.status == 406
    assert check_media("DELETE", {"accept": "application/json"}) is None


def test_rejection_body_is_an_error_response() -> None:
    rejection = check_media("POST", {"content-type": "text/plain"})
    assert rejection is not None
    response = rejection.response()
    assert response.id is None and response.error.code == INVALID_REQUEST
    assert rejection.response(7).id == 7


# --- statuses and session ids ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "era", "status"),
    [
        (PARSE_ERROR, "legacy", 400),
        (PARSE_ERROR, "modern", 400),
        (INVALID_REQUEST, "modern", 400),
        (HEADER_MISMATCH, "modern", 400),
        (MISSING_REQUIRED_CLIENT_CAPABILITY, "modern", 400),
        (UNSUPPORTED_PROTOCOL_VERSION, "modern", 400),
        (METHOD_NOT_FOUND, "modern", 404),
        (METHOD_NOT_FOUND, "legacy", 200),
        (INVALID_PARAMS, "modern", 200),
        (INVALID_PARAMS, "legacy", 200),
        (INTERNAL_ERROR, "modern", 200),
        (-32002, "legacy", 200),
    ],
)
def test_status_for_error(code: int, era: Any, status: int) -> None:
    assert status_for_error(code, era) == status


def test_session_ids() -> None:
    ids = {new_session_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(is_valid_session_id(i) and len(i) >= 32 for i in ids)
    assert is_valid_session_id("!~")
    for bad in ("", " ", "a b", "a\x7f", "é", "x" * (MAX_SESSION_ID_LENGTH + 1)):
        assert not is_valid_session_id(bad)


def test_http_rules_load_lazily_and_are_reexported() -> None:
    """A stdio program importing mcpkit.protocol must not pay for the HTTP modules."""
    import subprocess
    import sys

    code = (
        "import sys, mcpkit.protocol as p\n"
        "assert not [m for m in sys.modules if m.startswith('mcpkit.protocol.http_')]\n"
        "assert p.route_request.__module__ == 'mcpkit.protocol._http_routing'\n"
        "assert p.HostPolicy.__module__ == 'mcpkit.protocol._http_security'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_modern_notification_needs_only_the_version() -> None:
    body = {
        "jsonrpc": "2.0",
        "method": "notifications/something",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": V}},
    }
    route = post(body, {"MCP-Protocol-Version": V})
    assert (route.kind, route.protocol_version, route.meta) == (RouteKind.MODERN, V, None)


def test_a_session_request_must_name_the_negotiated_revision_or_none() -> None:
    assert session_version_error("2025-11-25", "2025-11-25") is None
    assert session_version_error("2025-11-25", " 2025-11-25\t") is None  # compared stripped
    assert session_version_error("2025-11-25", None) is None  # a 2025-03-26 client sends none
    assert session_version_error(None, "2025-06-18") is None  # nothing negotiated yet
    for sent in ("2025-06-18", "2026-07-28", "1999-01-01"):
        error = session_version_error("2025-11-25", sent)
        assert error is not None and error.code == INVALID_REQUEST
        assert "2025-11-25" in error.message and repr(sent) in error.message
        assert status_for_error(error.code, "legacy") == 400


def test_a_route_is_an_immutable_value() -> None:
    # Route is built on every request (a frozen struct: cheap to make), and stays a value:
    # equal when its fields are, and never changed after routing decided it.
    route = route_request(
        "POST",
        {"MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "abc"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert route == Route(RouteKind.LEGACY_SESSION, protocol_version="2025-11-25", session_id="abc")
    with pytest.raises(AttributeError):
        route.session_id = "other"  # type: ignore[misc]
    assert route.session_id == "abc"

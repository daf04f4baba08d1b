"""The legacy lifecycle state machines."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    LocalProtocolError,
    RemoteProtocolError,
    UnsupportedProtocolVersion,
)
from mcpkit.protocol._lifecycle import ClientLifecycle, ClientState, ServerLifecycle, ServerState
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Notification, Request, Response
from mcpkit.types._versions import MODERN_VERSIONS


def init_request(version: str = "2025-11-25", request_id: int = 1, **extra: Any) -> Request:
    params: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": {"sampling": {}},
        "clientInfo": {"name": "c", "version": "1"},
    }
    params.update(extra)
    return Request(id=request_id, method="initialize", params=params)


def init_result(request_id: int = 1, version: str = "2025-11-25") -> Response:
    return Response(
        id=request_id,
        result={
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "2"},
            "instructions": "be nice",
        },
    )


INITIALIZED = Notification("notifications/initialized")


def operating_server() -> ServerLifecycle:
    server = ServerLifecycle()
    server.receive(init_request())
    server.send(init_result())
    server.receive(INITIALIZED)
    assert server.state is ServerState.OPERATING
    return server


# --- server ---------------------------------------------------------------------------------


def test_server_happy_path() -> None:
    server = ServerLifecycle()
    assert server.state is ServerState.AWAITING_INITIALIZE
    assert server.receive(init_request("2025-06-18")) is True
    assert server.state is ServerState.INITIALIZING
    assert server.protocol_version == "2025-06-18"
    assert server.requested_version == "2025-06-18"
    assert server.client_capabilities == {"sampling": {}}
    assert server.client_info == {"name": "c", "version": "1"}
    server.send(init_result())
    assert server.state is ServerState.AWAITING_INITIALIZED
    assert server.receive(INITIALIZED) is True
    assert server.state is ServerState.OPERATING
    server.send(Request(id=1, method="sampling/createMessage", params={}))
    server.send(Notification("notifications/tools/list_changed"))
    server.close()
    assert server.state is ServerState.CLOSED


def test_server_counter_offers_unknown_version() -> None:
    server = ServerLifecycle()
    server.receive(init_request("2099-12-31"))
    assert server.protocol_version == "2025-11-25"
    assert server.requested_version == "2099-12-31"


def test_modern_only_server_answers_initialize_with_its_versions() -> None:
    server = ServerLifecycle(MODERN_VERSIONS)
    with pytest.raises(UnsupportedProtocolVersion) as info:
        server.receive(init_request())
    assert info.value.supported == ["2026-07-28"]
    assert server.state is ServerState.AWAITING_INITIALIZE


@pytest.mark.parametrize("method", ["tools/list", "tools/call", "resources/read", "x/unknown"])
def test_request_before_initialize_is_invalid_request_and_session_survives(method: str) -> None:
    server = ServerLifecycle()
    with pytest.raises(InvalidRequest) as info:
        server.receive(Request(id=5, method=method))
    assert info.value.code == INVALID_REQUEST
    assert "before initialize" in info.value.message and method in info.value.message
    assert server.state is ServerState.AWAITING_INITIALIZE
    server.receive(init_request())  # the connection stays usable
    assert server.state is ServerState.INITIALIZING


def test_request_while_initialize_is_pending_is_invalid_request() -> None:
    server = ServerLifecycle()
    server.receive(init_request())
    with pytest.raises(InvalidRequest, match="before the initialize result"):
        server.receive(Request(id=2, method="tools/list"))


def test_ping_is_allowed_in_every_open_state() -> None:
    server = ServerLifecycle()
    assert server.receive(Request(id="p1", method="ping"))
    server.receive(init_request())
    assert server.receive(Request(id="p2", method="ping"))
    server.send(Request(id=9, method="ping"))
    server.send(init_result())
    assert server.receive(Request(id="p3", method="ping"))


def test_second_initialize_is_invalid_request() -> None:
    server = operating_server()
    with pytest.raises(InvalidRequest, match="already"):
        server.receive(init_request(request_id=2))
    assert server.state is ServerState.OPERATING
    pending = ServerLifecycle()
    pending.receive(init_request())
    with pytest.raises(InvalidRequest):
        pending.receive(init_request(request_id=2))


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"capabilities": {}, "clientInfo": {}}, "protocolVersion"),
        ({"protocolVersion": 20251125, "capabilities": {}, "clientInfo": {}}, "protocolVersion"),
        ({"protocolVersion": "2025-11-25", "clientInfo": {}}, "capabilities"),
        ({"protocolVersion": "2025-11-25", "capabilities": [], "clientInfo": {}}, "capabilities"),
        ({"protocolVersion": "2025-11-25", "capabilities": {}}, "clientInfo"),
        ({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": "c"}, "clientInfo"),
    ],
)
def test_malformed_initialize_is_invalid_params_naming_the_key(
    params: dict[str, Any], key: str
) -> None:
    server = ServerLifecycle()
    with pytest.raises(InvalidParams) as info:
        server.receive(Request(id=1, method="initialize", params=params))
    assert info.value.code == INVALID_PARAMS
    assert key in info.value.message
    assert server.state is ServerState.AWAITING_INITIALIZE
    with pytest.raises(InvalidParams):
        server.receive(Request(id=2, method="initialize"))


def test_request_after_result_but_before_initialized_is_accepted() -> None:
    server = ServerLifecycle()
    server.receive(init_request())
    server.send(init_result())
    assert server.receive(Request(id=2, method="tools/list")) is True
    assert server.state is ServerState.AWAITING_INITIALIZED


def test_server_may_not_send_requests_before_initialized_except_ping() -> None:
    server = ServerLifecycle()
    server.receive(init_request())
    server.send(init_result())
    with pytest.raises(LocalProtocolError, match="notifications/initialized"):
        server.send(Request(id=1, method="sampling/createMessage", params={}))
    with pytest.raises(LocalProtocolError):
        server.send(Notification("notifications/tools/list_changed"))
    server.send(Request(id=2, method="ping"))
    server.send(Notification("notifications/message", {"level": "info", "data": "x"}))
    server.send(Notification("notifications/progress", {"progressToken": 1, "progress": 1}))


def test_initialized_before_our_result_completes_when_result_is_sent() -> None:
    server = ServerLifecycle()
    server.receive(init_request())
    assert server.receive(INITIALIZED) is True
    assert server.state is ServerState.INITIALIZING
    server.send(init_result())
    assert server.state is ServerState.OPERATING


def test_a_request_after_an_early_initialized_is_accepted() -> None:
    """A client that writes ahead (initialize, initialized, a call, all at once) is served."""
    server = ServerLifecycle()
    server.receive(init_request())
    with pytest.raises(InvalidRequest):  # still before the result, and nothing says otherwise
        server.receive(Request(id=2, method="tools/list"))
    assert server.receive(INITIALIZED) is True
    server.receive(Request(id=3, method="tools/list"))  # accepted now
    server.send(init_result())
    assert server.state is ServerState.OPERATING


def test_stray_initialized_is_dropped() -> None:
    server = ServerLifecycle()
    assert server.receive(INITIALIZED) is False
    assert server.state is ServerState.AWAITING_INITIALIZE
    server = operating_server()
    assert server.receive(INITIALIZED) is False  # duplicate


def test_notifications_before_initialize() -> None:
    server = ServerLifecycle()
    assert server.receive(Notification("notifications/roots/list_changed")) is False
    assert server.receive(Notification("notifications/cancelled", {"requestId": 1})) is True


def test_initialize_error_resets_the_server() -> None:
    server = ServerLifecycle()
    server.receive(init_request())
    server.send(ErrorResponse(id=1, error=ErrorObject(code=-32603, message="boom")))
    assert server.state is ServerState.AWAITING_INITIALIZE
    assert server.protocol_version is None
    server.receive(init_request(request_id=2))
    assert server.state is ServerState.INITIALIZING


def test_other_responses_do_not_complete_initialize() -> None:
    server = ServerLifecycle()
    server.receive(Request(id=7, method="ping"))
    server.receive(init_request(request_id=8))
    server.send(Response(id=7, result={}))
    assert server.state is ServerState.INITIALIZING


def test_closed_server_refuses_everything() -> None:
    server = operating_server()
    server.close()
    with pytest.raises(LocalProtocolError):
        server.send(Notification("notifications/message"))
    with pytest.raises(LocalProtocolError):
        server.receive(Request(id=1, method="ping"))


def test_a_stateless_request_is_served_as_if_the_handshake_had_happened() -> None:
    with pytest.raises(InvalidRequest):  # an ordinary lifecycle: "send initialize first"
        ServerLifecycle().receive(Request(id=1, method="tools/list"))
    server = ServerLifecycle.operating_at("2025-06-18")
    assert server.state is ServerState.OPERATING and server.protocol_version == "2025-06-18"
    assert server.receive(Request(id=2, method="tools/list"))
    server.send(Request(id=3, method="sampling/createMessage"))  # no initialized to wait for
    with pytest.raises(InvalidRequest):  # a handshake now would be a second one
        server.receive(init_request(request_id=4))


def test_server_receives_responses_in_any_state() -> None:
    server = ServerLifecycle()
    assert server.receive(Response(id=1, result={})) is True


# --- client ---------------------------------------------------------------------------------


def operating_client() -> ClientLifecycle:
    client = ClientLifecycle()
    client.send(init_request())
    client.receive(init_result())
    client.send(INITIALIZED)
    return client


def test_client_happy_path() -> None:
    client = ClientLifecycle()
    assert client.state is ClientState.NEW
    client.send(init_request(request_id=1))
    assert client.state is ClientState.INITIALIZE_SENT
    assert client.initialize_id == 1
    assert client.receive(init_result(1, "2025-06-18")) is True
    assert client.state is ClientState.INITIALIZED
    assert client.protocol_version == "2025-06-18"
    assert client.server_capabilities == {"tools": {}}
    assert client.server_info == {"name": "s", "version": "2"}
    assert client.instructions == "be nice"
    assert client.initialize_id is None
    client.send(INITIALIZED)
    assert client.state is ClientState.OPERATING
    client.send(Request(id=2, method="tools/list"))


def test_client_cannot_send_requests_before_initialize_completes() -> None:
    client = ClientLifecycle()
    with pytest.raises(LocalProtocolError, match="initialize"):
        client.send(Request(id=1, method="tools/list"))
    client.send(Request(id=2, method="ping"))
    client.send(init_request(request_id=3))
    with pytest.raises(LocalProtocolError):
        client.send(Request(id=4, method="tools/list"))
    client.receive(init_result(3))
    with pytest.raises(LocalProtocolError, match=r"notifications/initialized before tools/list"):
        client.send(Request(id=5, method="tools/list"))


def test_client_initialize_and_initialized_are_sent_once() -> None:
    client = operating_client()
    with pytest.raises(LocalProtocolError):
        client.send(init_request(request_id=9))
    with pytest.raises(LocalProtocolError):
        client.send(INITIALIZED)
    with pytest.raises(LocalProtocolError):
        ClientLifecycle().send(INITIALIZED)


def test_client_notifications_before_operating() -> None:
    client = ClientLifecycle()
    client.send(Notification("notifications/cancelled", {"requestId": 1}))
    with pytest.raises(LocalProtocolError):
        client.send(Notification("notifications/roots/list_changed"))
    operating_client().send(Notification("notifications/roots/list_changed"))


def test_client_rejects_unsupported_offer_and_closes() -> None:
    client = ClientLifecycle(["2025-06-18"])
    client.send(init_request("2025-06-18"))
    with pytest.raises(RemoteProtocolError, match="2025-11-25"):
        client.receive(init_result(1, "2025-11-25"))
    assert client.state is ClientState.CLOSED


def test_client_rejects_result_without_version() -> None:
    client = ClientLifecycle()
    client.send(init_request())
    with pytest.raises(RemoteProtocolError):
        client.receive(Response(id=1, result={}))
    assert client.state is ClientState.CLOSED


def test_client_initialize_error_allows_retry() -> None:
    client = ClientLifecycle()
    client.send(init_request())
    err = ErrorResponse(id=1, error=ErrorObject(code=-32602, message="Unsupported version"))
    assert client.receive(err) is True
    assert client.state is ClientState.NEW
    client.send(init_request("2025-06-18", request_id=2))
    assert client.state is ClientState.INITIALIZE_SENT


def test_client_server_requests_before_operating() -> None:
    client = ClientLifecycle()
    client.send(init_request())
    assert client.receive(Request(id="s1", method="ping")) is True
    with pytest.raises(InvalidRequest) as info:
        client.receive(Request(id="s2", method="sampling/createMessage"))
    assert isinstance(info.value, JSONRPCError) and info.value.code == INVALID_REQUEST
    client.send(Response(id="s1", result={}))  # answers are always allowed
    client.receive(init_result())
    client.send(INITIALIZED)
    assert client.receive(Request(id="s3", method="sampling/createMessage")) is True


def test_client_drops_initialized_notification_from_server() -> None:
    client = operating_client()
    assert client.receive(INITIALIZED) is False
    assert client.receive(Notification("notifications/tools/list_changed")) is True


def test_client_closed() -> None:
    client = operating_client()
    client.close()
    with pytest.raises(LocalProtocolError):
        client.send(Request(id=3, method="ping"))
    with pytest.raises(LocalProtocolError):
        client.receive(Response(id=3, result={}))

"""The sans-IO connection objects: every message in gives one event, every message out is checked.

Pure and synchronous: each test drives a connection by hand, message by message, the way a
runtime would.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._connection import (
    CancelReceived,
    ClientConnection,
    Connection,
    Ignored,
    NotificationReceived,
    ProgressReceived,
    Rejected,
    RequestReceived,
    ResponseReceived,
    ServerConnection,
    StatelessServerConnection,
    SubscriptionEnded,
)
from mcpkit.protocol._errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    InvalidParams,
    InvalidRequest,
    LocalProtocolError,
    MissingServerCapability,
    RemoteProtocolError,
    TooManyInFlight,
    UsageError,
)
from mcpkit.protocol._lifecycle import ClientState, ServerState
from mcpkit.protocol._meta import PROTOCOL_VERSION_KEY
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types._jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Message,
    Notification,
    Request,
    Response,
)

CLIENT_INFO = {"name": "c", "version": "1"}


def initialize(version: str = "2025-06-18", caps: dict[str, Any] | None = None) -> Request:
    return Request(
        0,
        "initialize",
        {"protocolVersion": version, "capabilities": caps or {}, "clientInfo": CLIENT_INFO},
    )


def init_result(version: str) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {},
        "serverInfo": {"name": "s", "version": "1"},
    }


def operating_server(
    version: str = "2025-06-18", caps: dict[str, Any] | None = None
) -> ServerConnection[str, str]:
    conn: ServerConnection[str, str] = ServerConnection()
    event = conn.receive(initialize(version, caps), "init")
    assert isinstance(event, RequestReceived)
    conn.send(Response(0, init_result(version)), method="initialize")
    conn.request_done(0)
    assert conn.receive(Notification("notifications/initialized")) == NotificationReceived(
        Notification("notifications/initialized")
    )
    assert conn.operating
    return conn


def modern(method: str, request_id: int = 5, **params: Any) -> Request:
    meta = {PROTOCOL_VERSION_KEY: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    return Request(request_id, method, {"_meta": meta, **params})


# -- the shared books ------------------------------------------------------------------------


class TestInbound:
    def test_a_request_is_tracked_until_done(self) -> None:
        conn: Connection[str, str] = Connection()
        event = conn.receive(Request(1, "tools/list"), "task")
        assert isinstance(event, RequestReceived)
        assert event.entry.value == "task" and event.era == "legacy"
        assert 1 in conn.inbound
        assert conn.request_done(1) is event.entry
        assert 1 not in conn.inbound
        assert conn.request_done(1) is None

    def test_a_duplicate_in_flight_id_is_rejected_with_32600(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.receive(Request(7, "tools/call"), "first")
        event = conn.receive(Request(7, "tools/list"), "second")
        assert isinstance(event, Rejected)
        assert event.error.code == INVALID_REQUEST
        assert event.response().id == 7
        assert conn.inbound.get(7).value == "first"  # type: ignore[union-attr]

    def test_an_id_may_be_reused_once_its_request_is_done(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.receive(Request(7, "ping"), "a")
        conn.request_done(7)
        assert isinstance(conn.receive(Request(7, "ping"), "b"), RequestReceived)

    def test_string_and_integer_ids_are_different(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.receive(Request(1, "ping"), "int")
        assert isinstance(conn.receive(Request("1", "ping"), "str"), RequestReceived)

    def test_a_full_table_rejects_with_32603(self) -> None:
        conn: Connection[str, str] = Connection(max_inbound=1)
        conn.receive(Request(1, "ping"), "a")
        event = conn.receive(Request(2, "ping"), "b")
        assert isinstance(event, Rejected) and event.error.code == INTERNAL_ERROR

    def test_the_era_of_a_request_is_read_from_its_meta(self) -> None:
        conn: Connection[str, str] = Connection()
        event = conn.receive(modern("tools/list"), "m")
        assert isinstance(event, RequestReceived) and event.era == "modern"

    def test_a_closed_connection_takes_nothing(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.receive(Request(1, "ping"), "a")
        assert [e.value for e in conn.close()] == ["a"]
        with pytest.raises(LocalProtocolError):
            conn.receive(Request(2, "ping"), "b")


class TestOutbound:
    def test_ids_are_fresh_and_responses_are_matched(self) -> None:
        conn: Connection[str, str] = Connection()
        first = conn.start_request("ping", None, "f1")
        second = conn.start_request("ping", None, "f2")
        assert first.id != second.id
        event = conn.receive(Response(second.id, {}))
        assert isinstance(event, ResponseReceived) and event.entry.value == "f2"
        assert second.id not in conn.outbound and first.id in conn.outbound

    def test_a_response_to_no_request_is_ignored_never_answered(self) -> None:
        conn: Connection[str, str] = Connection()
        event = conn.receive(Response(99, {}))
        assert isinstance(event, Ignored) and "99" in event.reason

    def test_an_error_with_id_null_names_no_request(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("ping", None, "f")
        event = conn.receive(ErrorResponse(None, ErrorObject(-32700, "Parse error")))
        assert isinstance(event, Ignored) and "could not read" in event.reason
        assert request.id in conn.outbound  # nothing was failed for it

    def test_a_string_id_does_not_answer_an_integer_request(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("ping", None, "f")
        assert isinstance(conn.receive(Response(str(request.id), {})), Ignored)
        assert request.id in conn.outbound

    def test_an_error_response_is_matched_too(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("ping", None, "f")
        event = conn.receive(ErrorResponse(request.id, ErrorObject(-32601, "nope")))
        assert isinstance(event, ResponseReceived)
        assert isinstance(event.response, ErrorResponse)

    def test_too_many_in_flight(self) -> None:
        conn: Connection[str, str] = Connection(max_outbound=1)
        conn.start_request("ping", None, "a")
        with pytest.raises(TooManyInFlight):
            conn.start_request("ping", None, "b")

    def test_fail_all_empties_the_table(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.start_request("ping", None, "a")
        conn.start_request("ping", None, "b")
        assert sorted(e.value for e in conn.fail_all()) == ["a", "b"]
        assert len(conn.outbound) == 0

    def test_end_request_drops_a_late_answer(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("ping", None, "a")
        conn.end_request(request.id)
        assert isinstance(conn.receive(Response(request.id, {})), Ignored)


class TestCancellation:
    def test_the_peer_cancels_its_request(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.receive(Request(3, "tools/call"), "task")
        event = conn.receive(
            Notification("notifications/cancelled", {"requestId": 3, "reason": "bored"})
        )
        assert isinstance(event, CancelReceived)
        assert event.entry.value == "task" and event.reason == "bored"
        assert event.entry.cancelled

    def test_a_repeated_cancel_is_ignored(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.receive(Request(3, "tools/call"), "task")
        cancel = Notification("notifications/cancelled", {"requestId": 3})
        assert isinstance(conn.receive(cancel), CancelReceived)
        assert isinstance(conn.receive(cancel), Ignored)

    def test_a_cancel_for_an_unknown_request_is_ignored(self) -> None:
        conn: Connection[str, str] = Connection()
        event = conn.receive(Notification("notifications/cancelled", {"requestId": 3}))
        assert isinstance(event, Ignored)

    def test_initialize_is_never_cancelled(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        conn.receive(initialize(), "init")
        event = conn.receive(Notification("notifications/cancelled", {"requestId": 0}))
        assert isinstance(event, Ignored)
        assert not conn.inbound.get(0).cancelled  # type: ignore[union-attr]

    def test_a_cancel_without_request_id_is_malformed_in_2026(self) -> None:
        conn: Connection[str, str] = Connection(protocol_version="2026-07-28")
        event = conn.receive(Notification("notifications/cancelled", {}))
        assert isinstance(event, Ignored) and event.malformed and '"requestId"' in event.reason

    def test_a_cancel_without_request_id_is_silently_ignored_in_legacy(self) -> None:
        conn: Connection[str, str] = Connection(protocol_version="2025-06-18")
        event = conn.receive(Notification("notifications/cancelled", {}))
        assert isinstance(event, Ignored) and not event.malformed

    def test_we_cancel_our_request(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", None, "f")
        note = conn.cancel_request(request.id, "timed out")
        assert note == Notification(
            "notifications/cancelled", {"requestId": request.id, "reason": "timed out"}
        )
        assert isinstance(conn.receive(Response(request.id, {})), Ignored)  # late: dropped

    def test_nothing_to_cancel_once_answered(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", None, "f")
        conn.receive(Response(request.id, {}))
        assert conn.cancel_request(request.id) is None

    def test_our_initialize_is_never_cancelled(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("initialize", {}, "f")
        assert conn.cancel_request(request.id) is None
        assert request.id not in conn.outbound

    def test_the_server_ends_our_listen(self) -> None:
        conn: Connection[str, str] = Connection(protocol_version="2026-07-28")
        listen = conn.start_request("subscriptions/listen", {}, "f")
        event = conn.receive(Notification("notifications/cancelled", {"requestId": listen.id}))
        assert isinstance(event, SubscriptionEnded) and event.entry.value == "f"
        assert listen.id not in conn.outbound


class TestProgress:
    def test_a_token_is_bound_to_the_request(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", {"name": "t"}, "f", progress=True)
        assert request.params is not None
        assert request.params["_meta"] == {"progressToken": request.id}
        assert request.params["name"] == "t"
        event = conn.receive(
            Notification(
                "notifications/progress", {"progressToken": request.id, "progress": 1, "total": 3}
            )
        )
        assert isinstance(event, ProgressReceived)
        assert event.entry.value == "f" and event.update.progress == 1 and event.update.total == 3

    def test_the_caller_meta_is_kept(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", {"_meta": {"x": 1}}, "f", progress=True)
        assert request.params is not None
        assert request.params["_meta"] == {"x": 1, "progressToken": request.id}

    def test_progress_must_increase(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", None, "f", progress=True)

        def progress(value: float) -> Any:
            return conn.receive(
                Notification(
                    "notifications/progress", {"progressToken": request.id, "progress": value}
                )
            )

        assert isinstance(progress(2), ProgressReceived)
        assert isinstance(progress(2), Ignored)
        assert isinstance(progress(1), Ignored)
        assert isinstance(progress(3), ProgressReceived)

    def test_nothing_after_the_result(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", None, "f", progress=True)
        conn.receive(Response(request.id, {}))
        conn.end_request(request.id)
        event = conn.receive(
            Notification("notifications/progress", {"progressToken": request.id, "progress": 1})
        )
        assert isinstance(event, Ignored)

    def test_progress_after_a_cancel_is_ignored(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", None, "f", progress=True)
        conn.cancel_request(request.id)
        event = conn.receive(
            Notification("notifications/progress", {"progressToken": request.id, "progress": 1})
        )
        assert isinstance(event, Ignored)

    def test_a_token_nobody_asked_for_is_ignored(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.start_request("tools/call", None, "f")  # no progress asked
        event = conn.receive(
            Notification("notifications/progress", {"progressToken": 1, "progress": 1})
        )
        assert isinstance(event, Ignored)

    def test_malformed_progress_is_ignored(self) -> None:
        conn: Connection[str, str] = Connection()
        request = conn.start_request("tools/call", None, "f", progress=True)
        event = conn.receive(
            Notification("notifications/progress", {"progressToken": request.id, "progress": "x"})
        )
        assert isinstance(event, Ignored) and event.malformed


class TestSendPoint:
    def test_every_message_reaches_the_observers_with_its_revision(self) -> None:
        seen: list[tuple[Message, str | None, str | None]] = []

        def observer(message: Message, version: str | None, method: str | None) -> None:
            seen.append((message, version, method))

        add_outbound_observer(observer)
        try:
            conn: Connection[str, str] = Connection(protocol_version="2025-03-26")
            note = Notification("notifications/message", {"level": "info", "data": 1})
            assert conn.send(note, method=note.method) is note
            conn.send(Response(1, {}), "2025-06-18", "ping")
        finally:
            remove_outbound_observer(observer)
        assert seen == [
            (note, "2025-03-26", "notifications/message"),
            (Response(1, {}), "2025-06-18", "ping"),
        ]

    def test_a_closed_connection_still_lets_answers_out_but_nothing_new(self) -> None:
        conn: Connection[str, str] = Connection()
        conn.close()
        conn.send(Response(1, {}))
        with pytest.raises(LocalProtocolError):
            conn.send(Notification("notifications/message", {}))
        with pytest.raises(LocalProtocolError):
            conn.start_request("ping", None, "f")


# -- the server side ---------------------------------------------------------------------------


class TestServerConnection:
    def test_the_handshake(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        assert conn.protocol_version is None and conn.era is None
        conn.receive(initialize("2025-03-26", {"roots": {}}), "init")
        assert conn.protocol_version == "2025-03-26"
        assert conn.client_capabilities == {"roots": {}}
        assert conn.lifecycle.state is ServerState.INITIALIZING
        conn.send(Response(0, init_result("2025-03-26")), method="initialize")
        assert conn.lifecycle.state is ServerState.AWAITING_INITIALIZED
        conn.receive(Notification("notifications/initialized"))
        assert conn.operating and conn.era == "legacy"

    def test_an_unknown_version_gets_our_latest(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection(("2024-11-05", "2025-03-26"))
        conn.receive(initialize("2099-01-01"), "init")
        assert conn.protocol_version == "2025-03-26"

    def test_a_request_before_initialize_is_rejected(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        event = conn.receive(Request(1, "tools/list"), "x")
        assert isinstance(event, Rejected) and event.error.code == INVALID_REQUEST
        assert 1 not in conn.inbound

    def test_ping_is_always_served(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        assert isinstance(conn.receive(Request(1, "ping"), "x"), RequestReceived)

    def test_a_second_initialize_is_rejected(self) -> None:
        conn = operating_server()
        event = conn.receive(initialize(), "again")
        assert isinstance(event, Rejected) and event.error.code == INVALID_REQUEST

    def test_a_modern_request_skips_the_lifecycle(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        event = conn.receive(modern("tools/list"), "m")
        assert isinstance(event, RequestReceived) and event.era == "modern"
        assert conn.lifecycle.state is ServerState.AWAITING_INITIALIZE

    def test_a_stray_initialized_is_ignored(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        event = conn.receive(Notification("notifications/initialized"))
        assert isinstance(event, Ignored)

    def test_only_ping_may_be_asked_before_initialized(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        conn.receive(initialize(caps={"roots": {}}), "init")
        conn.send(Response(0, init_result("2025-06-18")), method="initialize")
        with pytest.raises(LocalProtocolError, match="notifications/initialized"):
            conn.start_request("roots/list", None, "f")
        assert len(conn.outbound) == 0
        ping = conn.start_request("ping", None, "f")
        conn.send(ping, method="ping")

    def test_logging_may_go_out_before_initialized_but_not_list_changed(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        conn.receive(initialize(), "init")
        conn.send(Notification("notifications/message", {"level": "info", "data": 1}))
        with pytest.raises(LocalProtocolError):
            conn.send(Notification("notifications/tools/list_changed"))

    @pytest.mark.parametrize(
        ("method", "params", "caps"),
        [
            ("roots/list", None, {}),
            ("sampling/createMessage", {"messages": []}, {}),
            ("sampling/createMessage", {"messages": [], "tools": []}, {"sampling": {}}),
            ("elicitation/create", {"message": "m"}, {}),
            ("elicitation/create", {"mode": "url", "url": "https://x"}, {"elicitation": {}}),
        ],
    )
    def test_capability_gating(
        self, method: str, params: dict[str, Any] | None, caps: dict[str, Any]
    ) -> None:
        conn = operating_server(caps=caps)
        with pytest.raises(Exception) as info:
            conn.start_request(method, params, "f")
        assert getattr(info.value, "code", None) == MISSING_REQUIRED_CLIENT_CAPABILITY
        assert len(conn.outbound) == 0

    @pytest.mark.parametrize(
        ("method", "params", "caps"),
        [
            ("roots/list", None, {"roots": {}}),
            (
                "sampling/createMessage",
                {"messages": [], "maxTokens": 5, "tools": []},
                {"sampling": {"tools": {}}},
            ),
            (
                "elicitation/create",
                {"message": "m", "requestedSchema": {"type": "object", "properties": {}}},
                {"elicitation": {}},
            ),
            (
                "elicitation/create",
                {"mode": "url", "message": "m", "url": "https://x.test", "elicitationId": "e"},
                {"elicitation": {"url": {}}},
            ),
            ("ping", None, {}),
        ],
    )
    def test_declared_capabilities_let_requests_out(
        self, method: str, params: dict[str, Any] | None, caps: dict[str, Any]
    ) -> None:
        conn = operating_server("2025-11-25", caps)
        request = conn.start_request(method, params, "f")
        conn.send(request, method=method)
        assert request.id in conn.outbound

    def test_the_log_threshold_per_era(self) -> None:
        conn = operating_server()
        assert conn.may_log("debug")  # legacy, nothing set: everything
        conn.set_log_level("warning")
        assert not conn.may_log("info") and conn.may_log("error")
        assert not conn.may_log("error", None, era="modern")  # 2026: none asked, none sent
        assert conn.may_log("info", "info", era="modern")
        assert not conn.may_log("debug", "info", era="modern")
        with pytest.raises(InvalidParams):
            conn.set_log_level("loud")
        with pytest.raises(InvalidParams):
            conn.set_log_level(["info"])

    def test_closing_ends_the_lifecycle(self) -> None:
        conn = operating_server()
        conn.close()
        assert conn.lifecycle.state is ServerState.CLOSED
        with pytest.raises(LocalProtocolError):
            conn.send(Notification("notifications/tools/list_changed"))

    def test_the_negotiated_revision_decides_batches(self) -> None:
        assert not ServerConnection().accepts_batches
        assert operating_server("2025-03-26").accepts_batches
        assert not operating_server("2025-06-18").accepts_batches
        assert not operating_server("2024-11-05").accepts_batches

    def test_a_batch_before_the_handshake_is_refused(self) -> None:
        conn: ServerConnection[str, str] = ServerConnection()
        with pytest.raises(InvalidRequest, match="2025-03-26"):
            conn.receive_batch([initialize("2025-03-26")])

    def test_a_2025_03_26_batch_is_taken(self) -> None:
        conn = operating_server("2025-03-26")
        conn.receive_batch([Request(1, "ping"), Request(2, "tools/list")])
        with pytest.raises(InvalidRequest, match="initialize"):
            conn.receive_batch([Request(1, "ping"), initialize("2025-03-26")])
        with pytest.raises(InvalidRequest, match="empty"):
            conn.receive_batch([])


class TestStatelessServerConnection:
    """The server's side of every stateless Streamable HTTP conversation at one revision: born
    operating (no handshake can precede a POST), holding nothing of any one conversation."""

    def test_it_is_operating_at_its_revision(self) -> None:
        conn: StatelessServerConnection[str, str] = StatelessServerConnection("2025-03-26")
        assert conn.operating and conn.protocol_version == "2025-03-26"
        assert conn.era == "legacy" and conn.client_capabilities == {}
        event = conn.receive(Request(1, "tools/list"), "x")
        assert isinstance(event, RequestReceived) and event.era == "legacy"
        assert event.entry.value == "x"

    def test_ids_of_different_posts_are_unrelated(self) -> None:
        conn: StatelessServerConnection[str, str] = StatelessServerConnection("2025-06-18")
        first = conn.receive(Request(1, "tools/call", {"name": "a"}), "post-1")
        again = conn.receive(Request(1, "tools/call", {"name": "b"}), "post-2")
        assert isinstance(first, RequestReceived) and isinstance(again, RequestReceived)
        assert len(conn.inbound) == 0  # each request is its POST's own, in no table

    def test_an_initialize_is_refused_and_no_handshake_notification_is_expected(self) -> None:
        conn: StatelessServerConnection[str, str] = StatelessServerConnection("2025-06-18")
        event = conn.receive(initialize(), "again")
        assert isinstance(event, Rejected) and event.error.code == INVALID_REQUEST
        assert isinstance(conn.receive(Notification("notifications/initialized")), Ignored)
        cancel = Notification("notifications/cancelled", {"requestId": 1})
        conn.receive(Request(1, "tools/list"), "x")
        assert isinstance(conn.receive(cancel), Ignored)  # it came in another POST
        assert isinstance(conn.receive(Response(1, {})), Ignored)  # we asked nothing
        assert conn.operating  # none of it changed anything

    def test_what_it_sends_is_shaped_for_the_revision_and_observed_with_it(self) -> None:
        seen: list[tuple[str | None, str | None]] = []

        def observer(message: Message, version: str | None, method: str | None) -> None:
            seen.append((version, method))

        conn: StatelessServerConnection[str, str] = StatelessServerConnection("2025-03-26")
        result = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}}
        add_outbound_observer(observer)
        try:
            sent = conn.send(Response(1, result), None, "tools/call")
        finally:
            remove_outbound_observer(observer)
        assert isinstance(sent, Response) and "structuredContent" not in sent.result  # 2025-06-18
        assert seen == [("2025-03-26", "tools/call")]

    def test_nothing_can_be_asked_and_nothing_kept_per_conversation(self) -> None:
        conn: StatelessServerConnection[str, str] = StatelessServerConnection("2025-11-25")
        for method in ("ping", "roots/list"):
            with pytest.raises(LocalProtocolError, match="no session"):
                conn.start_request(method, None, "f")
        assert len(conn.outbound) == 0
        with pytest.raises(UsageError):
            conn.set_log_level("error")
        assert conn.log_level is None and conn.may_log("debug")

    def test_once_closed_it_admits_nothing(self) -> None:
        conn: StatelessServerConnection[str, str] = StatelessServerConnection("2025-11-25")
        conn.close()
        with pytest.raises(LocalProtocolError):  # as any closed connection
            conn.receive(Request(1, "tools/list"), "x")


# -- the client side ---------------------------------------------------------------------------


class TestClientConnection:
    def handshake(
        self, caps: dict[str, Any] | None = None, declared: dict[str, Any] | None = None
    ) -> ClientConnection[str, str]:
        conn: ClientConnection[str, str] = ClientConnection()
        request = conn.start_request("initialize", initialize(caps=declared).params, "init")
        conn.send(request, method="initialize")
        assert conn.lifecycle.state is ClientState.INITIALIZE_SENT
        result = {
            "protocolVersion": "2025-06-18",
            "capabilities": caps if caps is not None else {"tools": {}},
            "serverInfo": {"name": "s", "version": "1"},
        }
        assert isinstance(conn.receive(Response(request.id, result)), ResponseReceived)
        assert conn.protocol_version == "2025-06-18"
        conn.send(Notification("notifications/initialized"))
        assert conn.operating
        return conn

    def test_the_handshake_and_server_capabilities(self) -> None:
        conn = self.handshake({"tools": {}})
        assert conn.server_capabilities == {"tools": {}}
        conn.start_request("tools/list", None, "f")
        with pytest.raises(MissingServerCapability):
            conn.start_request("prompts/list", None, "f")

    def test_a_renewed_session_records_its_own_verdict(self) -> None:
        """A legacy HTTP session replaced after a 404: the new handshake runs on a fresh
        lifecycle; its revision and capabilities become the connection's, and the
        ``notifications/initialized`` it returns is already accepted by it."""
        conn = self.handshake({"tools": {}})
        assert (conn.renewals, conn.server_info, conn.instructions) == (
            0,
            {"name": "s", "version": "1"},
            None,
        )
        assert conn.initialize_result is not None
        assert conn.initialize_result["protocolVersion"] == "2025-06-18"
        conn.start_request("tools/list", None, "f")  # allowed (and remembered) before
        request = Request("renew-1", "initialize", initialize(caps={}).params)
        conn.start_renewal(request)
        assert conn.protocol_version == "2025-06-18"  # the old verdict serves meanwhile
        result = {
            **init_result("2025-03-26"),
            "capabilities": {"prompts": {}},
            "serverInfo": {"name": "t", "version": "2"},
            "instructions": "new",
        }
        note = conn.finish_renewal(Response("renew-1", result))
        assert isinstance(note, Notification) and note.method == "notifications/initialized"
        assert conn.protocol_version == "2025-03-26" and conn.operating
        assert conn.server_capabilities == {"prompts": {}}
        assert (conn.renewals, conn.server_info, conn.instructions) == (
            1,
            {"name": "t", "version": "2"},
            "new",
        )
        assert conn.initialize_result == result
        conn.start_request("prompts/list", None, "f")
        with pytest.raises(MissingServerCapability):
            conn.start_request("tools/list", None, "f")

    def test_a_renewal_refused_keeps_the_old_verdict(self) -> None:
        conn = self.handshake({"tools": {}})
        conn.start_renewal(Request("renew-1", "initialize", initialize().params))
        with pytest.raises(RemoteProtocolError, match="1999-01-01"):
            conn.finish_renewal(Response("renew-1", init_result("1999-01-01")))
        conn.start_renewal(Request("renew-2", "initialize", initialize().params))
        with pytest.raises(InvalidRequest):
            conn.finish_renewal(ErrorResponse("renew-2", ErrorObject(-32600, "no")))
        assert conn.protocol_version == "2025-06-18" and conn.operating
        assert conn.renewals == 0
        with pytest.raises(LocalProtocolError, match="no renewal"):
            conn.finish_renewal(Response("renew-2", init_result("2025-06-18")))

    def test_no_request_before_initialize(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        request = conn.start_request("tools/list", None, "f")
        with pytest.raises(LocalProtocolError, match="initialize"):
            conn.send(request, method="tools/list")

    def test_a_version_we_do_not_speak_closes(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection(("2025-06-18",))
        request = conn.start_request("initialize", initialize().params, "init")
        conn.send(request, method="initialize")
        bad = {"protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": CLIENT_INFO}
        # the answer is still matched (the caller waiting on initialize gets it) ...
        assert isinstance(conn.receive(Response(request.id, bad)), ResponseReceived)
        assert conn.lifecycle.state is ClientState.CLOSED
        assert conn.protocol_version is None
        # ... and the connection says why the handshake failed
        with pytest.raises(RemoteProtocolError, match="2024-11-05"):
            conn.initialize_outcome()

    def test_the_negotiated_revision_is_the_lifecycle_s(self) -> None:
        conn = self.handshake()
        assert conn.initialize_outcome() == conn.protocol_version == "2025-06-18"
        assert conn.era == "legacy" and not conn.modern

    def test_nothing_but_ping_before_the_initialize_result(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        request = conn.start_request("initialize", initialize().params, "init")
        conn.send(request, method="initialize")
        with pytest.raises(LocalProtocolError, match="before the initialize result"):
            conn.start_request("tools/list", None, "f")
        assert len(conn.outbound) == 1  # refused before an id was taken
        conn.send(conn.start_request("ping", None, "p"), method="ping")
        with pytest.raises(LocalProtocolError, match="initialize"):
            conn.initialize_outcome()

    def test_nothing_but_ping_before_initialized_is_sent(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        request = conn.start_request("initialize", initialize().params, "init")
        conn.send(request, method="initialize")
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {}}
        conn.receive(Response(request.id, result))
        with pytest.raises(LocalProtocolError, match="notifications/initialized"):
            conn.start_request("tools/list", None, "f")
        conn.send(Notification("notifications/initialized"))
        conn.start_request("tools/list", None, "f")

    def test_a_discover_verdict_is_recorded_and_gates(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        probe = conn.start_request("server/discover", modern("server/discover").params, "probe")
        conn.send(probe, "2026-07-28", "server/discover")  # no lifecycle for a 2026 request
        conn.receive(Response(probe.id, {}))
        conn.adopt_discover("2026-07-28", {"tools": {}})
        assert conn.modern and conn.era == "modern" and conn.protocol_version == "2026-07-28"
        conn.start_request("tools/call", {"name": "x"}, "f")
        conn.start_request("tasks/get", {"taskId": "t"}, "f")  # the Tasks extension's, ungated
        with pytest.raises(MissingServerCapability):
            conn.start_request("prompts/get", {"name": "p"}, "f")
        conn.adopt_discover("2026-07-28", {"tools": {}, "prompts": {}})  # a later discover
        conn.start_request("prompts/get", {"name": "p"}, "f")
        conn.adopt_discover("2026-07-28", {"prompts": {}})  # tools withdrawn: checked again
        with pytest.raises(MissingServerCapability):
            conn.start_request("tools/call", {"name": "x"}, "f")

    def test_a_2026_connection_checks_only_what_its_era_needs_on_send(self) -> None:
        # a message naming the 2026 revision skips the handshake-era check (there is no
        # handshake); one naming a legacy revision still meets it; a closed one sends nothing
        conn: ClientConnection[str, str] = ClientConnection()
        conn.adopt_discover("2026-07-28", {"tools": {}})
        call = conn.start_request("tools/call", modern("tools/call", name="x").params, "f")
        assert conn.send(call, "2026-07-28", "tools/call") is call
        assert conn.send(call, None, "tools/call") is call  # the connection's own revision
        with pytest.raises(LocalProtocolError):
            conn.send(call, "2025-11-25", "tools/call")  # before an initialize: refused
        conn.close()
        with pytest.raises(LocalProtocolError):
            conn.send(call, "2026-07-28", "tools/call")

    def test_a_2026_server_may_send_no_request(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        conn.adopt_discover("2026-07-28", {"tools": {}})
        for method in ("roots/list", "ping"):
            event = conn.receive(Request(3, method), "x")
            assert isinstance(event, Rejected) and event.error.code == METHOD_NOT_FOUND

    def test_no_discover_verdict_after_the_handshake(self) -> None:
        conn = self.handshake()
        with pytest.raises(LocalProtocolError):
            conn.adopt_discover("2026-07-28", {})

    @pytest.mark.parametrize(
        ("method", "caps", "needs"),
        [
            ("resources/subscribe", {"resources": {}}, "resources.subscribe"),
            ("logging/setLevel", {"tools": {}}, "logging"),
            ("completion/complete", {"prompts": {}}, "completions"),
            ("prompts/get", {"tools": {}}, "prompts"),
            ("tools/call", {"prompts": {}}, "tools"),
        ],
    )
    def test_a_capability_the_server_did_not_declare_is_refused_locally(
        self, method: str, caps: dict[str, Any], needs: str
    ) -> None:
        conn = self.handshake(caps)
        with pytest.raises(MissingServerCapability, match=needs) as info:
            conn.start_request(method, {}, "f")
        assert info.value.method == method
        assert len(conn.outbound) == 0

    @pytest.mark.parametrize(
        ("request_", "declared", "code"),
        [
            (Request(5, "sampling/createMessage", {"messages": []}), {}, METHOD_NOT_FOUND),
            (Request(5, "roots/list"), {"sampling": {}}, METHOD_NOT_FOUND),
            (Request(5, "elicitation/create", {"message": "m"}), {"roots": {}}, METHOD_NOT_FOUND),
            (
                Request(5, "elicitation/create", {"mode": "url"}),
                {"elicitation": {}},
                INVALID_PARAMS,
            ),
            (
                Request(5, "sampling/createMessage", {"messages": [], "tools": []}),
                {"sampling": {}},
                INVALID_PARAMS,
            ),
            (
                Request(5, "sampling/createMessage", {"includeContext": "thisServer"}),
                {"sampling": {"tools": {}}},
                INVALID_PARAMS,
            ),
        ],
        ids=["sampling", "roots", "elicitation", "url-mode", "sampling-tools", "sampling-context"],
    )
    def test_a_question_we_did_not_declare_is_answered_with_the_spec_s_error(
        self, request_: Request, declared: dict[str, Any], code: int
    ) -> None:
        conn = self.handshake(declared=declared)
        event = conn.receive(request_, "x")
        assert isinstance(event, Rejected) and event.error.code == code
        assert len(conn.inbound) == 0

    def test_a_declared_question_is_served(self) -> None:
        conn = self.handshake(declared={"sampling": {}, "roots": {}, "elicitation": {"url": {}}})
        assert conn.client_capabilities == {
            "sampling": {},
            "roots": {},
            "elicitation": {"url": {}},
        }
        for i, request in enumerate(
            [
                Request(1, "sampling/createMessage", {"messages": []}),
                Request(2, "roots/list"),
                Request(3, "elicitation/create", {"mode": "url"}),
            ]
        ):
            assert isinstance(conn.receive(request, str(i)), RequestReceived)

    def test_an_initialize_error_lets_the_client_retry(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        request = conn.start_request("initialize", initialize().params, "init")
        conn.send(request, method="initialize")
        conn.receive(ErrorResponse(request.id, ErrorObject(-32602, "no")))
        assert conn.lifecycle.state is ClientState.NEW

    def test_a_server_request_before_the_handshake_is_rejected_but_ping(self) -> None:
        conn: ClientConnection[str, str] = ClientConnection()
        event = conn.receive(Request(1, "roots/list"), "x")
        assert isinstance(event, Rejected) and event.error.code == INVALID_REQUEST
        assert isinstance(conn.receive(Request(2, "ping"), "x"), RequestReceived)

    def test_initialized_is_never_sent_to_a_client(self) -> None:
        conn = self.handshake()
        assert isinstance(conn.receive(Notification("notifications/initialized")), Ignored)


def test_answers_to_2026_requests_skip_the_handshake_lifecycle() -> None:
    """A 2026 request over stdio has no handshake: what answers it (and its related progress
    and log messages) may go out while the legacy lifecycle is still at the start."""
    conn: ServerConnection[str, str] = ServerConnection()
    conn.receive(modern("subscriptions/listen"), "listen")
    ack = Notification(
        "notifications/subscriptions/acknowledged",
        {"notifications": {}, "_meta": {"io.modelcontextprotocol/subscriptionId": "s"}},
    )
    conn.send(ack, "2026-07-28", ack.method)
    with pytest.raises(LocalProtocolError):  # the same message in a legacy session's state
        conn.send(ack, None, ack.method)

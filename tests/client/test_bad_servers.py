"""Servers that misbehave, over real stdio: clear typed errors, no hangs, the client survives."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from mcpkit.client import (
    Client,
    IncompatibleServer,
    InputRequiredLoopExceeded,
    OutputValidationError,
    ServerMisbehaved,
)
from mcpkit.protocol._errors import ConnectionBroken, ConnectionClosed, RequestTimeout
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types._jsonrpc import Notification

from .conftest import raw_server

pytestmark = pytest.mark.no_schema_check  # the bad servers' own messages are not ours to check


async def test_silent_legacy_server_falls_back_after_the_probe_timeout() -> None:
    async with Client(raw_server("--discover", "silent"), probe_timeout=0.5) as client:
        assert client.era == "legacy"
        assert (await client.call_tool("t", {"x": 1})).content[0].text == "ok {'x': 1}"  # type: ignore[union-attr]


async def test_legacy_server_answering_an_error_falls_back() -> None:
    async with Client(raw_server("--discover", "error")) as client:
        assert client.era == "legacy"
        assert client.protocol_version == "2025-11-25"


async def test_legacy_versions_listed_in_32022_fall_back_to_initialize() -> None:
    async with Client(raw_server("--discover", "legacy-only")) as client:
        assert client.era == "legacy"
        assert client.protocol_version == "2025-06-18"


async def test_modern_error_never_falls_back() -> None:
    with pytest.raises(IncompatibleServer) as refused:
        async with Client(raw_server("--discover", "unsupported")):
            pass
    assert refused.value.supported == ["2099-01-01"]


async def test_modern_mode_refuses_a_legacy_server() -> None:
    with pytest.raises(IncompatibleServer, match="needs a 2026-07-28 server"):
        async with Client(raw_server("--discover", "error"), mode="2026-07-28"):
            pass


async def test_modern_raw_server_and_its_cache_hints() -> None:
    sent: list[str] = []

    def observe(message: Any, version: str | None, method: str | None) -> None:
        sent.append(getattr(message, "method", ""))

    async with Client(raw_server("--discover", "answer")) as client:
        assert client.era == "modern"
        assert client.negotiated.ttl_ms == 60000
        assert client.negotiated.cache_scope == "public"
        add_outbound_observer(observe)
        try:
            first = await client.list_tools()
            second = await client.list_tools()  # fresh for 60 s: served from the cache
            assert [t.name for t in first] == [t.name for t in second] == ["t"]
            assert sent.count("tools/list") == 1
            client._apply_change(Notification("notifications/tools/list_changed"))
            await client.list_tools()
            assert sent.count("tools/list") == 2
        finally:
            remove_outbound_observer(observe)
        await client.ping()  # 2026 has no ping: a server/discover stands in


async def test_crash_mid_call_fails_the_call_and_names_the_exit() -> None:
    async with Client(raw_server("--call", "crash")) as client:
        with pytest.raises(ConnectionBroken) as broken:
            await client.call_tool("t")
        assert not client.connected
        assert "peer closed the connection" in str(broken.value)
        with pytest.raises((ConnectionBroken, ConnectionClosed)):
            await client.call_tool("t")


async def test_hang_is_a_local_timeout_and_the_connection_survives() -> None:
    async with Client(raw_server("--call", "hang"), timeout=0.5) as client:
        with pytest.raises(RequestTimeout):
            await client.call_tool("t")
        assert client.connected
        assert len(await client.list_tools()) == 1


async def test_malformed_json_is_survived() -> None:
    async with Client(raw_server("--call", "garbage")) as client:
        result = await client.call_tool("t", {"x": 2})
        assert result.content[0].text == "ok {'x': 2}"  # type: ignore[union-attr]
        assert client.connected


async def test_result_of_the_wrong_shape_is_a_typed_error() -> None:
    async with Client(raw_server("--call", "wrong-shape")) as client:
        with pytest.raises(ServerMisbehaved, match="tools/call"):
            await client.call_tool("t")


async def test_output_schema_violation_strict_warn_off(caplog: pytest.LogCaptureFixture) -> None:
    async with Client(raw_server("--call", "bad-output")) as client:
        with pytest.raises(OutputValidationError) as bad:
            await client.call_tool("t")
        assert bad.value.path == "$.n"
        assert "'not a number' is not of type 'integer'" in str(bad.value)
        with caplog.at_level(logging.WARNING, logger="mcpkit.client"):
            warned = await client.call_tool("t", output_validation="warn")
        assert warned.structured_content == {"n": "not a number"}
        assert "does not match its outputSchema" in caplog.text
        off = await client.call_tool("t", output_validation="off")
        assert off.structured_content == {"n": "not a number"}


async def test_request_for_an_undeclared_capability_gets_32601() -> None:
    async with Client(raw_server("--call", "ask")) as client:
        result = await client.call_tool("t")
        answer = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert answer["error"]["code"] == -32601
        assert "sampling" in answer["error"]["message"]


async def test_a_refused_server_request_is_logged_as_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The connection refuses the undeclared question; the client says so in its log (method
    and reason), since a refused question may be why a tool fails."""
    with caplog.at_level(logging.WARNING, logger="mcpkit.client"):
        async with Client(raw_server("--call", "ask")) as client:
            await client.call_tool("t")
    refusals = [
        r
        for r in caplog.records
        if r.name == "mcpkit.client" and "refused the server's" in r.getMessage()
    ]
    assert len(refusals) == 1, caplog.text
    (record,) = refusals
    assert record.levelno == logging.WARNING
    assert "sampling/createMessage" in record.getMessage()
    assert "sampling" in record.getMessage().split("request:", 1)[1]
    assert "-32601" in record.getMessage()


async def test_flood_of_notifications_is_bounded() -> None:
    changes: list[Any] = []
    async with Client(raw_server("--call", "flood"), notification_handler=changes.append) as c:
        async with c.listen(tools=True) as sub:
            await anext(sub)  # the (synthesised) acknowledgement
            result = await c.call_tool("t")
            assert result.content[0].text == "ok None"  # type: ignore[union-attr]
            assert sub._queued <= 1000
        assert c.connected
    assert len(changes) == 5000  # the handler saw all of them; the queue kept a bounded number


async def test_mrtr_rounds_are_bounded() -> None:
    async with Client(raw_server("--discover", "answer", "--call", "mrtr-forever")) as client:
        client._max_input_rounds = 3
        with pytest.raises(InputRequiredLoopExceeded):
            await client.call_tool("t")


async def test_mrtr_echoes_request_state_exactly_with_a_fresh_id() -> None:
    asked: list[Any] = []

    async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
        asked.append(ctx.defaults)
        return {"action": "accept", "content": {}}

    async with Client(
        raw_server("--discover", "answer", "--call", "mrtr-echo"), elicitation_handler=elicit
    ) as client:
        result = await client.call_tool("t")
    echo = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert echo["state"] == 'st\u00e9"\\/\u2028x'
    assert echo["responses"] == {"q": {"action": "accept", "content": {"name": "Zed"}}}
    assert asked == [{"name": "Zed"}]
    assert isinstance(echo["id"], int) and echo["id"] > 1


async def test_cancel_from_another_task_does_not_hang() -> None:
    async with Client(raw_server("--call", "hang")) as client:
        task = asyncio.create_task(client.call_tool("t"))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert client.connected


@pytest.mark.parametrize("end_with", ["result", "cancelled"])
async def test_server_ended_listen_is_reopened_and_resyncs(end_with: str) -> None:
    resynced = asyncio.Event()
    server = raw_server("--discover", "answer", "--call", "end-listen", "--end-with", end_with)
    async with (
        Client(server) as client,
        client.listen(tools=True, on_resync=resynced.set) as sub,
    ):
        first_ack = await anext(sub)
        assert first_ack.params.notifications.tools_list_changed is True
        await client.call_tool("t")
        changed = await asyncio.wait_for(anext(sub), 5)
        assert type(changed).__name__ == "ToolListChangedNotification"
        # the server ended the stream: a new one is opened and acknowledged, then resync
        second_ack = await asyncio.wait_for(anext(sub), 10)
        assert type(second_ack).__name__ == "SubscriptionsAcknowledgedNotification"
        await asyncio.wait_for(resynced.wait(), 5)
        assert sub.relistens == 1


async def test_a_server_flooding_requests_neither_wedges_the_client_nor_floods_its_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 28: 20 000 pings from a legacy server at once, while it reads none of the answers.
    The client refuses what is over its in-flight bound (the server is told), keeps serving
    calls, and warns about the refusals once, not thousands of times."""
    import sys
    from pathlib import Path

    server = [sys.executable, str(Path(__file__).parent / "peers" / "ping_flood_server.py")]
    caplog.set_level(logging.WARNING, logger="mcpkit.client")
    async with Client(server) as client:
        assert client.era == "legacy"
        first = await asyncio.wait_for(client.call_tool("t", {}), 30)
        assert first.content[0].text == "pongs 0"  # type: ignore[union-attr]
        second = await asyncio.wait_for(client.call_tool("t", {}), 30)
        pongs = int(second.content[0].text.split()[1])  # type: ignore[union-attr]
        assert pongs > 0  # the client answered pings meanwhile (or refused them: an answer too)
    refusals = [r for r in caplog.records if "refused the server's ping request" in r.message]
    assert len(refusals) <= 2, len(refusals)

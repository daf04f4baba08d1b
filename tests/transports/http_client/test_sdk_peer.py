"""``Client(url)`` over the HTTP client transport against the official SDK's server (mcp 2.3.0).

Real processes on loopback, both eras, each server mode the SDK has: stateful SSE, stateful
JSON, stateless JSON; resumption with ``Last-Event-ID`` after the server closes a call's stream;
the GET stream; DELETE on close; a session that expires and is replaced; and the 2024-11-05
HTTP+SSE transport reached by falling back from Streamable HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpkit.client import Client, QuestionContext
from mcpkit.transports.http import HttpClientConnector, HttpClientOptions, SessionExpired
from mcpkit.transports.http._client.transport import SESSION_EXPIRED_NOTIFICATION
from mcpkit.types._jsonrpc import Notification
from mcpkit.types._notifications import ToolListChangedNotification
from mcpkit.types._tools import CallToolResult

from ._harness import WAIT, peer, sdk_argv

pytestmark = pytest.mark.peers

ANNOUNCE_WAIT = 0.5
"""How long one announcement is waited for before announcing again."""

MODES = {
    "sse": [],
    "json": ["--json"],
    "stateless-json": ["--stateless", "--json"],
}


def text_of(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def exercise(client: Client) -> None:
    """What every mode must support: listing, a call, progress, and a mirrored header."""
    names = {tool.name for tool in await client.list_tools()}
    assert {"add", "progress", "weather", "slow"} <= names
    assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {"result": 5}
    seen: list[float] = []
    result = await client.call_tool(
        "progress", {"steps": 3}, progress_callback=lambda p, t, m: seen.append(p)
    )
    assert text_of(result) == "done"
    # JSON mode cannot carry notifications before the answer: the SDK drops them there.
    assert seen in ([1.0, 2.0, 3.0], [])
    # Mcp-Param-Region is checked by the SDK (2026): a missing or wrong header would be a 400.
    assert text_of(await client.call_tool("weather", {"region": "Zürich"})) == "sunny in Zürich"


@pytest.mark.parametrize("flags", list(MODES.values()), ids=list(MODES))
async def test_both_eras_in_every_server_mode(flags: list[str], tmp_path: Path) -> None:
    async with peer(sdk_argv(*flags), tmp_path / "server.log") as server:
        async with Client(server.url(), timeout=WAIT) as client:
            assert (client.era, client.protocol_version) == ("modern", "2026-07-28")
            await exercise(client)
        async with Client(server.url(), mode="legacy", timeout=WAIT) as client:
            assert (client.era, client.protocol_version) == ("legacy", "2025-11-25")
            stateless = "--stateless" in flags
            assert (client.negotiated.session_id is None) is stateless
            await exercise(client)


async def test_progress_and_logs_arrive_before_the_answer(tmp_path: Path) -> None:
    logs: list[Any] = []
    progress: list[float] = []
    async with peer(sdk_argv(), tmp_path / "server.log") as server:
        for mode in ("auto", "legacy"):
            logs.clear()
            progress.clear()
            async with Client(
                server.url(), mode=mode, logging_handler=logs.append, log_level="debug"
            ) as client:
                await client.call_tool(
                    "progress", {"steps": 2}, progress_callback=lambda p, t, m: progress.append(p)
                )
            assert progress == [1.0, 2.0], mode
            assert [entry.data for entry in logs] == ["step 1 of 2", "step 2 of 2"], mode


async def test_server_questions_on_a_legacy_stream_and_by_mrtr(tmp_path: Path) -> None:
    asked: list[str] = []

    async def elicit(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        asked.append(params.message)
        return {"action": "accept", "content": {"name": "Bob"}}

    async with peer(sdk_argv(), tmp_path / "server.log") as server:
        for mode in ("legacy", "auto"):
            async with Client(server.url(), mode=mode, elicitation_handler=elicit) as client:
                assert text_of(await client.call_tool("whoami")) == "hello Bob"
    assert asked == ["Who are you?", "Who are you?"]


async def test_delete_on_close_ends_the_session(tmp_path: Path) -> None:
    async with peer(sdk_argv(), tmp_path / "server.log") as server:
        async with Client(server.url(), mode="legacy") as client:
            session_id = client.negotiated.session_id
            assert session_id
        async with httpx.AsyncClient() as http:
            after = await http.post(
                server.url(),
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={
                    "Mcp-Session-Id": session_id,
                    "MCP-Protocol-Version": "2025-11-25",
                    "Accept": "application/json, text/event-stream",
                },
            )
        assert after.status_code == 404  # the server forgot it: we said goodbye


async def test_an_expired_session_is_replaced_and_reported(tmp_path: Path) -> None:
    expired: list[SessionExpired] = []
    notes: list[Notification] = []
    noted = asyncio.Event()

    def on_note(note: Any) -> None:
        if isinstance(note, Notification):  # untyped: not an MCP notification
            notes.append(note)
            noted.set()

    async with peer(sdk_argv(), tmp_path / "server.log") as server:
        target = HttpClientConnector(server.url(), on_session_expired=expired.append)
        async with Client(target, mode="legacy", notification_handler=on_note) as client:
            old = client.negotiated.session_id
            assert old
            async with httpx.AsyncClient() as http:  # someone else ends our session
                gone = await http.delete(
                    server.url(),
                    headers={"Mcp-Session-Id": old, "MCP-Protocol-Version": "2025-11-25"},
                )
                assert gone.status_code == 200
            result = await client.call_tool("add", {"a": 1, "b": 1})
            assert result.structured_content == {"result": 2}
            assert len(expired) == 1
            assert expired[0].previous_session_id == old
            assert expired[0].session_id not in (None, old)
            assert expired[0].protocol_version == "2025-11-25"
            async with asyncio.timeout(WAIT):
                await noted.wait()
            (note,) = notes
            assert note.method == SESSION_EXPIRED_NOTIFICATION
            assert note.params["previousSessionId"] == old
            # and the new session keeps working
            assert (await client.call_tool("add", {"a": 2, "b": 2})).structured_content == {
                "result": 4
            }
            assert len(expired) == 1


async def test_a_closed_call_stream_is_resumed_after_retry(tmp_path: Path) -> None:
    """The SDK closes the call's SSE stream mid-call; the client waits ``retry`` ms, GETs with
    Last-Event-ID and gets the rest, including the answer."""
    logs: list[str] = []
    retry_ms = 400
    flags = ["--event-store", "--retry-ms", str(retry_ms)]
    async with (
        peer(sdk_argv(*flags), tmp_path / "server.log") as server,
        Client(
            server.url(),
            mode="legacy",
            log_level="info",
            logging_handler=lambda p: logs.append(p.data),
        ) as client,
    ):
        started = time.monotonic()
        result = await client.call_tool("reconnect")
        elapsed = time.monotonic() - started
    assert text_of(result) == "resumed"
    assert logs == ["before the break", "after the break"]
    assert elapsed >= retry_ms / 1000  # the server's retry was honoured before reconnecting


async def test_the_get_stream_carries_unsolicited_notifications(tmp_path: Path) -> None:
    changed = asyncio.Event()

    def on_note(note: Any) -> None:
        if isinstance(note, ToolListChangedNotification):
            changed.set()

    async with (
        peer(sdk_argv(), tmp_path / "server.log") as server,
        Client(server.url(), mode="legacy", notification_handler=on_note) as client,
    ):
        # The GET stream opens right after initialization, concurrently; the SDK drops a
        # notification sent before it is open, so announce until one arrives (bounded).
        async with asyncio.timeout(WAIT):
            while not changed.is_set():
                await client.call_tool("announce")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(ANNOUNCE_WAIT):
                        await changed.wait()


async def test_a_2024_11_05_sse_server_is_reached_by_fallback(tmp_path: Path) -> None:
    async def elicit(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Eve"}}

    async with peer(sdk_argv("--sse"), tmp_path / "server.log") as server:
        for mode in ("auto", "legacy"):
            async with Client(
                server.url("/sse"), mode=mode, elicitation_handler=elicit, timeout=WAIT
            ) as client:
                assert client.era == "legacy"
                assert getattr(client._stream, "transport", None) == "http+sse"
                result = await client.call_tool("add", {"a": 20, "b": 22})
                assert result.structured_content == {"result": 42}
                assert text_of(await client.call_tool("whoami")) == "hello Eve"


async def test_options_reach_the_transport(tmp_path: Path) -> None:
    """Per-connector options (here: no GET stream) are honoured end to end."""
    async with peer(sdk_argv(), tmp_path / "server.log") as server:
        target = HttpClientConnector(
            server.url(), options=HttpClientOptions(listen_stream=False), headers={"X-Test": "1"}
        )
        async with Client(target, mode="legacy") as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {
                "result": 3
            }

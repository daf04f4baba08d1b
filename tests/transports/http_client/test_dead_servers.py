"""Servers that die: pending calls fail fast with ``ConnectionBroken`` and never hang, in every
era and mode; and a server killed and restarted mid-stream loses nothing (SQLite event store).

The servers are real processes killed with SIGKILL at a known point (they print a marker when a
call has started), so nothing here depends on timing guesses.
"""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import ConnectionBroken
from mcpkit.transports.http import HttpClientConnector, HttpClientOptions, SessionExpired

from ._harness import WAIT, PeerProcess, kit_argv, peer, sdk_argv

FAIL_FAST = 5.0
"""A call pending on a server that died must fail within this many seconds."""
SDK_MODES = {
    "modern": ("auto", []),
    "legacy-sse": ("legacy", []),
    "legacy-json": ("legacy", ["--json"]),
    "legacy-stateless": ("legacy", ["--stateless", "--json"]),
}


async def fails_fast(call: asyncio.Task[Any], since: float) -> ConnectionBroken:
    with pytest.raises(ConnectionBroken) as caught:
        async with asyncio.timeout(WAIT):
            await call
    assert time.monotonic() - since < FAIL_FAST
    return caught.value


@pytest.mark.peers
@pytest.mark.parametrize("mode,flags", list(SDK_MODES.values()), ids=list(SDK_MODES))
async def test_killed_sdk_server_fails_the_pending_call(
    mode: Any, flags: list[str], tmp_path: Path
) -> None:
    async with (
        peer(sdk_argv(*flags), tmp_path / "server.log") as server,
        Client(server.url(), mode=mode, timeout=None) as client,
    ):
        call = asyncio.create_task(client.call_tool("slow", {"seconds": 60}))
        await server.wait_for_line("SLOW-STARTED")
        await server.kill()
        error = await fails_fast(call, time.monotonic())
        if mode == "auto":
            assert "tools/call request was lost" in str(error)  # not re-sent: not read-only
        else:
            assert not client.connected


@pytest.mark.peers
async def test_killed_2024_11_05_server_fails_the_pending_call(tmp_path: Path) -> None:
    async with (
        peer(sdk_argv("--sse"), tmp_path / "server.log") as server,
        Client(server.url("/sse"), timeout=None) as client,
    ):
        call = asyncio.create_task(client.call_tool("slow", {"seconds": 60}))
        await server.wait_for_line("SLOW-STARTED")
        await server.kill()
        await fails_fast(call, time.monotonic())
        assert not client.connected


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed when we leave: nothing listens there


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_nothing_listening_fails_at_once(mode: Any) -> None:
    started = time.monotonic()
    with pytest.raises(ConnectionBroken, match="cannot connect"):
        async with Client(f"http://127.0.0.1:{closed_port()}/mcp", mode=mode):
            pass
    assert time.monotonic() - started < FAIL_FAST


async def test_resumption_gives_up_after_its_attempts(tmp_path: Path) -> None:
    """A resumable stream whose server is gone: bounded reconnects, then ``ConnectionBroken``."""
    flags = ["--event-store", str(tmp_path / "events.db"), "--retry-ms", "100"]
    options = HttpClientOptions(reconnect_attempts=2)
    async with peer(kit_argv(*flags), tmp_path / "server.log") as server:
        target = HttpClientConnector(server.url(), options=options)
        async with Client(target, mode="legacy", timeout=None) as client:
            streaming = asyncio.Event()
            call = asyncio.create_task(
                client.call_tool(
                    "slow", {"seconds": 60}, progress_callback=lambda p, t, m: streaming.set()
                )
            )
            async with asyncio.timeout(WAIT):
                await streaming.wait()  # the stream is primed: it has an event id to resume from
            await server.kill()
            error = await fails_fast(call, time.monotonic())
            assert "gave up resuming after 2 attempt(s)" in str(error)


async def test_killed_and_restarted_server_resumes_from_sqlite(tmp_path: Path) -> None:
    """The call's stream is closed (polling); while the client waits ``retry``, the call finishes
    into the SQLite store and the server is killed and restarted on the same port. The client
    reconnects to the new process, which replays the stored events: every progress notification
    and the answer arrive. The next call finds the session gone (404) and starts a new one."""
    store = tmp_path / "events.db"
    retry_ms = 1500
    server = PeerProcess(kit_argv("--event-store", str(store)), tmp_path / "server.log")
    await server.start()
    expired: list[SessionExpired] = []
    progress: list[tuple[float, str | None]] = []
    try:
        target = HttpClientConnector(server.url(), on_session_expired=expired.append)
        async with Client(target, mode="legacy", timeout=WAIT * 2) as client:
            call = asyncio.create_task(
                client.call_tool(
                    "detach",
                    {"steps": 3, "retry_ms": retry_ms},
                    progress_callback=lambda p, t, m: progress.append((p, m)),
                )
            )
            await server.wait_for_line("DETACHED-DONE")
            await server.wait_for_line("STREAM-CLOSED")  # the answer is in SQLite now
            port = server.port
            await server.kill()
            await server.start(port=port)
            async with asyncio.timeout(WAIT * 2):
                result = await call
            assert result.content[0].text == "closed=True"  # type: ignore[union-attr]
            assert progress == [(1.0, "detached 1"), (2.0, "detached 2"), (3.0, "detached 3")]
            assert expired == []
            again = await client.call_tool("add", {"a": 1, "b": 2})
            assert again.structured_content == {"result": 3}
            assert len(expired) == 1  # the restarted server did not know our session
    finally:
        await server.stop()

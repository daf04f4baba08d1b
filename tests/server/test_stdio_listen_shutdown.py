"""A real stdio server process with an open 2026 ``subscriptions/listen``: SIGTERM gives the
listen its final result before the process exits, and closing stdin ends the process at once
(the listen no longer holds the handler drain open until its timeout)."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit._runtime.session import SHUTDOWN_GRACE_SECONDS

FIXTURE = str(Path(__file__).parent / "fixtures" / "dual_era_server.py")
LISTEN = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "subscriptions/listen",
    "params": {
        "notifications": {"toolsListChanged": True},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        },
    },
}
WAIT_S = 10.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


async def _next_message(proc: asyncio.subprocess.Process) -> dict[str, Any] | None:
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), WAIT_S)
    return json.loads(line) if line else None


async def _listening() -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        FIXTURE,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(LISTEN).encode() + b"\n")
    await proc.stdin.drain()
    ack = await _next_message(proc)
    assert ack is not None and ack["method"] == "notifications/subscriptions/acknowledged", ack
    return proc


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_gives_an_open_listen_its_final_result(signum: signal.Signals) -> None:
    """SIGINT (Ctrl-C) ends the server like SIGTERM: the final result, exit 0, no traceback."""
    proc = await _listening()
    try:
        proc.send_signal(signum)
        final = await _next_message(proc)
        assert final is not None and final.get("id") == 1, final
        assert final["result"]["resultType"] == "complete"
        assert final["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 1
        assert await asyncio.wait_for(proc.wait(), WAIT_S) == 0
        assert proc.stderr is not None
        stderr = (await asyncio.wait_for(proc.stderr.read(), WAIT_S)).decode()
        assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_stdin_closing_ends_the_process_at_once_despite_an_open_listen() -> None:
    proc = await _listening()
    try:
        assert proc.stdin is not None
        proc.stdin.close()
        # before: the listen held the drain open for the whole grace period, then the process
        # ended; now it is released at once (a bound below that period, not a measurement)
        code = await asyncio.wait_for(proc.wait(), SHUTDOWN_GRACE_SECONDS * 0.75)
        assert code == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

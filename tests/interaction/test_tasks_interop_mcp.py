"""2025-11-25 core tasks served by mcpkit, driven by the official SDK's client (mcp 2.3.0) over
real stdio: capabilities, ``Tool.execution``, creation, polling, ``tasks/result`` (with a
question asked inside the task), cancel, list, and a tool error failing the task.

The SDK client runs as a subprocess with the peer venv's interpreter (``peers/mcp_tasks_client.py``)
and starts mcpkit's fixture server with this interpreter.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from _peers import MCP_PYTHON as PEER_PYTHON

ROOT: Final = Path(__file__).resolve().parents[2]
CLIENT: Final = Path(__file__).with_name("peers") / "mcp_tasks_client.py"
SERVER: Final = ROOT / "tests" / "server" / "fixtures" / "tasks_server.py"
PEER_TIMEOUT_S: Final = 60.0
"""The SDK imports slowly (seconds) on a busy machine; the calls themselves take milliseconds."""

pytestmark = pytest.mark.peers


async def test_official_client_uses_core_tasks_on_an_mcpkit_server() -> None:
    if not PEER_PYTHON.exists():  # a missing peer is a failure, never a skip
        pytest.fail(
            f"the official MCP SDK peer is missing ({PEER_PYTHON}); run scripts/install-peers"
        )
    process = await asyncio.create_subprocess_exec(
        str(PEER_PYTHON),
        str(CLIENT),
        sys.executable,
        str(SERVER),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(PEER_TIMEOUT_S):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()[-3000:]
    summary: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    assert summary["caps"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert summary["execution"]["slow"] == "optional"
    assert summary["execution"]["confirm"] == "required"
    assert summary["execution"]["plain"] is None
    assert summary["created"] == {"status": "working", "ttl": 60_000}
    assert summary["slow_status"] == "completed"
    assert summary["slow_text"] == "counted to 2"
    assert summary["related"] is not None and summary["related"]["taskId"]
    assert summary["confirm_text"] == "tea: ordered"  # elicitation during tasks/result
    assert summary["cancelled"] == "cancelled"
    assert summary["cancel_again_code"] == -32602
    # (is it slow, is it hold, status) for each task of the session, sorted
    assert summary["listed"] == [
        [False, False, "completed"],
        [False, True, "cancelled"],
        [True, False, "completed"],
    ]
    assert summary["boom"] == {"is_error": True, "status": "failed"}

"""Interop: the official Python SDK's client (``mcp`` 2.3.0, in ``.peers/mcp-venv``) against the
mcpkit HTTP server, in both eras, with SSE and JSON-only answers.

The client runs as a subprocess with the peer venv's interpreter (``peers/mcp_client.py``);
the server is mcpkit's app on a real uvicorn in this test's loop.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Final

import pytest
from _asgi_harness import running
from _asgi_servers import build_server

from _peers import MCP_PYTHON as PEER_PYTHON

ROOT: Final = Path(__file__).resolve().parents[3]
CLIENT: Final = Path(__file__).with_name("peers") / "mcp_client.py"
PEER_TIMEOUT_S: Final = 60.0
"""The SDK imports slowly (seconds) on a busy machine; the calls themselves take milliseconds."""

pytestmark = pytest.mark.peers


async def _run_peer(url: str, mode: str, path: str = "/mcp") -> dict[str, Any]:
    if not PEER_PYTHON.exists():  # a missing peer is a failure, never a skip
        pytest.fail(
            f"the official MCP SDK peer is missing ({PEER_PYTHON}); run scripts/install-peers"
        )
    process = await asyncio.create_subprocess_exec(
        str(PEER_PYTHON),
        str(CLIENT),
        f"{url}{path}",
        mode,
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
    return summary


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
@pytest.mark.parametrize("json_response", [False, True], ids=["sse", "json"])
async def test_official_client_against_mcpkit_server(mode: str, json_response: bool) -> None:
    app = build_server().http_app(json_response=json_response)
    async with running(app) as url:
        summary = await _run_peer(url, mode)
    assert summary["add"] == "42"
    assert summary["progress_text"] == "3 steps"
    # JSON-only answers cannot carry progress; SSE answers must
    assert summary["progress"] == ([] if json_response else [1.0, 2.0, 3.0])
    assert summary["ask"] == "hello Grace"  # legacy: a request to the client; 2026: MRTR
    assert summary["region"] == "eu-west/2"  # 2026: Mcp-Param-Region was mirrored and checked
    assert summary["resource"] == "static text"
    assert {"add", "ask", "progress", "region"} <= set(summary["tools"])


async def test_official_http_sse_client_against_the_2024_11_05_endpoint() -> None:
    app = build_server().http_app(legacy_sse=True)
    async with running(app) as url:
        summary = await _run_peer(url, "sse", path="/sse")
    assert summary["add"] == "42" and summary["ask"] == "hello Grace"
    assert summary["progress"] == [1.0, 2.0, 3.0]

"""Runs the official SDK's client (``peers/sdk_client.py``, in the peer venv) against a URL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Final

import pytest

from _peers import MCP_PYTHON

__all__ = ["run_sdk_client"]

CLIENT: Final = Path(__file__).with_name("peers") / "sdk_client.py"
PEER_TIMEOUT: Final = 90.0
"""The SDK imports slowly (seconds) on a loaded machine; the calls take milliseconds."""


async def run_sdk_client(url: str, mode: str, *, calls: int) -> dict[str, Any]:
    if not MCP_PYTHON.exists():  # a missing peer is a failure, never a skip
        pytest.fail(f"the official SDK peer is missing ({MCP_PYTHON}); run scripts/install-peers")
    process = await asyncio.create_subprocess_exec(
        str(MCP_PYTHON), str(CLIENT), url, mode, str(calls),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with asyncio.timeout(PEER_TIMEOUT):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()[-3000:]
    summary: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return summary

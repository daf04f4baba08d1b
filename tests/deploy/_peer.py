"""Runs the official SDK's client (``peers/sdk_client.py``, in the peer venv) against a URL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Final

import pytest

from _peers import MCP_PYTHON

__all__ = ["SdkProcess", "run_sdk_client"]

PEERS: Final = Path(__file__).with_name("peers")
CLIENT: Final = PEERS / "sdk_client.py"
PEER_TIMEOUT: Final = 90.0
"""The SDK imports slowly (seconds) on a loaded machine; the calls take milliseconds."""


def _require_peer() -> None:
    if not MCP_PYTHON.exists():  # a missing peer is a failure, never a skip
        pytest.fail(f"the official SDK peer is missing ({MCP_PYTHON}); run scripts/install-peers")


class SdkProcess:
    """A peer script (``peers/NAME.py ARGS``) that prints one JSON object per line as it goes."""

    def __init__(self, script: str, *args: str) -> None:
        self.argv = [str(MCP_PYTHON), str(PEERS / script), *args]
        self.process: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> SdkProcess:
        _require_peer()
        self.process = await asyncio.create_subprocess_exec(
            *self.argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        return self

    async def line(self) -> dict[str, Any]:
        """The next JSON line (bounded wait; the peer's stderr in the failure)."""
        assert self.process is not None and self.process.stdout is not None
        async with asyncio.timeout(PEER_TIMEOUT):
            raw = await self.process.stdout.readline()
        if not raw:
            assert self.process.stderr is not None
            err = await self.process.stderr.read()
            raise AssertionError(f"the peer ended: {err.decode()[-3000:]}")
        answer: dict[str, Any] = json.loads(raw)
        return answer

    async def __aexit__(self, *exc: object) -> None:
        assert self.process is not None
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()


async def run_sdk_client(url: str, mode: str, *, calls: int) -> dict[str, Any]:
    _require_peer()
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

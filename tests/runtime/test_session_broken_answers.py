"""A peer's answer that cannot be read fails the request it answers at once (no timeout)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from mcpkit._runtime.session import Session
from mcpkit.protocol._errors import RemoteProtocolError
from mcpkit.transports._stdio import StdioServerParameters, stdio_client

REQUEST_TIMEOUT = 120.0
"""The request's own limit: far above the bound below, so only a prompt failure passes."""
PROMPT = 30.0

# Answers every request with an error whose ``message`` is a number (a misbuilt error).
MISBUILT_PEER = r"""
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    answer = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": 404, "message": 404}}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


async def test_a_malformed_error_response_fails_its_request_promptly() -> None:
    params = StdioServerParameters(sys.executable, ["-c", MISBUILT_PEER])
    async with stdio_client(params) as stream, Session(stream, name="client") as session:
        # The peer broke the protocol: RemoteProtocolError, naming what was wrong.
        with pytest.raises(
            RemoteProtocolError, match=r"invalid message: .*malformed error response"
        ):
            await asyncio.wait_for(session.send_request("ping", timeout=REQUEST_TIMEOUT), PROMPT)

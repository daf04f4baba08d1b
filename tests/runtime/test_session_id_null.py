"""An error response with ``"id": null`` (the peer could not read one of our messages).

JSON-RPC 2.0 §5 answers a message whose id cannot be read with ``"id": null``. The client names
no request for it, so none fails; it logs what the peer said, and the connection keeps serving.
A real stdio peer plays the server.
"""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from mcpkit._runtime.session import Session
from mcpkit.transports._stdio import StdioServerParameters, stdio_client

PROMPT = 30.0

# Before answering each request, complains about an unreadable message with "id": null.
PEER = r"""
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    complaint = {"jsonrpc": "2.0", "id": None,
                 "error": {"code": -32700, "message": "Parse error: could not read that"}}
    sys.stdout.write(json.dumps(complaint) + "\n")
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}) + "\n")
    sys.stdout.flush()
"""


async def test_an_id_null_error_is_logged_and_the_connection_keeps_serving(
    caplog: pytest.LogCaptureFixture,
) -> None:
    params = StdioServerParameters(sys.executable, ["-c", PEER])
    with caplog.at_level(logging.WARNING, logger="mcpkit"):
        async with stdio_client(params) as stream, Session(stream, name="client") as session:
            assert await asyncio.wait_for(session.send_request("ping"), PROMPT) == {}
            assert await asyncio.wait_for(session.send_request("ping"), PROMPT) == {}
    complaints = [r.getMessage() for r in caplog.records if "could not read" in r.getMessage()]
    assert len(complaints) == 2
    assert "the peer could not read a message we sent" in complaints[0]
    assert "-32700" in complaints[0]
    assert not any("unknown request id" in r.getMessage() for r in caplog.records)

"""A message larger than the receiver's frame limit fails the request it is (or answers) at once,
with an error that says so, on both sides of a real stdio connection — never a wait for the
60 s deadline. The connection keeps serving afterwards.

The server is a real subprocess (``fixtures/big_server.py``, ``server.run()``) and the client is
``mcpkit.client.Client`` with its defaults: both sides bound one line at ``MAX_LINE_BYTES``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Final

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import InternalError, InvalidRequest
from mcpkit.protocol._framing import MAX_LINE_BYTES, peek_envelope

SERVER: Final = Path(__file__).parent / "fixtures" / "big_server.py"
OVER: Final = MAX_LINE_BYTES + 1024
BOUND_S: Final = 30.0
"""Far below the client's 60 s request timeout: a pass means no deadline was waited for."""


async def test_a_response_over_the_clients_limit_fails_its_call_at_once() -> None:
    async with Client([sys.executable, str(SERVER)], timeout=60) as client:
        async with asyncio.timeout(BOUND_S):
            with pytest.raises(InternalError, match="larger than this side's message limit"):
                await client.call_tool("big", {"size": OVER})
            small = await client.call_tool("big", {"size": 10})  # the connection survived
        assert small.content[0].text == "x" * 10  # type: ignore[union-attr]


async def test_a_request_over_the_servers_limit_fails_at_once() -> None:
    async with Client([sys.executable, str(SERVER)], timeout=60) as client:
        async with asyncio.timeout(BOUND_S):
            with pytest.raises(InvalidRequest, match="the receiver's limit"):
                await client.call_tool("echo", {"text": "y" * OVER})
            assert (await client.call_tool("echo", {"text": "ok"})).structured_content == {
                "result": 2
            }


def test_peek_envelope_reads_only_the_top_level() -> None:
    assert peek_envelope(b'{"jsonrpc":"2.0","id":7,"result":{"id":1,"x":"') == (7, "response")
    assert peek_envelope(b'{"method":"m","params":{"id":1},"id":"a\\"b","x') == ('a"b', "request")
    assert peek_envelope(b'{"result":{"id":1,"content":"xxx') == (None, "response")
    assert peek_envelope(b'{"id":12') == (None, None)  # could be 123...: not trusted
    assert peek_envelope(b"") == (None, None)

"""One real stdio server process serves legacy and 2026-07-28 requests side by side."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit._runtime.session import RequestContext, Session
from mcpkit.protocol._errors import MessageDecodeError
from mcpkit.transports._stdio_client import StdioServerParameters, stdio_client
from mcpkit.types._jsonrpc import ErrorResponse, Request, Response

FIXTURE = str(Path(__file__).parent / "fixtures" / "dual_era_server.py")
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


async def answer(ctx: RequestContext) -> dict[str, Any]:
    assert ctx.request.method == "elicitation/create"
    return {"action": "accept", "content": {"name": "Ada"}}


async def test_one_process_serves_both_eras() -> None:
    params = StdioServerParameters(sys.executable, [FIXTURE])
    async with (
        stdio_client(params) as stream,
        Session(stream, request_handler=answer, name="test") as session,
    ):
        discover = await session.send_request("server/discover", {"_meta": META})
        assert discover["resultType"] == "complete"
        init = await session.send_request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        assert init["protocolVersion"] == "2025-06-18"
        session.protocol_version = "2025-06-18"
        await session.send_notification("notifications/initialized")
        legacy = await session.send_request(
            "tools/call", {"name": "shout", "arguments": {"text": "legacy"}}
        )
        modern = await session.send_request(
            "tools/call",
            {"_meta": META, "name": "shout", "arguments": {"text": "modern"}},
            protocol_version="2026-07-28",
        )
        assert legacy["content"][0]["text"] == "LEGACY"
        assert modern["content"][0]["text"] == "MODERN"
        assert "resultType" not in legacy and modern["resultType"] == "complete"
        # the same tool body asks a question: a request in the session, a round trip in 2026
        legacy_q = await session.send_request("tools/call", {"name": "ask_name"})
        modern_q = await session.send_request(
            "tools/call", {"_meta": META, "name": "ask_name"}, protocol_version="2026-07-28"
        )
        assert legacy_q["content"][0]["text"] == "hi Ada"
        assert modern_q["resultType"] == "input_required"


@pytest.mark.no_schema_check  # garbage is sent on purpose
async def test_bad_input_over_real_stdio_gets_errors_and_the_server_keeps_serving() -> None:
    params = StdioServerParameters(sys.executable, [FIXTURE])
    async with stdio_client(params) as stream:
        process = stream  # raw line access below
        lines = [
            b"{not json",
            b'{"jsonrpc":"2.0","method":"tools/list","id":null}',
            b"[1,2]",
            b'{"jsonrpc":"2.0","id":5,"method":7}',
            b"\xff\xfe\x00garbage",
            b'{"jsonrpc":"2.0","id":6,"method":"tools/list"}',
            b'{"jsonrpc":"2.0","id":7,"method":"nope/nope","params":{"_meta":'
            b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            b'"io.modelcontextprotocol/clientCapabilities":{}}}}',
            b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}',
            b'{"jsonrpc":"2.0","id":99,"result":{}}',
            b'{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":'
            b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            b'"io.modelcontextprotocol/clientCapabilities":{}}}}',
        ]
        sink = process._sink  # raw bytes: the point is to send what the codec would never make
        for line in lines:
            sink.write(line + b"\n")
        await sink.drain()
        answers: list[Response | ErrorResponse] = []
        while len(answers) < 9:
            item = await process.receive()
            assert item is not None and not isinstance(item, MessageDecodeError | Request)
            if isinstance(item, Response | ErrorResponse):
                answers.append(item)
    codes = [a.error.code if isinstance(a, ErrorResponse) else "ok" for a in answers]
    assert codes == [-32700, -32600, -32600, -32600, -32700, -32600, -32601, -32600, "ok"]
    assert answers[-1].id == 9

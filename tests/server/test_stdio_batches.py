"""JSON-RPC batches over a real stdio server process: 2025-03-26 requires accepting them (answered
with one array), every other revision refuses a batch with one -32600 whose id is null."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcpkit.protocol._errors import INVALID_REQUEST, MessageDecodeError
from mcpkit.transports._stdio_client import StdioServerParameters, stdio_client
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response

FIXTURE = str(Path(__file__).parent / "fixtures" / "dual_era_server.py")


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


async def handshake(stream: Any, version: str) -> None:
    await stream.send(
        Request(
            0,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    )
    answer = await stream.receive()
    assert isinstance(answer, Response) and answer.result["protocolVersion"] == version
    await stream.send(Notification("notifications/initialized"))


def call(request_id: int | str, text: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": text}},
    }


async def test_a_2025_03_26_batch_is_answered_with_one_array() -> None:
    async with stdio_client(StdioServerParameters(sys.executable, [FIXTURE])) as stream:
        await handshake(stream, "2025-03-26")
        batch = [
            call(1, "one"),
            {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
            {"jsonrpc": "2.0", "id": "two", "method": "ping"},
            {"jsonrpc": "1.0", "id": 3, "method": "ping"},  # a broken member: its own error
            call(4, "four"),
        ]
        stream._sink.write(line(batch))  # raw: a client never builds a batch itself
        await stream._sink.drain()
        item = await stream.receive()
        # one line, one array: the codec hands it over as a batch
        assert isinstance(item, MessageDecodeError) and item.batch is not None
        answers = {member.id: member for member in item.batch}  # type: ignore[union-attr]
        assert set(answers) == {1, "two", 3, 4}
        assert isinstance(answers[1], Response)
        assert answers[1].result["content"][0]["text"] == "ONE"
        assert isinstance(answers[4], Response)
        assert answers[4].result["content"][0]["text"] == "FOUR"
        assert answers["two"] == Response("two", {})
        assert isinstance(answers[3], ErrorResponse) and answers[3].error.code == INVALID_REQUEST
        # the session carries on with single messages
        await stream.send(Request(5, "ping"))
        assert await stream.receive() == Response(5, {})


async def test_a_batch_of_notifications_only_gets_no_answer() -> None:
    async with stdio_client(StdioServerParameters(sys.executable, [FIXTURE])) as stream:
        await handshake(stream, "2025-03-26")
        note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        stream._sink.write(line([note, note]))
        await stream._sink.drain()
        await stream.send(Request(6, "ping"))
        assert await stream.receive() == Response(6, {})  # nothing came before it


async def test_other_revisions_refuse_a_batch_with_id_null() -> None:
    for version in ("2024-11-05", "2025-06-18", "2025-11-25"):
        async with stdio_client(StdioServerParameters(sys.executable, [FIXTURE])) as stream:
            await handshake(stream, version)
            stream._sink.write(line([call(1, "x")]))
            await stream._sink.drain()
            answer = await stream.receive()
            assert isinstance(answer, ErrorResponse), version
            assert answer.id is None and answer.error.code == INVALID_REQUEST
            assert "2025-03-26" in answer.error.message
            await stream.send(Request(2, "ping"))
            assert await stream.receive() == Response(2, {})


async def test_initialize_inside_a_batch_is_refused() -> None:
    async with stdio_client(StdioServerParameters(sys.executable, [FIXTURE])) as stream:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        stream._sink.write(line([init]))
        await stream._sink.drain()
        answer = await stream.receive()
        assert isinstance(answer, ErrorResponse) and answer.id is None
        assert answer.error.code == INVALID_REQUEST
        await handshake(stream, "2025-03-26")  # still at the start: a real initialize works


RICH = str(Path(__file__).parent / "fixtures" / "rich_server.py")


async def answer_of(stream: Any) -> Any:
    """The next message that is not a notification."""
    while isinstance(item := await stream.receive(), Notification):
        pass
    return item


async def test_2025_03_26_batch_answers_are_shaped_as_single_answers() -> None:
    """Answers inside a batch carry only what 2025-03-26 defines (no ``title``,
    ``outputSchema``, ``icons``, ``structuredContent`` or resource links): each exactly as the
    same request alone gets it."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "weather", "arguments": {"city": "Oslo"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "media"}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
    ]  # fmt: skip
    async with stdio_client(StdioServerParameters(sys.executable, [RICH])) as stream:
        await handshake(stream, "2025-03-26")
        stream._sink.write(line(requests))
        await stream._sink.drain()
        item = await answer_of(stream)  # media logs and reports progress on the way
        assert isinstance(item, MessageDecodeError) and item.batch is not None
        batched = {m.id: m.result for m in item.batch if isinstance(m, Response)}
        alone: dict[Any, Any] = {}
        for request in requests:
            await stream.send(Request(request["id"], request["method"], request.get("params")))
            answer = await answer_of(stream)
            assert isinstance(answer, Response)
            alone[answer.id] = answer.result
    assert batched == alone
    tools = batched[1]["tools"]
    assert tools and not any({"title", "outputSchema", "icons"} & set(tool) for tool in tools)
    assert "structuredContent" not in batched[2]
    assert {block["type"] for block in batched[3]["content"]} <= {
        "text", "image", "audio", "resource"
    }  # fmt: skip
    assert not any({"title", "icons"} & set(r) for r in batched[4]["resources"])

"""``ctx.sample`` checks the tool-loop rules before anything is sent, in both eras: messages that
break them are the tool author's bug (a ``UsageError`` naming the place), and the client is never
asked; a well-formed loop is asked as usual."""

from __future__ import annotations

from typing import Any

from _server_harness import RawPeer, connect

from mcpkit.protocol.errors import UsageError
from mcpkit.server import Context, Server

CAPS = {"sampling": {"tools": {}}}
USE = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "u1", "name": "get_weather", "input": {}}],
}
TOOLS = [{"name": "get_weather", "inputSchema": {"type": "object"}}]


def _result(use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseId": use_id, "content": []}


def build() -> Server:
    server = Server("tool-loop")

    @server.tool
    async def stray_result(ctx: Context) -> str:
        """A tool result for a tool use that was never made."""
        messages = [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            USE,
            {"role": "user", "content": _result("other")},
        ]
        try:
            await ctx.sample(messages, max_tokens=10, tools=TOOLS)
        except UsageError as exc:
            return f"refused: {exc}"
        return "sent"

    @server.tool
    async def mixed(ctx: Context) -> str:
        """Tool results mixed with text in one message."""
        messages = [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            USE,
            {"role": "user", "content": [_result("u1"), {"type": "text", "text": "and?"}]},
        ]
        try:
            await ctx.sample(messages, max_tokens=10, tools=TOOLS)
        except UsageError as exc:
            return f"refused: {exc}"
        return "sent"

    @server.tool
    async def good(ctx: Context) -> str:
        messages = [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            USE,
            {"role": "user", "content": [_result("u1")]},
        ]
        answer = await ctx.sample(messages, max_tokens=10, tools=TOOLS)
        return f"model said: {answer.model}"

    return server


async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    assert method == "sampling/createMessage", method
    return {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m1"}


async def _legacy(name: str) -> tuple[str, list[str]]:
    async with connect(build(), answer) as peer:
        await peer.initialize(CAPS)
        result = await peer.legacy("tools/call", {"name": name})
        return result["content"][0]["text"], list(peer.requests_seen)


async def _modern(peer: RawPeer, name: str) -> dict[str, Any]:
    result: dict[str, Any] = await peer.modern(
        "tools/call", {"name": name, "arguments": {}}, capabilities=CAPS
    )
    return result


async def test_legacy_malformed_tool_loops_never_reach_the_client() -> None:
    text, asked = await _legacy("stray_result")
    assert text.startswith("refused: ") and "'other'" in text and "'u1'" in text, text
    assert asked == []
    text, asked = await _legacy("mixed")
    assert text.startswith("refused: ") and "only tool results" in text, text
    assert asked == []
    text, asked = await _legacy("good")
    assert text == "model said: m1"
    assert asked == ["sampling/createMessage"]


async def test_modern_malformed_tool_loops_are_never_asked_as_input_requests() -> None:
    async with connect(build()) as peer:
        for name, words in (("stray_result", "'other'"), ("mixed", "only tool results")):
            result = await _modern(peer, name)
            assert result.get("resultType") != "input_required", result
            text = result["content"][0]["text"]
            assert text.startswith("refused: ") and words in text, text
        good = await _modern(peer, "good")
        assert good["resultType"] == "input_required"
        ((_key, request),) = good["inputRequests"].items()
        assert request["method"] == "sampling/createMessage"

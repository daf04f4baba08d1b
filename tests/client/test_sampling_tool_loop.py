"""The client refuses a sampling request that breaks the tool-loop rules with -32602, over real
stdio, without bothering its sampling handler; a well-formed tool loop reaches the handler. In
2026-07-28 the same request arrives as an input request, and the call fails naming the rule."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpkit.client import Client, QuestionContext
from mcpkit.client._errors import ServerMisbehaved

from .conftest import raw_server

WEATHER_TOOL = {"name": "get_weather", "inputSchema": {"type": "object"}}
ASK = {"role": "user", "content": {"type": "text", "text": "weather in Paris and Oslo?"}}
USES = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "u1", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "u2", "name": "get_weather", "input": {"city": "Oslo"}},
    ],
}


def _result(use_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseId": use_id, "content": [{"type": "text", "text": text}]}


BROKEN = {
    "a tool result answering no tool use": [
        ASK,
        USES,
        {"role": "user", "content": [_result("u1", "18C"), _result("nope", "?")]},
    ],
    "tool results mixed with text": [
        ASK,
        USES,
        {
            "role": "user",
            "content": [_result("u1", "18C"), _result("u2", "3C"), {"type": "text", "text": "hi"}],
        },
    ],
    "a tool result with no tool use before it": [
        {"role": "user", "content": _result("u1", "18C")},
    ],
    "a tool use left unanswered": [
        ASK,
        USES,
        {"role": "user", "content": [_result("u1", "18C")]},
    ],
}


def _ask(messages: list[dict[str, Any]]) -> list[str]:
    params = {"messages": messages, "maxTokens": 20, "tools": [WEATHER_TOOL]}
    return raw_server(
        "--call", "ask", "--ask", "sampling/createMessage", "--ask-params", json.dumps(params)
    )


@pytest.mark.parametrize("case", sorted(BROKEN))
async def test_a_sampling_request_breaking_the_tool_loop_rules_gets_invalid_params(
    case: str,
) -> None:
    seen: list[Any] = []

    async def model(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        seen.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}

    async with Client(_ask(BROKEN[case]), sampling_handler=model, sampling_tools=True) as client:
        answer = json.loads((await client.call_tool("t")).content[0].text)
        assert answer["error"]["code"] == -32602, (case, answer)
        assert "sampling message" in answer["error"]["message"], answer
        assert seen == []  # refused before the handler ran
        # the connection keeps serving: the same question again is refused the same way
        again = json.loads((await client.call_tool("t")).content[0].text)
        assert again["error"] == answer["error"]


async def test_a_well_formed_tool_loop_reaches_the_handler() -> None:
    seen: list[Any] = []

    async def model(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        seen.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "mild"}, "model": "m"}

    messages = [ASK, USES, {"role": "user", "content": [_result("u2", "3C"), _result("u1", "18C")]}]
    async with Client(_ask(messages), sampling_handler=model, sampling_tools=True) as client:
        answer = json.loads((await client.call_tool("t")).content[0].text)
    assert answer["result"]["content"]["text"] == "mild", answer
    assert len(seen) == 1


def _ask_modern(messages: list[dict[str, Any]]) -> list[str]:
    params = {"messages": messages, "maxTokens": 20, "tools": [WEATHER_TOOL]}
    return raw_server(
        "--discover",
        "answer",
        "--call",
        "mrtr-ask",
        "--ask",
        "sampling/createMessage",
        "--ask-params",
        json.dumps(params),
    )


@pytest.mark.parametrize("case", sorted(BROKEN))
async def test_a_2026_input_request_breaking_the_tool_loop_rules_is_refused(case: str) -> None:
    """2026-07-28 asks inside an input-required result, where the client has no error to
    answer with: the call fails naming the rule, and the sampling handler never runs."""
    seen: list[Any] = []

    async def model(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        seen.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}

    async with Client(
        _ask_modern(BROKEN[case]), sampling_handler=model, sampling_tools=True
    ) as client:
        assert client.era == "modern"
        with pytest.raises(ServerMisbehaved, match="sampling message"):
            await client.call_tool("t")
    assert seen == []


async def test_a_well_formed_2026_tool_loop_reaches_the_handler() -> None:
    seen: list[Any] = []

    async def model(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        seen.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "mild"}, "model": "m"}

    messages = [ASK, USES, {"role": "user", "content": [_result("u2", "3C"), _result("u1", "18C")]}]
    async with Client(_ask_modern(messages), sampling_handler=model, sampling_tools=True) as client:
        answer = json.loads((await client.call_tool("t")).content[0].text)
    assert answer["q"]["content"]["text"] == "mild", answer
    assert len(seen) == 1

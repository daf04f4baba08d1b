"""Legacy server→client requests in detail, over real stdio: URL elicitation and its completion
notification, sampling with tools, roots with list_changed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcpkit.client import Client, QuestionContext
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer

from .conftest import raw_server

URL_ASK = {
    "mode": "url",
    "message": "Sign in to continue",
    "url": "https://example.com/auth?state=1",
    "elicitationId": "e-1",
}
SAMPLE_WITH_TOOLS = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "weather?"}}],
    "maxTokens": 20,
    "tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}],
    "toolChoice": {"mode": "auto"},
}


def ask(method: str, params: dict[str, Any], *then: str) -> list[str]:
    return raw_server("--call", "ask", "--ask", method, "--ask-params", json.dumps(params), *then)


def answer_of(result: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(result.content[0].text)
    return answer


async def test_url_elicitation_and_its_completion_notification() -> None:
    asked: list[Any] = []
    completed = asyncio.Event()
    completions: list[str] = []

    async def consent(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"ignored": True}}

    def complete(elicitation_id: str) -> None:
        completions.append(elicitation_id)
        completed.set()

    server = ask(
        "elicitation/create",
        URL_ASK,
        "--then-notify",
        "notifications/elicitation/complete",
        "--then-params",
        json.dumps({"elicitationId": "e-1"}),
    )
    async with Client(
        server,
        elicitation_handler=consent,
        url_elicitation=True,
        elicitation_complete_handler=complete,
    ) as client:
        assert client.client_capabilities["elicitation"] == {"form": {}, "url": {}}
        answer = answer_of(await client.call_tool("t"))
        assert answer["result"] == {"action": "accept"}  # URL mode: consent only, no content
        assert asked[0].url == "https://example.com/auth?state=1"
        assert asked[0].elicitation_id == "e-1"
        await asyncio.wait_for(completed.wait(), 5)
        assert completions == ["e-1"]


async def test_url_elicitation_not_declared_is_refused() -> None:
    async def form_only(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        raise AssertionError("must not be asked")

    async with Client(ask("elicitation/create", URL_ASK), elicitation_handler=form_only) as client:
        assert client.client_capabilities["elicitation"] == {"form": {}}
        answer = answer_of(await client.call_tool("t"))
        assert answer["error"]["code"] == -32602
        assert "'url' mode" in answer["error"]["message"]


async def test_sampling_with_tools_needs_the_tools_capability() -> None:
    seen: list[Any] = []

    async def model(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        seen.append(params)
        return {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "u1", "name": "get_weather", "input": {}}],
            "model": "m",
            "stopReason": "toolUse",
        }

    async with Client(
        ask("sampling/createMessage", SAMPLE_WITH_TOOLS), sampling_handler=model
    ) as c:
        refused = answer_of(await c.call_tool("t"))
        assert refused["error"]["code"] == -32602
        assert "sampling.tools" in refused["error"]["message"]
    assert seen == []

    async with Client(
        ask("sampling/createMessage", SAMPLE_WITH_TOOLS),
        sampling_handler=model,
        sampling_tools=True,
    ) as c:
        answered = answer_of(await c.call_tool("t"))
        assert answered["result"]["stopReason"] == "toolUse"
        assert seen[0].tools[0].name == "get_weather"


async def test_roots_and_list_changed() -> None:
    sent: list[str] = []

    def observe(message: Any, version: str | None, method: str | None) -> None:
        sent.append(getattr(message, "method", "") or "")

    async with Client(ask("roots/list", {}), roots=[{"uri": "file:///a", "name": "a"}]) as client:
        assert client.client_capabilities["roots"] == {"listChanged": True}
        first = answer_of(await client.call_tool("t"))
        assert first["result"] == {"roots": [{"uri": "file:///a", "name": "a"}]}
        add_outbound_observer(observe)
        try:
            await client.set_roots(lambda: [{"uri": "file:///b"}])
        finally:
            remove_outbound_observer(observe)
        assert sent == ["notifications/roots/list_changed"]
        second = answer_of(await client.call_tool("t"))
        assert second["result"] == {"roots": [{"uri": "file:///b"}]}

"""mcpkit's client against mcpkit's server, in-process, in both eras: one tool body that asks
the user, the LLM and the roots works whichever era the client speaks."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.client import Client, QuestionContext
from mcpkit.protocol.errors import InvalidParams
from mcpkit.server import Context, Server, ToolError
from mcpkit.testing import ERAS, connect
from mcpkit.types import TextContent


def build() -> Server:
    server = Server("interaction", "2.0.0")

    @server.tool
    async def plan_trip(city: str, ctx: Context) -> str:
        """Plan a trip, asking the user, the model and the roots."""
        answer = await ctx.elicit(
            f"How many nights in {city}?",
            {"type": "object", "properties": {"nights": {"type": "integer", "default": 2}}},
        )
        if not answer.accepted:
            raise ToolError("the user declined")
        idea = await ctx.sample(f"One idea for {city}", max_tokens=20)
        roots = await ctx.list_roots()
        nights = answer.content["nights"] if answer.content else 0
        text = idea.content.text if isinstance(idea.content, TextContent) else "?"
        return f"{nights} nights; {text}; saved to {roots[0]['uri']}"

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    return server


async def elicit(params: Any, context: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": dict(context.defaults)}  # accept the defaults


async def sample(params: Any, context: QuestionContext) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": "see the museum"},
        "model": "m",
    }


@pytest.mark.parametrize("mode", ERAS)
async def test_one_tool_body_in_both_eras(mode: str) -> None:
    async with connect(
        build(),
        mode=mode,
        elicitation_handler=elicit,
        sampling_handler=sample,
        roots=[{"uri": "file:///trips", "name": "trips"}],
    ) as client:
        assert client.era == ("legacy" if mode == "legacy" else "modern")
        result = await client.call_tool("plan_trip", {"city": "Lisbon"})
    assert not result.is_error
    assert result.content[0].text == "2 nights; see the museum; saved to file:///trips"


async def test_auto_mode_detects_the_modern_era_and_structured_output() -> None:
    async with connect(build()) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("add", {"a": 2, "b": 40})
        assert result.structured_content == {"result": 42}
        with pytest.raises(InvalidParams):
            await client.call_tool("missing_tool", {})


async def test_client_without_handlers_gets_the_capability_error_in_2026() -> None:
    from mcpkit.protocol.errors import MissingRequiredClientCapability

    async with connect(build()) as client:
        with pytest.raises(MissingRequiredClientCapability):
            await client.call_tool("plan_trip", {"city": "Oslo"})


async def test_client_target_can_be_the_server_object() -> None:
    server = build()
    async with server.running(), Client(server, mode="legacy") as client:
        tools = await client.list_tools()
    assert sorted(t.name for t in tools) == ["add", "plan_trip"]

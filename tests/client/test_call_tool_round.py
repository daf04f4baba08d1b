"""``Client.call_tool_round``: a 2026 tool call one round at a time, its state kept by the
caller (what LangGraph's checkpoint keeps); ``answer_input_request`` answers with handlers."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mcpkit.client import InputRequired, UnsupportedInEra
from mcpkit.server import Context, Server
from mcpkit.testing import connect


def build(starts: list[int]) -> Server:
    server = Server("rounds", "1.0.0")

    @server.tool
    async def greet(name: str, ctx: Context) -> str:
        starts.append(1)
        answer = await ctx.elicit(
            "Title?", {"type": "object", "properties": {"t": {"type": "string"}}}
        )
        title = (answer.content or {}).get("t", "") if answer.accepted else "?"
        return f"Hello {title} {name}"

    return server


async def never(params: Any, ctx: Any) -> Any:
    raise AssertionError("call_tool_round must leave the questions to its caller")


async def test_a_round_returns_input_required_and_the_caller_continues_it() -> None:
    starts: list[int] = []
    async with connect(build(starts), mode="2026-07-28", elicitation_handler=never) as client:
        first = await client.call_tool_round("greet", {"name": "Ada"})
        assert isinstance(first, InputRequired)
        [(key, request)] = first.input_requests.items()
        assert request["method"] == "elicitation/create"
        assert request["params"]["message"] == "Title?"
        assert isinstance(first.request_state, str)
        saved = msgspec.json.encode(first)  # plain data: it can be stored anywhere
        restored = msgspec.json.decode(saved, type=InputRequired)
        done = await client.call_tool_round(
            "greet",
            {"name": "Ada"},
            input_responses={key: {"action": "accept", "content": {"t": "Dr"}}},
            request_state=restored.request_state,
        )
        assert not isinstance(done, InputRequired)
        assert done.content[0].text == "Hello Dr Ada"  # type: ignore[union-attr]
    assert len(starts) == 2


async def test_answer_input_request_uses_the_clients_handlers() -> None:
    async def handler(params: Any, ctx: Any) -> dict[str, Any]:
        assert ctx.asked_during == "tools/call"
        return {"action": "accept", "content": {"t": "Prof"}}

    async with connect(build([]), mode="2026-07-28", elicitation_handler=handler) as client:
        first = await client.call_tool_round("greet", {"name": "Bo"})
        assert isinstance(first, InputRequired)
        answers = {
            k: await client.answer_input_request(k, r) for k, r in first.input_requests.items()
        }
        assert list(answers.values()) == [{"action": "accept", "content": {"t": "Prof"}}]
        done = await client.call_tool_round(
            "greet", {"name": "Bo"}, input_responses=answers, request_state=first.request_state
        )
        assert done.content[0].text == "Hello Prof Bo"  # type: ignore[union-attr]


async def test_a_legacy_server_has_no_rounds() -> None:
    async with connect(build([]), mode="legacy", elicitation_handler=never) as client:
        with pytest.raises(UnsupportedInEra, match="call_tool with an elicitation_handler"):
            await client.call_tool_round("greet", {"name": "Cy"})

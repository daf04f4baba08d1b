"""Sampling answered by a LangChain chat model; the node helper's error mapping."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from mcpkit.contrib.langchain import ToolCallFailed, load_tools, sampling_options, tool_node
from mcpkit.contrib.langchain._sampling import to_messages
from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.testing import ERAS, connect

from ._servers import build


class ToolCallingFake(GenericFakeChatModel):
    """The scripted model, able to ``bind_tools`` (it records what it was offered)."""

    offered: list[Any] = []
    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.offered.extend(tools)
        return self

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self.seen.append(list(input))
        return await super().ainvoke(input, config, **kwargs)


@pytest.mark.parametrize("mode", ERAS)
async def test_sampling_with_tools_is_answered_by_the_chat_model(mode: str) -> None:
    call = {"name": "lookup", "args": {"q": "shoes"}, "id": "use-1", "type": "tool_call"}
    model = ToolCallingFake(
        messages=iter([AIMessage(content="", tool_calls=[call])]), offered=[], seen=[]
    )
    async with connect(build(), mode=mode, **sampling_options(model)) as client:
        result = await client.call_tool("ask_model", {"question": "find shoes"})
    assert json.loads(result.content[0].text) == {  # type: ignore[union-attr]
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "use-1", "name": "lookup", "input": {"q": "shoes"}}],
        "model": "ToolCallingFake",
        "stopReason": "toolUse",
    }
    assert model.offered[0]["function"]["name"] == "lookup"
    assert model.seen[0][0].content == "find shoes"


def test_sampling_messages_map_tool_use_and_results() -> None:
    messages = to_messages(
        {
            "systemPrompt": "be brief",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "u1", "name": "f", "input": {"x": 1}}],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "toolUseId": "u1",
                            "content": [{"type": "text", "text": "42"}],
                        }
                    ],
                },
            ],
        }
    )
    kinds = [type(m).__name__ for m in messages]
    assert kinds == ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage"]
    assert messages[2].tool_calls[0]["args"] == {"x": 1}  # type: ignore[attr-defined]
    assert messages[3].content == "42" and messages[3].tool_call_id == "u1"  # type: ignore[attr-defined]


class Sum(TypedDict, total=False):
    a: int
    total: Any


def sum_graph(client: Any, tool: str, **options: Any) -> Any:
    graph = StateGraph(Sum)
    graph.add_node(
        "sum",
        tool_node(
            client, tool, arguments=lambda s: {"a": s["a"], "b": 1}, result_key="total", **options
        ),
    )
    graph.add_edge(START, "sum")
    graph.add_edge("sum", END)
    return graph.compile()


@pytest.mark.parametrize("mode", ERAS)
async def test_tool_node_stores_the_structured_result(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert (await sum_graph(client, "add").ainvoke({"a": 41}))["total"] == 42


async def test_tool_node_maps_declared_errors_and_raises_the_rest() -> None:
    async with connect(build()) as client:
        graph = StateGraph(Sum)
        graph.add_node(
            "fail",
            tool_node(
                client,
                "fail",
                arguments=lambda s: {"reason": str(s["a"])},
                result_key="total",
                on_error={ToolCallFailed: lambda exc: f"default ({exc.text})"},
            ),
        )
        graph.add_edge(START, "fail")
        compiled = graph.compile()
        assert (await compiled.ainvoke({"a": 7}))["total"] == "default (refused: 7)"
        unmapped = tool_node(client, "fail", arguments=lambda s: {"reason": "x"}, result_key="t")
        with pytest.raises(ToolCallFailed, match="refused: x"):
            await unmapped({}, {})


@pytest.mark.parametrize("mode", ERAS)
async def test_not_found_is_the_same_typed_error_in_both_eras(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        node = tool_node(
            client,
            "lookup",
            arguments=lambda s: {"key": s["key"]},
            result_key="value",
            on_error={ResourceNotFound: "default"},
        )
        assert await node({"key": "missing"}, {}) == {"value": "default"}
        assert await node({"key": "known"}, {}) == {"value": "value"}
        unmapped = tool_node(client, "lookup", arguments=lambda s: {"key": "x"}, result_key="v")
        with pytest.raises(ResourceNotFound, match="no key 'x'"):
            await unmapped({}, {})
        tool = {t.name: t for t in await load_tools(client)}["lookup"]
        with pytest.raises(ResourceNotFound):
            await tool.ainvoke({"key": "gone"})

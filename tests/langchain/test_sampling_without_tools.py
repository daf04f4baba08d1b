"""Sampling with tools answered by a chat model that cannot bind tools (``bind_tools`` raises
``NotImplementedError`` in LangChain's base class): the tools are described in the prompt, or a
required tool call is refused in a clear result — never an exception out of the graph. Real
stdio server, inside a LangGraph agent loop."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from mcpkit.client import Host
from mcpkit.contrib.langchain import load_tools, sampling_options

from ._graphs import ask, tool_graph

SERVER = str(Path(__file__).with_name("sampling_server.py"))


class PlainFake(GenericFakeChatModel):
    """A scripted model without ``bind_tools``; records the prompts it was given."""

    seen: list[list[BaseMessage]] = []

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self.seen.append(list(input))
        return await super().ainvoke(input, config, **kwargs)


def host(model: Any) -> Host:
    entry = {"command": sys.executable, "args": [SERVER]}
    return Host(
        {"mcpServers": {"s": entry}},
        client_options={**sampling_options(model), "mode": "2026-07-28"},
    )


async def test_tools_are_described_in_the_prompt_for_a_model_without_bind_tools() -> None:
    model = PlainFake(messages=iter([AIMessage(content="Try lookup('shoes').")]), seen=[])
    async with host(model) as the_host:
        graph = tool_graph(await load_tools(the_host))
        state = await graph.ainvoke(ask("ask_model", question="find shoes"))
    message = state["messages"][-1]
    assert isinstance(message, ToolMessage) and message.status == "success"
    answer = json.loads(str(message.content))
    assert answer["stopReason"] == "endTurn"
    assert answer["content"] == {"type": "text", "text": "Try lookup('shoes')."}
    system = model.seen[0][0]
    assert system.type == "system"
    assert "lookup: Find a product by name." in str(system.content)
    assert '"q"' in str(system.content)  # the input schema too


async def test_a_required_tool_call_is_refused_clearly() -> None:
    model = PlainFake(messages=iter([AIMessage(content="unused")]), seen=[])
    async with host(model) as the_host:
        graph = tool_graph(await load_tools(the_host))
        state = await graph.ainvoke(ask("must_use", question="find shoes"))
    answer = json.loads(str(state["messages"][-1].content))
    assert answer["stopReason"] == "refusal"
    assert "cannot call tools" in answer["content"]["text"]
    assert model.seen == []  # the model was not asked for what it cannot do

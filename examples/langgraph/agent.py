"""An agent loop over the four servers: a chat model picks tools, a ``ToolNode`` runs them.

The model here is scripted (langchain-core's ``GenericFakeChatModel``: no network, the same
choices every run), so the loop is reproducible; put a real chat model in its place and
``bind_tools(tools)`` it. The tools are every server's, namespaced (``catalog__search`` …), and
the ranking server's ``explain`` asks *its* question back through sampling, answered by a
second scripted model.

Run it: ``python examples/langgraph/agent.py``.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from mcpkit.client import Host
from mcpkit.contrib.langchain import GraphBridge, load_tools, sampling_options


def call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def script() -> list[AIMessage]:
    """What the scripted model says, turn by turn."""
    return [
        AIMessage(
            content="",
            tool_calls=[
                call("profile__get_user", "c1", user_id="u1"),
                call("catalog__search", "c2", query="跑步鞋", max_price=1000),
            ],
        ),
        AIMessage(
            content="", tool_calls=[call("inventory__get_stock", "c3", product_id="nike-air-max")]
        ),
        AIMessage(
            content="",
            tool_calls=[
                call("ranking__rank", "c4", budget=1000, candidates=[]),
                call(
                    "ranking__rank",
                    "c5",
                    budget=1000,
                    candidates=[{"id": "nike-air-max", "price": 899, "stock": 12}],
                ),
                call("ranking__explain", "c6", product_id="nike-air-max"),
            ],
        ),
        AIMessage(content="Nike Air Max (899 CNY, 12 in stock) fits 李伟's budget."),
    ]


def sampler_model() -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(["Air cushioning for long runs, under budget."]))


def build_agent(tools: Sequence[Any], model: Any) -> Any:
    async def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(list(tools)))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


async def run(config: dict[str, Any]) -> list[BaseMessage]:
    bridge = GraphBridge()
    options = {**bridge.client_options(), **sampling_options(sampler_model())}
    async with Host(config, namespacing="always", client_options=options) as host:
        tools = await load_tools(host, bridge=bridge)
        agent = build_agent(tools, GenericFakeChatModel(messages=iter(script())))
        state = await agent.ainvoke({"messages": [HumanMessage("Running shoes for u1?")]})
        return list(state["messages"])


async def main() -> None:
    from servers import running_servers

    with tempfile.TemporaryDirectory() as data:
        async with running_servers(Path(data)) as config:
            for message in await run(config):
                message.pretty_print()


if __name__ == "__main__":
    asyncio.run(main())

"""Small graphs the bridge tests drive."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


def tool_graph(tools: Sequence[Any], checkpointer: Any = None) -> Any:
    """START -> ToolNode: runs the tool calls of the last AI message."""
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(list(tools)))
    graph.add_edge(START, "tools")
    return graph.compile(checkpointer=checkpointer)


def ask(name: str, **args: Any) -> dict[str, Any]:
    """A state whose last message asks for one tool call."""
    call = {"name": name, "args": args, "id": f"call-{name}", "type": "tool_call"}
    return {"messages": [AIMessage(content="", tool_calls=[call])]}


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}

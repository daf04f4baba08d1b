"""In an agent loop (LangGraph's default ``ToolNode``), what the model can fix reaches it as an
error tool message — bad arguments, a missing resource, a result breaking its schema — as the
server's own ``isError`` does, instead of ending the run. Real stdio server, both eras."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from mcpkit.client import Host, InputValidationError, OutputValidationError
from mcpkit.contrib.langchain import load_tools
from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.testing import ERAS

from ._graphs import tool_graph

SERVER = str(Path(__file__).with_name("errors_server.py"))
CALLS = [
    ("add", {"a": 1, "b": "two"}),
    ("lookup", {"key": "gone"}),
    ("stock", {"item": "watch"}),
    ("refuse", {"reason": "closed"}),
    ("add", {"a": 2, "b": 3}),
]


def turn() -> dict[str, Any]:
    calls = [
        {"name": name, "args": args, "id": f"c{i}", "type": "tool_call"}
        for i, (name, args) in enumerate(CALLS)
    ]
    return {"messages": [AIMessage(content="", tool_calls=calls)]}


@pytest.mark.parametrize("mode", ERAS)
async def test_errors_a_model_can_act_on_are_error_tool_messages(mode: str) -> None:
    entry = {"command": sys.executable, "args": [SERVER]}
    async with Host({"mcpServers": {"f": entry}}, client_options={"mode": mode}) as host:
        graph = tool_graph(await load_tools(host))
        state = await graph.ainvoke(turn())
    results = {m.tool_call_id: m for m in state["messages"] if isinstance(m, ToolMessage)}
    assert [results[f"c{i}"].status for i in range(5)] == ["error"] * 4 + ["success"]
    assert "`b`: expected an integer" in results["c0"].content
    assert "no key 'gone'" in results["c1"].content
    assert "$.stock" in results["c2"].content
    assert results["c3"].content == "refused: closed"
    assert results["c4"].content == "5"


async def test_errors_to_model_false_raises_the_typed_errors() -> None:
    entry = {"command": sys.executable, "args": [SERVER]}
    async with Host({"mcpServers": {"f": entry}}) as host:
        tools = {t.name: t for t in await load_tools(host, errors_to_model=False)}
        graph = tool_graph(list(tools.values()))
        for (name, args), error in zip(
            CALLS[:3], (InputValidationError, ResourceNotFound, OutputValidationError), strict=True
        ):
            call = {"name": name, "args": args, "id": "c", "type": "tool_call"}
            with pytest.raises(error):
                await graph.ainvoke({"messages": [AIMessage(content="", tool_calls=[call])]})
        with pytest.raises(InputValidationError):  # a direct call (no model) always raises
            await (await load_tools(host))[0].ainvoke({"a": 1, "b": "two"})

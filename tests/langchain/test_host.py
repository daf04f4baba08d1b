"""Tools from a ``Host``: names and filters are the host's, and every call reuses the host's
one connection per server (a real stdio child per server, never one per call)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpkit.client import Host, ServerUnavailable, ToolFilter
from mcpkit.contrib.langchain import GraphBridge, load_tools

from ._graphs import ask, tool_graph

SERVER = str(Path(__file__).with_name("pid_server.py"))


def entry(*flags: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [SERVER, *flags]}


async def test_calls_reuse_one_connection_per_server_with_host_names_and_filters() -> None:
    bridge = GraphBridge()
    config = {"mcpServers": {"a": entry(), "b": entry()}}
    async with Host(
        config,
        namespacing="always",
        filters={"b": ToolFilter.read_only()},
        client_options=bridge.client_options(),
    ) as host:
        tools = {t.name: t for t in await load_tools(host, bridge=bridge)}
        assert sorted(tools) == ["a__whoami", "a__wipe", "b__whoami"]  # b's wipe filtered out
        pids_a = {await tools["a__whoami"].ainvoke({}) for _ in range(3)}
        pids_b = {await tools["b__whoami"].ainvoke({}) for _ in range(3)}
        graph = tool_graph(list(tools.values()))
        for _ in range(2):
            state = await graph.ainvoke(ask("a__whoami"))
            pids_a.add(state["messages"][-1].content)
        assert len(pids_a) == 1 and len(pids_b) == 1  # one process each, all calls
        assert pids_a != pids_b
        assert tools["a__whoami"].mcp_server == "a" and tools["a__whoami"].mcp_tool == "whoami"


async def test_a_stopped_server_fails_fast_with_the_typed_error() -> None:
    async with Host({"mcpServers": {"a": entry()}}, restart=False) as host:
        tool = (await load_tools(host))[0]
        await host.servers["a"].stop()
        with pytest.raises(ServerUnavailable):
            await tool.ainvoke({})

"""Logs and progress name the server, the tool and the ``tool_call_id`` they belong to, with
several calls open on two real stdio servers: no log is dropped, none is put under another
server's call."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from mcpkit.client import Host
from mcpkit.contrib.langchain import GraphBridge, load_tools
from mcpkit.testing import ERAS

from ._graphs import tool_graph

SERVER = str(Path(__file__).with_name("log_server.py"))


def calls(*specs: tuple[str, str, int]) -> dict[str, Any]:
    """One AI message asking for several calls: (tool, tag, n)."""
    tool_calls = [
        {"name": name, "args": {"tag": tag, "n": n}, "id": f"call-{tag}", "type": "tool_call"}
        for name, tag, n in specs
    ]
    return {"messages": [AIMessage(content="", tool_calls=tool_calls)]}


@pytest.mark.parametrize("mode", ERAS)
async def test_logs_and_progress_carry_their_call_with_several_open(mode: str) -> None:
    bridge = GraphBridge()
    entry = {"command": sys.executable, "args": [SERVER]}
    async with Host(
        {"mcpServers": {"a": entry, "b": entry}},
        namespacing="always",
        client_options={**bridge.client_options(), "mode": mode},
    ) as host:
        for name in ("a", "b"):
            await host.client(name).set_logging_level("info")
        graph = tool_graph(await load_tools(host, bridge=bridge))
        request = calls(("a__hold", "a1", 2), ("a__hold", "a2", 2), ("b__hold", "b1", 1))
        events = [e async for e in graph.astream(request, stream_mode="custom")]
    logs = [e for e in events if e["type"] == "mcp_log"]
    # Every log streamed (three calls open at once: none dropped) ...
    assert sorted(e["data"] for e in logs) == sorted(
        f"{tag} {what}" for tag in ("a1", "a2", "b1") for what in ("started", "done")
    )
    for event in logs:
        tag = event["data"].split()[0]
        assert event["server"] == tag[0]  # ... under the server that sent it
        assert event["tool_call_id"] in (f"call-{tag}", None)  # never another call's id
        if event["tool_call_id"] is not None:
            assert event["tool"] == "hold"
    # Over stdio a log carries no link to its request (either era): with two of a's calls open
    # it streams under a's name, its call unknown.
    b_logs = [e for e in logs if e["server"] == "b"]
    assert {e["tool_call_id"] for e in b_logs} == {"call-b1"}  # b had one call open: its own
    progress = [e for e in events if e["type"] == "mcp_progress"]
    assert sorted((e["server"], e["tool_call_id"], e["message"]) for e in progress) == [
        ("a", "call-a1", "a1"),
        ("a", "call-a2", "a2"),
        ("b", "call-b1", "b1"),
    ]

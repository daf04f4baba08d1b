"""A server's questions become LangGraph interrupts; resuming answers them (both eras)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from mcpkit.contrib.langchain import (
    GraphBridge,
    PendingState,
    answer_from_resume,
    load_tools,
    question_payload,
    tool_node,
)
from mcpkit.testing import ERAS, connect

from ._graphs import ask, thread, tool_graph
from ._servers import build


def only_interrupt(state: dict[str, Any]) -> dict[str, Any]:
    interrupts = state.get("__interrupt__") or []
    assert len(interrupts) == 1, state
    value: dict[str, Any] = interrupts[0].value
    return value


@pytest.mark.parametrize("mode", ERAS)
async def test_questions_interrupt_and_resume_in_process(mode: str) -> None:
    starts: list[str] = []
    bridge = GraphBridge()
    async with connect(build(starts), mode=mode, **bridge.client_options()) as client:
        graph = tool_graph(await load_tools(client, bridge=bridge), InMemorySaver())
        config = thread("t")
        first = only_interrupt(await graph.ainvoke(ask("order", product="shoe"), config))
        assert first["type"] == "mcp_elicitation"
        assert first["message"] == "How many?"
        assert first["defaults"] == {"quantity": 1}
        assert first["requested_schema"]["properties"]["quantity"]["type"] == "integer"
        assert bridge.parked == 1
        second = only_interrupt(await graph.ainvoke(Command(resume={"quantity": 3}), config))
        assert second["message"] == "Where to?"
        assert "address" in second["requested_schema"]["required"]
        state = await graph.ainvoke(Command(resume={"address": "Oslo"}), config)
        message = state["messages"][-1]
        assert message.artifact["structured_content"] == {
            "product": "shoe",
            "quantity": 3,
            "address": "Oslo",
        }
        assert bridge.parked == 0
    # The parked call itself was answered: legacy kept one request open the whole time; 2026
    # made one retry per answer (re-issuing the call on each resume would run it 5 times).
    assert starts == ["shoe"] * (1 if mode == "legacy" else 3)


@pytest.mark.parametrize("mode", ERAS)
async def test_after_a_restart_the_call_is_made_again_and_answers_replay(mode: str) -> None:
    saver = InMemorySaver()
    config = thread("r")
    starts: list[str] = []
    server = build(starts)
    bridge = GraphBridge()
    async with connect(server, mode=mode, **bridge.client_options()) as client:
        graph = tool_graph(await load_tools(client, bridge=bridge), saver)
        only_interrupt(await graph.ainvoke(ask("order", product="shoe"), config))
        only_interrupt(await graph.ainvoke(Command(resume={"quantity": 2}), config))
    restarted = GraphBridge()  # a new process: nothing parked, a new connection
    async with connect(server, mode=mode, **restarted.client_options()) as client:
        graph = tool_graph(await load_tools(client, bridge=restarted), saver)
        state = await graph.ainvoke(Command(resume={"address": "Lima"}), config)
        assert state["messages"][-1].artifact["structured_content"] == {
            "product": "shoe",
            "quantity": 2,
            "address": "Lima",
        }
        assert restarted.parked == 0


@pytest.mark.parametrize("mode", ERAS)
async def test_progress_and_logs_stream_as_custom_events(mode: str) -> None:
    bridge = GraphBridge()
    async with connect(build(), mode=mode, **bridge.client_options()) as client:
        await client.set_logging_level("info")
        graph = tool_graph(await load_tools(client, bridge=bridge), InMemorySaver())
        config = thread("s")
        events = [
            e
            async for e in graph.astream(ask("order", product="hat"), config, stream_mode="custom")
        ]
        assert {
            "type": "mcp_progress",
            "server": client.name,
            "tool": "order",
            "tool_call_id": "call-order",
            "progress": 0,
            "total": 2,
            "message": "asking",
        } in events
        logs = [e for e in events if e["type"] == "mcp_log"]
        assert logs and logs[0]["level"] == "info" and logs[0]["data"] == "ordering hat"
        assert logs[0]["tool_call_id"] == "call-order" and logs[0]["server"] == client.name
        await bridge.aclose()


@pytest.mark.parametrize("mode", ERAS)
async def test_declining_and_closing_the_bridge_answer_the_server(mode: str) -> None:
    bridge = GraphBridge()
    async with connect(build(), mode=mode, **bridge.client_options()) as client:
        graph = tool_graph(await load_tools(client, bridge=bridge), InMemorySaver())
        only_interrupt(await graph.ainvoke(ask("order", product="a"), thread("d")))
        state = await graph.ainvoke(Command(resume="decline"), thread("d"))
        assert state["messages"][-1].content == "cancelled"
        only_interrupt(await graph.ainvoke(ask("order", product="b"), thread("e")))
        assert bridge.parked == 1
        await bridge.aclose()
        assert bridge.parked == 0
        assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}


class OrderState(PendingState, total=False):
    product: str
    total: dict[str, Any]


def order_graph(source: Any, bridge: GraphBridge, saver: Any) -> Any:
    graph = StateGraph(OrderState)
    graph.add_node(
        "order",
        tool_node(
            source,
            "order",
            arguments=lambda s: {"product": s["product"]},
            result_key="total",
            bridge=bridge,
            then=END,
        ),
        destinations=("order", END),
    )
    graph.add_edge(START, "order")
    return graph.compile(checkpointer=saver)


async def test_tool_node_keeps_the_2026_request_state_in_the_graph_state() -> None:
    starts: list[str] = []
    server = build(starts)
    saver = InMemorySaver()
    config = thread("n")
    bridge = GraphBridge()
    async with connect(server, mode="2026-07-28", **bridge.client_options()) as client:
        graph = order_graph(client, bridge, saver)
        assert only_interrupt(await graph.ainvoke({"product": "kite"}, config))["message"] == (
            "How many?"
        )
        pending = (await graph.aget_state(config)).values["mcp_pending"]
        assert pending["node"] == "order" and pending["arguments"] == {"product": "kite"}
        assert isinstance(pending["request_state"], str) and pending["request_state"]
        assert bridge.parked == 0  # nothing lives in memory: it is all in the checkpoint
    restarted = GraphBridge()
    async with connect(server, mode="2026-07-28", **restarted.client_options()) as client:
        graph = order_graph(client, restarted, saver)
        assert (
            only_interrupt(await graph.ainvoke(Command(resume={"quantity": 4}), config))["message"]
            == "Where to?"
        )
        state = await graph.ainvoke(Command(resume={"address": "Rome"}), config)
        assert state["total"] == {"product": "kite", "quantity": 4, "address": "Rome"}
        assert state["mcp_pending"] is None
    # First call, then one retry per answer, each with the stored requestState: never re-issued.
    assert starts == ["kite"] * 3


async def test_tool_node_with_a_legacy_server_keeps_the_session_request_open() -> None:
    starts: list[str] = []
    bridge = GraphBridge()
    async with connect(build(starts), mode="legacy", **bridge.client_options()) as client:
        graph = order_graph(client, bridge, InMemorySaver())
        config = thread("l")
        only_interrupt(await graph.ainvoke({"product": "cap"}, config))
        only_interrupt(await graph.ainvoke(Command(resume={"quantity": 1}), config))
        state = await graph.ainvoke(Command(resume={"address": "Bern", "express": True}), config)
        assert state["total"] == {"product": "cap", "quantity": 1, "address": "Bern"}
    assert starts == ["cap"]


def test_resume_values_map_to_elicitation_answers() -> None:
    assert answer_from_resume({"city": "Oslo"}) == {"action": "accept", "content": {"city": "Oslo"}}
    assert answer_from_resume({"action": "cancel"}) == {"action": "cancel"}
    assert answer_from_resume("decline") == {"action": "decline"}
    assert answer_from_resume(False) == {"action": "decline"}
    assert answer_from_resume(True) == {"action": "accept"}
    with pytest.raises(TypeError, match="resume an MCP question"):
        answer_from_resume(42)


def test_url_questions_carry_the_url() -> None:
    payload = question_payload(
        "auth",
        "connect",
        {"mode": "url", "message": "Sign in", "url": "https://example.com/x", "elicitationId": "e"},
    )
    assert payload == {
        "type": "mcp_elicitation",
        "server": "auth",
        "tool": "connect",
        "mode": "url",
        "message": "Sign in",
        "url": "https://example.com/x",
        "elicitation_id": "e",
    }


@pytest.mark.parametrize("mode", ERAS)
async def test_a_sync_graph_interrupts_and_resumes_too(mode: str) -> None:
    """``graph.invoke`` from a worker thread: the tools run on the connections' loop, with the
    node's LangGraph context, so questions still become interrupts."""
    bridge = GraphBridge()
    async with connect(build(), mode=mode, **bridge.client_options()) as client:
        graph = tool_graph(await load_tools(client, bridge=bridge), InMemorySaver())
        config = thread("sync")
        first = await asyncio.to_thread(graph.invoke, ask("order", product="x"), config)
        assert only_interrupt(first)["message"] == "How many?"
        second = await asyncio.to_thread(graph.invoke, Command(resume={"quantity": 2}), config)
        assert only_interrupt(second)["message"] == "Where to?"
        state = await asyncio.to_thread(graph.invoke, Command(resume={"address": "Oslo"}), config)
        assert state["messages"][-1].artifact["structured_content"] == {
            "product": "x",
            "quantity": 2,
            "address": "Oslo",
        }

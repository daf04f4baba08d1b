"""Resumes that cannot get stuck and answers bound to their question, across real restarts.

The server is a stdio child (``price_server.py``); "a restart" is a new child, a new client
and a new ``GraphBridge`` over the same checkpointer, as after the application's own restart.
A 2026 child makes a new random ``requestState`` key, so a state kept from before the restart
is refused as ``unknown key``; the HTTP test makes a state expire (its lifetime set tiny for one
round) instead of waiting 15 minutes.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from _loopback import serving
from mcpkit.client import Client, Host
from mcpkit.contrib.langchain import GraphBridge, PendingState, load_tools, tool_node
from mcpkit.server._request_state import DEFAULT_STATE_TTL, RequestStateSealer
from mcpkit.testing import ERAS

from ._graphs import ask, thread, tool_graph
from .price_server import build

SERVER = Path(__file__).with_name("price_server.py")


@contextlib.asynccontextmanager
async def shop(mode: str, price: int, starts: Path, bridge: GraphBridge) -> AsyncIterator[Client]:
    """One run of the stdio shop at ``price``: a child process and its client."""
    entry = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"PRICE": str(price), "STARTS": str(starts)},
    }
    options = {**bridge.client_options(), "mode": mode}
    async with Host({"mcpServers": {"shop": entry}}, client_options=options) as host:
        yield host.client("shop")


def only_interrupt(state: dict[str, Any]) -> dict[str, Any]:
    interrupts = state.get("__interrupt__") or []
    assert len(interrupts) == 1, state
    value: dict[str, Any] = interrupts[0].value
    return value


@pytest.mark.parametrize("mode", ERAS)
async def test_a_changed_question_after_a_restart_interrupts_again(
    mode: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """ToolNode: consent given to "Pay 10" is not replayed onto "Pay 12"."""
    saver, config, starts = InMemorySaver(), thread("price"), tmp_path / "starts"
    bridge = GraphBridge()
    async with shop(mode, 10, starts, bridge) as client:
        graph = tool_graph(await load_tools(client, bridge=bridge), saver)
        first = only_interrupt(await graph.ainvoke(ask("buy", item="kite"), config))
        assert first["message"] == "Pay 10 for a kite?"
        assert "call_made_again" not in first
    restarted = GraphBridge()
    async with shop(mode, 12, starts, restarted) as client:
        graph = tool_graph(await load_tools(client, bridge=restarted), saver)
        again = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert again["message"] == "Pay 12 for a kite?"  # not "Where to?": asked again
        assert again["question_ids"][0] == first["question_ids"][0]  # index 0: the old one
        assert len(again["question_ids"]) == 2
        made_again = [r for r in caplog.records if "call is made again" in r.getMessage()]
        if mode == "legacy":  # the call itself was made again: the user is told, twice over
            assert again["call_made_again"] is True
            assert made_again and made_again[0].levelno == logging.WARNING
        else:  # a 2026 retry re-runs the tool by design: nothing to warn about
            assert "call_made_again" not in again and not made_again
        where = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert where["message"] == "Where to?"
        state = await graph.ainvoke(Command(resume={"address": "Oslo"}), config)
        assert state["messages"][-1].artifact["structured_content"] == {
            "item": "kite",
            "paid": 12,
            "address": "Oslo",
        }


@pytest.mark.parametrize("mode", ERAS)
async def test_the_same_question_after_a_restart_replays_its_answer(
    mode: str, tmp_path: Path
) -> None:
    saver, config, starts = InMemorySaver(), thread("same"), tmp_path / "starts"
    bridge = GraphBridge()
    async with shop(mode, 10, starts, bridge) as client:
        graph = tool_graph(await load_tools(client, bridge=bridge), saver)
        only_interrupt(await graph.ainvoke(ask("buy", item="cap"), config))
    restarted = GraphBridge()
    async with shop(mode, 10, starts, restarted) as client:
        graph = tool_graph(await load_tools(client, bridge=restarted), saver)
        where = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert where["message"] == "Where to?"  # the consent was for this very question
        state = await graph.ainvoke(Command(resume={"address": "Bern"}), config)
        assert state["messages"][-1].artifact["structured_content"]["paid"] == 10


class BuyState(PendingState, total=False):
    item: str
    receipt: dict[str, Any]


def buy_graph(source: Any, bridge: GraphBridge, saver: Any) -> Any:
    graph = StateGraph(BuyState)
    graph.add_node(
        "buy",
        tool_node(
            source,
            "buy",
            arguments=lambda s: {"item": s["item"]},
            result_key="receipt",
            bridge=bridge,
            then=END,
        ),
        destinations=("buy", END),
    )
    graph.add_edge(START, "buy")
    return graph.compile(checkpointer=saver)


async def test_tool_node_after_a_restart_is_not_stuck_on_an_unknown_key(tmp_path: Path) -> None:
    """The state kept in the checkpoint was signed by the old child's key: the restarted child
    refuses it (``unknown key``); the node calls again and replays the same question's answer."""
    saver, config, starts = InMemorySaver(), thread("key"), tmp_path / "starts"
    bridge = GraphBridge()
    async with shop("2026-07-28", 10, starts, bridge) as client:
        graph = buy_graph(client, bridge, saver)
        only_interrupt(await graph.ainvoke({"item": "kite"}, config))
        where = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert where["message"] == "Where to?"
    restarted = GraphBridge()
    async with shop("2026-07-28", 10, starts, restarted) as client:
        graph = buy_graph(client, restarted, saver)
        state = await graph.ainvoke(Command(resume={"address": "Rome"}), config)
        assert state["receipt"] == {"item": "kite", "paid": 10, "address": "Rome"}
        assert state["mcp_pending"] is None
        # Resuming once more is harmless: the thread is done, not stuck.
        assert (await graph.aget_state(config)).next == ()


async def test_tool_node_after_a_restart_asks_a_changed_question(tmp_path: Path) -> None:
    saver, config, starts = InMemorySaver(), thread("changed"), tmp_path / "starts"
    bridge = GraphBridge()
    async with shop("2026-07-28", 10, starts, bridge) as client:
        graph = buy_graph(client, bridge, saver)
        first = only_interrupt(await graph.ainvoke({"item": "kite"}, config))
        assert first["message"] == "Pay 10 for a kite?"
    restarted = GraphBridge()
    async with shop("2026-07-28", 12, starts, restarted) as client:
        graph = buy_graph(client, restarted, saver)
        again = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert again["message"] == "Pay 12 for a kite?"
        where = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert where["message"] == "Where to?"
        state = await graph.ainvoke(Command(resume={"address": "Lima"}), config)
        assert state["receipt"] == {"item": "kite", "paid": 12, "address": "Lima"}


async def test_tool_node_resumed_after_the_state_expired_calls_again(tmp_path: Path) -> None:
    """Over HTTP: the user answers after the server's ``requestState`` lifetime. Before, the
    node failed with ``Invalid requestState: expired`` on this resume and on every later one."""
    starts = tmp_path / "starts"
    server = build(10, str(starts))
    server.state_sealer = RequestStateSealer([b"k" * 32], ttl_seconds=1e-9)  # expires at once
    saver, config, bridge = InMemorySaver(), thread("expired"), GraphBridge()
    async with (
        serving(server.http_app()) as base,
        Client(f"{base}/mcp", mode="2026-07-28", **bridge.client_options()) as client,
    ):
        graph = buy_graph(client, bridge, saver)
        first = only_interrupt(await graph.ainvoke({"item": "kite"}, config))
        assert first["message"] == "Pay 10 for a kite?"
        server.state_sealer.ttl_seconds = DEFAULT_STATE_TTL  # states made from now on live
        where = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert where["message"] == "Where to?"  # the same question's answer was replayed
        state = await graph.ainvoke(Command(resume={"address": "Kyiv"}), config)
        assert state["receipt"] == {"item": "kite", "paid": 10, "address": "Kyiv"}
    # first round; the refused retry never starts the body; the fresh call; two retries
    assert starts.read_text().split() == ["kite"] * 4


async def test_a_parked_call_whose_state_expired_asks_again(tmp_path: Path) -> None:
    """ToolNode over HTTP: the answer comes after the state's lifetime; the client calls again
    and the question is asked again (not a failed tool message, not a stuck thread)."""
    server = build(10)
    server.state_sealer = RequestStateSealer([b"k" * 32], ttl_seconds=1e-9)
    saver, config, bridge = InMemorySaver(), thread("parked"), GraphBridge()
    async with (
        serving(server.http_app()) as base,
        Client(f"{base}/mcp", mode="2026-07-28", **bridge.client_options()) as client,
    ):
        graph = tool_graph(await load_tools(client, bridge=bridge), saver)
        only_interrupt(await graph.ainvoke(ask("buy", item="kite"), config))
        server.state_sealer.ttl_seconds = DEFAULT_STATE_TTL
        again = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert again["message"] == "Pay 10 for a kite?"
        where = only_interrupt(await graph.ainvoke(Command(resume={"ok": True}), config))
        assert where["message"] == "Where to?"
        state = await graph.ainvoke(Command(resume={"address": "Riga"}), config)
        assert state["messages"][-1].artifact["structured_content"]["address"] == "Riga"
        assert bridge.parked == 0

"""The three LangGraph flows of ``examples/langgraph`` against the real example servers:
stdio children and HTTP servers on loopback, both protocol eras, real langgraph/langchain-core.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sqlite3
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from mcpkit.client import Host, OutputValidationError
from mcpkit.contrib.langchain import GraphBridge

EXAMPLE: Final = Path(__file__).resolve().parents[2] / "examples" / "langgraph"
PROCESS_TIMEOUT: Final = 60.0
"""Seconds one run of ``order.py`` may take (it starts Python, langgraph and a server)."""

pytestmark = pytest.mark.timeout(180)


def load(name: str) -> ModuleType:
    """An example module under a name no other test uses."""
    spec = importlib.util.spec_from_file_location(
        f"langgraph_example_{name}", EXAMPLE / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # typing (LangGraph reads the state's hints) looks there
    spec.loader.exec_module(module)
    return module


servers = load("servers")
workflow = load("workflow")
agent = load("agent")


async def test_workflow_one_node_per_server(tmp_path: Path) -> None:
    bridge = GraphBridge()
    async with (
        servers.running_servers(tmp_path) as config,
        Host(config, namespacing="always", client_options=bridge.client_options()) as host,
    ):
        status = host.status()
        assert {name: (row["state"], row["era"]) for name, row in status.items()} == {
            "profile": ("ready", "legacy"),
            "catalog": ("ready", "modern"),
            "inventory": ("ready", "modern"),
            "ranking": ("ready", "legacy"),
        }
        graph = workflow.build_workflow(host, bridge)

        state = await graph.ainvoke({"user_id": "u1", "query": "跑步鞋"})
        assert state["user"]["budget"] == 1000.0
        assert [c["id"] for c in state["candidates"]] == ["nike-air-max"]
        assert state["stock"] == {"product_id": "nike-air-max", "stock": 12, "warehouse": "SH-1"}
        assert state["ranked"][0]["id"] == "nike-air-max"
        assert state["ranked"][0]["reason"] == "in stock, within budget"

        # Not found, mapped: an unknown user shops as the guest (budget 3000).
        state = await graph.ainvoke({"user_id": "u404", "query": "running shoes"})
        assert state["user"] == workflow.GUEST
        assert [c["id"] for c in state["candidates"]] == [
            "nike-air-max",
            "asics-gel-kayano",
            "adidas-ultraboost",
        ]

        # The inventory feed's answer violates its output schema: caught at the node, named.
        with pytest.raises(OutputValidationError) as caught:
            await graph.ainvoke({"user_id": "u404", "query": "手表"})
        assert caught.value.path == "$.stock"
        assert "'unknown' is not of type 'integer'" in str(caught.value)


async def test_agent_loop_picks_tools_across_the_four_servers(tmp_path: Path) -> None:
    async with servers.running_servers(tmp_path) as config:
        messages = await agent.run(config)
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    assert json.loads(str(results["c1"].content))["name"] == "李伟 Li Wei"
    assert results["c2"].artifact["structured_content"]["result"][0]["id"] == "nike-air-max"
    assert json.loads(str(results["c3"].content))["stock"] == 12
    assert results["c4"].status == "error"
    assert results["c4"].content == "no candidates to rank: search the catalogue first"
    assert json.loads(str(results["c5"].content))[0]["reason"] == "in stock, within budget"
    assert results["c6"].content == "Air cushioning for long runs, under budget."  # sampling
    assert isinstance(messages[-1], AIMessage) and "Nike Air Max" in str(messages[-1].content)


async def run_order(*args: str) -> dict[str, Any]:
    """One run of ``order.py`` in its own process; its JSON line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE / "order.py"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), PROCESS_TIMEOUT)
    assert process.returncode == 0, err.decode()[-3000:]
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


def inventory(data: Path) -> tuple[list[tuple[Any, ...]], int, int]:
    """Orders, the Nike's stock, and how often place_order's body started."""
    db = sqlite3.connect(data / "inventory-v1.sqlite")
    try:
        orders = db.execute("SELECT product_id, quantity, address, total FROM orders").fetchall()
        (stock,) = db.execute("SELECT stock FROM stock WHERE id = 'nike-air-max'").fetchone()
        (starts,) = db.execute("SELECT count(*) FROM calls").fetchone()
    finally:
        db.close()
    return orders, stock, starts


async def pending_state(db: Path, thread: str) -> Any:
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        saved = await saver.aget_tuple({"configurable": {"thread_id": thread}})
    assert saved is not None
    return saved.checkpoint["channel_values"].get("mcp_pending")


def check_question(value: dict[str, Any]) -> None:
    assert value["type"] == "mcp_elicitation"
    assert value["server"] == "inventory" and value["tool"] == "place_order"
    assert value["message"] == "How many nike-air-max (in stock: 12), and where to?"
    assert value["requested_schema"]["required"] == ["address"]
    assert value["defaults"] == {"quantity": 1}


async def test_order_interrupts_and_resumes_in_a_new_process_2026_http(tmp_path: Path) -> None:
    db = tmp_path / "checkpoints.sqlite"
    async with servers.http_server("inventory_server.py", tmp_path) as url:
        common = ("--db", str(db), "--thread", "t1", "--url", url)
        asked = await run_order("start", *common)
        check_question(asked["interrupt"])
        pending = await pending_state(db, "t1")  # between the processes: in the checkpoint
        assert pending["tool"] == "place_order" and pending["arguments"] == {
            "product_id": "nike-air-max"
        }
        assert isinstance(pending["request_state"], str) and pending["request_state"]
        answer = json.dumps({"quantity": 2, "address": "上海市 1 号"}, ensure_ascii=False)
        done = await run_order("resume", *common, "--answer", answer)
    assert done["order"] == {
        "order_id": 1,
        "product_id": "nike-air-max",
        "quantity": 2,
        "address": "上海市 1 号",
        "total": 1798.0,
    }
    orders, stock, starts = inventory(tmp_path)
    assert orders == [("nike-air-max", 2, "上海市 1 号", 1798.0)]
    assert stock == 10
    assert starts == 2  # the first call and the retry with the stored requestState; no re-issue
    assert await pending_state(db, "t1") is None


async def test_order_interrupts_and_resumes_in_a_new_process_legacy_stdio(
    tmp_path: Path,
) -> None:
    db = tmp_path / "checkpoints.sqlite"
    common = ("--db", str(db), "--thread", "t2", "--legacy", "--data", str(tmp_path))
    asked = await run_order("start", *common)
    check_question(asked["interrupt"])
    orders, _, _ = inventory(tmp_path)
    assert orders == []  # the first process's session died with it, before any order
    done = await run_order("resume", *common, "--answer", '{"address": "Oslo"}')
    assert done["order"]["quantity"] == 1  # the schema's default filled in
    assert done["order"]["address"] == "Oslo"
    orders, stock, starts = inventory(tmp_path)
    assert orders == [("nike-air-max", 1, "Oslo", 899.0)]
    assert stock == 11
    assert starts == 2  # a legacy session cannot outlive its process: the call is made again

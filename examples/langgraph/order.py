"""Order placement that pauses for the user and survives a restart.

The inventory server's ``place_order`` asks for the quantity and address. The graph turns that
question into a LangGraph interrupt; the process can then exit. Later — another process, the
same SQLite checkpoint file — the graph resumes with the answer and the order is placed::

    python examples/langgraph/order.py start  --db orders.sqlite --thread t1 --url URL
    python examples/langgraph/order.py resume --db orders.sqlite --thread t1 --url URL \\
        --answer '{"quantity": 2, "address": "上海市 1 号"}'

``--url`` is the inventory server (HTTP, 2026-07-28: the round's ``requestState`` is kept in
the graph's state and sent back on resume); ``--legacy`` starts it over stdio in the handshake
era instead (the session cannot outlive the process, so the call is made again on resume and
the stored answer replies to the repeated question). Each command prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from mcpkit.client import Host
from mcpkit.contrib.langchain import GraphBridge, PendingState, tool_node

HERE = Path(__file__).resolve().parent


class OrderState(PendingState, total=False):
    product_id: str
    order: dict[str, Any]


def build_order_graph(host: Host, bridge: GraphBridge, checkpointer: Any) -> Any:
    graph = StateGraph(OrderState)
    graph.add_node(
        "order",
        tool_node(
            host,
            "place_order",
            arguments=lambda s: {"product_id": s["product_id"]},
            result_key="order",
            bridge=bridge,
            then=END,
        ),
        destinations=("order", END),
    )
    graph.add_edge(START, "order")
    return graph.compile(checkpointer=checkpointer)


def servers(args: argparse.Namespace) -> dict[str, Any]:
    if args.legacy:
        entry: dict[str, Any] = {
            "command": sys.executable,
            "args": [str(HERE / "inventory_server.py"), "--legacy-only"],
        }
        if args.data:
            entry["env"] = {"MCPKIT_EXAMPLES_DATA": args.data}
        return {"inventory": entry}
    return {"inventory": {"url": args.url}}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    bridge = GraphBridge()
    config = {"configurable": {"thread_id": args.thread}}
    async with (
        AsyncSqliteSaver.from_conn_string(args.db) as saver,
        Host(servers(args), client_options=bridge.client_options()) as host,
    ):
        graph = build_order_graph(host, bridge, saver)
        if args.command == "start":
            state = await graph.ainvoke({"product_id": args.product}, config)
        else:
            state = await graph.ainvoke(Command(resume=json.loads(args.answer)), config)
        interrupts = state.get("__interrupt__") or []
        if interrupts:
            return {"interrupt": interrupts[0].value}
        return {"order": state.get("order")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["start", "resume"])
    parser.add_argument("--db", required=True, help="SQLite checkpoint file")
    parser.add_argument("--thread", required=True)
    parser.add_argument("--product", default="nike-air-max")
    parser.add_argument("--answer", default="{}", help="the user's answer (JSON)")
    parser.add_argument("--url", help="the inventory server (HTTP)")
    parser.add_argument("--legacy", action="store_true", help="inventory over stdio, legacy")
    parser.add_argument("--data", help="the stdio inventory's data folder")
    args = parser.parse_args(argv)
    if not args.legacy and not args.url:
        parser.error("give --url (HTTP inventory) or --legacy")
    print(json.dumps(asyncio.run(run(args)), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()

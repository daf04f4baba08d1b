"""The design documents' workflow: one LangGraph node per MCP server.

    profile (stdio, 2025-11-25) -> catalog (stdio, 2026) -> inventory (HTTP, 2026)
        -> ranking (HTTP, 2025-11-25)

Each node is :func:`mcpkit.contrib.langchain.tool_node`: arguments checked against the tool's
input schema before sending, the structured result checked against its output schema, typed
errors mapped where the workflow has an answer for them (an unknown user gets the guest
profile) and raised everywhere else (the inventory feed's broken answer for the Garmin watch is
an ``OutputValidationError`` naming ``$.stock``).

Run it: ``python examples/langgraph/workflow.py u1 跑步鞋``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from mcpkit.client import Host
from mcpkit.contrib.langchain import GraphBridge, tool_node
from mcpkit.protocol._errors import ResourceNotFound

GUEST: dict[str, Any] = {
    "user_id": "guest",
    "name": "Guest",
    "city": "",
    "shoe_size": 0,
    "budget": 3000.0,
    "interests": [],
}


class ShopState(TypedDict, total=False):
    user_id: str
    query: str
    user: dict[str, Any]
    candidates: list[dict[str, Any]]
    stock: dict[str, Any]
    ranked: list[dict[str, Any]]


def build_workflow(host: Host, bridge: GraphBridge | None = None) -> Any:
    """The compiled graph (no checkpointer needed: nothing here asks the user)."""
    graph = StateGraph(ShopState)
    graph.add_node(
        "profile",
        tool_node(
            host,
            "profile__get_user",
            arguments=lambda s: {"user_id": s["user_id"]},
            result_key="user",
            on_error={ResourceNotFound: GUEST},
            bridge=bridge,
        ),
    )
    graph.add_node(
        "catalog",
        tool_node(
            host,
            "catalog__search",
            arguments=lambda s: {"query": s["query"], "max_price": s["user"]["budget"]},
            result_key="candidates",
            bridge=bridge,
        ),
    )
    graph.add_node(
        "inventory",
        tool_node(
            host,
            "inventory__get_stock",
            arguments=lambda s: {"product_id": s["candidates"][0]["id"]},
            result_key="stock",
            on_error={ResourceNotFound: {"stock": 0}},
            bridge=bridge,
        ),
    )
    graph.add_node(
        "ranking",
        tool_node(
            host,
            "ranking__rank",
            arguments=lambda s: {
                "budget": s["user"]["budget"],
                "candidates": [
                    {
                        "id": c["id"],
                        "price": c["price"],
                        "stock": s["stock"]["stock"] if i == 0 else 0,
                    }
                    for i, c in enumerate(s["candidates"])
                ],
            },
            result_key="ranked",
            bridge=bridge,
        ),
    )
    graph.add_edge(START, "profile")
    graph.add_edge("profile", "catalog")
    graph.add_conditional_edges(
        "catalog", lambda s: "inventory" if s["candidates"] else END, ["inventory", END]
    )
    graph.add_edge("inventory", "ranking")
    graph.add_edge("ranking", END)
    return graph.compile()


async def main(user_id: str, query: str) -> None:
    from servers import running_servers

    with tempfile.TemporaryDirectory() as data:
        async with (
            running_servers(Path(data)) as config,
            Host(config, namespacing="always") as host,
        ):
            state = await build_workflow(host).ainvoke({"user_id": user_id, "query": query})
            print(json.dumps(state, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    asyncio.run(main(*(sys.argv[1:3] if len(sys.argv) > 2 else ("u1", "跑步鞋"))))

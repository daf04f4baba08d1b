"""langchain-mcp-adapters against the examples/langgraph servers: what docs/langgraph.md's
comparison table says about it, observed (sessions, eras, errors, sampling, interrupts, progress).

Not part of the project's environment (the adapters pin an older ``mcp``): run it from a
throwaway virtual environment, with the servers started by the project's interpreter::

    python3 -m venv /tmp/adapters && /tmp/adapters/bin/pip install langchain-mcp-adapters langgraph
    /tmp/adapters/bin/python benchmarks/langchain_adapters_compare.py

Each finding is printed as one ``## what: outcome`` line.
"""

import asyncio
import os
import tempfile
import time
from pathlib import Path

from langchain_core.messages import AIMessage
from langchain_mcp_adapters.callbacks import Callbacks
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python")
EX = str(ROOT / "examples" / "langgraph")
WORK = tempfile.mkdtemp(prefix="adapters-compare-")
DATA = os.path.join(WORK, "data")
os.makedirs(DATA, exist_ok=True)
COUNT = os.path.join(WORK, "starts.txt")
MODERN_ONLY = os.path.join(WORK, "modern_only.py")
Path(MODERN_ONLY).write_text(
    f"import sys\nsys.path.insert(0, {EX!r})\nimport catalog_server\n"
    "server = catalog_server.build(False)\nserver.supported_versions = ('2026-07-28',)\n"
    "server.run()\n"
)
ENV = {"MCPKIT_EXAMPLES_DATA": DATA, "PATH": os.environ["PATH"]}


def counted(script, *flags):
    return {
        "transport": "stdio",
        "command": "sh",
        "args": ["-c", f"echo x >> {COUNT}; exec {PY} {EX}/{script} {' '.join(flags)}"],
        "env": ENV,
    }


def starts():
    return len(Path(COUNT).read_text().splitlines()) if Path(COUNT).exists() else 0


def graph(tools):
    g = StateGraph(MessagesState)
    g.add_node("tools", ToolNode(tools))
    g.add_edge(START, "tools")
    return g.compile(checkpointer=InMemorySaver())


def ask(name, **args):
    return {
        "messages": [
            AIMessage(
                content="",
                tool_calls=[{"name": name, "args": args, "id": "c1", "type": "tool_call"}],
            )
        ]
    }


async def report(label, coro):
    try:
        r = await coro
        print(f"## {label}: OK {str(r)[:300]}")
    except BaseException as e:
        print(f"## {label}: {type(e).__module__}.{type(e).__name__}: {str(e)[:300]}")


async def main():
    Path(COUNT).unlink(missing_ok=True)
    # 1. sessions per call (default get_tools)
    client = MultiServerMCPClient({"catalog": counted("catalog_server.py")})
    tools = {t.name: t for t in await client.get_tools()}
    before = starts()
    for _ in range(3):
        await tools["search"].ainvoke({"query": "跑步鞋"})
    print(
        f"## sessions: 3 calls through get_tools() started {starts() - before} server processes (listing started {before})"
    )
    t0 = time.perf_counter()
    n = 5
    for _ in range(n):
        await tools["search"].ainvoke({"query": "跑步鞋"})
    print(
        f"## default per-call time (new session each): {(time.perf_counter() - t0) / n * 1000:.1f} ms/call"
    )
    # 2. eras
    mo = {"transport": "stdio", "command": PY, "args": [MODERN_ONLY], "env": ENV}
    await report("2026-only server", MultiServerMCPClient({"m": mo}).get_tools())
    # 3. errors
    client = MultiServerMCPClient(
        {
            "profile": counted("profile_server.py"),
            "inventory": counted("inventory_server.py"),
            "ranking": counted("ranking_server.py"),
        }
    )
    tools = {t.name: t for t in await client.get_tools()}
    await report("protocol error (unknown user)", tools["get_user"].ainvoke({"user_id": "nope"}))
    await report(
        "output schema violation", tools["get_stock"].ainvoke({"product_id": "garmin-forerunner"})
    )
    await report(
        "isError in a ToolNode",
        graph([tools["rank"]]).ainvoke(
            ask("rank", budget=1, candidates=[]), {"configurable": {"thread_id": "e"}}
        ),
    )
    await report("bad arguments", tools["get_user"].ainvoke({"user_id": 5}))
    # 4. sampling
    await report(
        "sampling (ranking.explain)", tools["explain"].ainvoke({"product_id": "nike-air-max"})
    )

    # 5. elicitation as an interrupt
    async def on_elicit(mcp_context, params, context):
        value = interrupt({"message": params.message})
        return {"action": "accept", "content": value}

    progress = []

    async def on_progress(p, total, message, context):
        progress.append((p, total, message))
        try:
            from langgraph.config import get_stream_writer

            get_stream_writer()({"p": p})
            progress.append("writer ok")
        except Exception as e:
            progress.append(f"writer: {type(e).__name__}: {e}")

    client = MultiServerMCPClient(
        {"inventory": counted("inventory_server.py")},
        callbacks=Callbacks(on_elicitation=on_elicit, on_progress=on_progress),
    )
    tools = {t.name: t for t in await client.get_tools()}
    g = graph([tools["place_order"]])
    await report(
        "elicitation -> interrupt()",
        g.ainvoke(
            ask("place_order", product_id="nike-air-max"), {"configurable": {"thread_id": "i"}}
        ),
    )
    print("## progress callback saw:", progress[:4])
    # 6. per-call cost with an explicit session
    async with MultiServerMCPClient({"catalog": counted("catalog_server.py")}).session(
        "catalog"
    ) as session:
        tools = {t.name: t for t in await load_mcp_tools(session)}
        for _ in range(20):
            await tools["search"].ainvoke({"query": "跑步鞋"})
        t0 = time.perf_counter()
        n = 200
        for _ in range(n):
            await tools["search"].ainvoke({"query": "跑步鞋"})
        print(
            f"## explicit session per-call time: {(time.perf_counter() - t0) / n * 1000:.2f} ms/call"
        )


asyncio.run(main())

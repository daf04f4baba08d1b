"""Per-call overhead of a LangChain tool over a direct ``Client.call_tool`` (DESIGN §4: 1.3x).

Same server, same connection, same tool (``add``), interleaved: each repeat times a batch of
every path in a rotated order, and the report gives medians over repeats and ratios to
``call_tool`` measured in the same run.

* ``call_tool``   — ``await client.call_tool("add", args)`` (the baseline)
* ``ainvoke``     — ``await client.ainvoke("add", args)``: input checked, output strictly checked
* ``lc_tool``     — ``await tool.ainvoke(args)``: the ``mcpkit.contrib.langchain`` tool (validates
  like ``ainvoke``, then LangChain's run machinery, callbacks and content conversion)
* ``lc_noop``     — a LangChain tool of the same shape (JSON Schema arguments) that returns at
  once: LangChain's own per-call machinery (callback manager, run config, signature inspection
  on every call), no MCP at all
* ``lc_toolnode`` — the same tool inside a one-node LangGraph ``ToolNode`` graph (a tool call
  message in, a ``ToolMessage`` out): what an agent step costs on top

Two servers: the benchmark server over **stdio** (a real child process: the overhead as users
see it) and the same tools **in memory** (no IPC: the client-side cost alone, where the bridge's
share is largest). Wall time per call and this process's CPU per call are both reported.

    .venv/bin/python benchmarks/langchain_overhead.py            # ~1 minute
    .venv/bin/python benchmarks/langchain_overhead.py --quick
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import BaseTool  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode  # noqa: E402
from toolset import BASIC_TOOLS  # noqa: E402

from mcpkit.client import Client  # noqa: E402
from mcpkit.contrib.langchain import load_tools  # noqa: E402
from mcpkit.server import Server  # noqa: E402

ARGS = {"a": 2, "b": 3}
X = "\N{MULTIPLICATION SIGN}"
MU = "\N{MICRO SIGN}"
Path_ = Callable[[], Awaitable[Any]]


def in_memory_server() -> Server:
    server = Server("bench-memory", version="0.1.0")
    for fn, description in BASIC_TOOLS:
        server.tool(fn, description=description)
    return server


class NoopTool(BaseTool):
    """A LangChain tool of the bridge's shape (JSON Schema arguments) that does no work."""

    async def _arun(self, **kwargs: Any) -> str:
        return str(kwargs["a"] + kwargs["b"])

    def _run(self, **kwargs: Any) -> str:
        return str(kwargs["a"] + kwargs["b"])


def toolnode_graph(tool: Any) -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([tool]))
    graph.add_edge(START, "tools")
    return graph.compile()


async def paths(client: Client) -> dict[str, Path_]:
    tool = {t.name: t for t in await load_tools(client)}["add"]
    graph = toolnode_graph(tool)
    call = {"name": "add", "args": ARGS, "id": "c", "type": "tool_call"}
    state = {"messages": [AIMessage(content="", tool_calls=[call])]}

    async def check(value: Any, expected: Any) -> None:
        if value != expected:
            raise AssertionError(f"{value!r} != {expected!r}")

    async def call_tool() -> None:
        result = await client.call_tool("add", ARGS)
        await check(result.structured_content, {"result": 5})

    async def ainvoke() -> None:
        result = await client.ainvoke("add", ARGS)
        await check(result.structured_content, {"result": 5})

    async def lc_tool() -> None:
        await check(await tool.ainvoke(ARGS), "5")

    noop = NoopTool(name="add", description="Add.", args_schema=dict(tool.args_schema))

    async def lc_noop() -> None:
        await check(await noop.ainvoke(ARGS), "5")

    async def lc_toolnode() -> None:
        out = await graph.ainvoke(state)
        await check(out["messages"][-1].content, "5")

    return {
        "call_tool": call_tool,
        "ainvoke": ainvoke,
        "lc_tool": lc_tool,
        "lc_noop": lc_noop,
        "lc_toolnode": lc_toolnode,
    }


async def measure(client: Client, repeats: int, batch: int) -> dict[str, tuple[float, float]]:
    """Median (wall µs, CPU µs) per call for each path."""
    fns = await paths(client)
    names = list(fns)
    for fn in fns.values():  # warm up: schemas compiled, caches filled
        for _ in range(50):
            await fn()
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            fn = fns[name]
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(batch):
                await fn()
            wall[name].append((time.perf_counter() - t0) / batch * 1e6)
            cpu[name].append((time.process_time() - c0) / batch * 1e6)
    return {n: (statistics.median(wall[n]), statistics.median(cpu[n])) for n in names}


def table(title: str, rows: dict[str, tuple[float, float]]) -> str:
    base_wall, base_cpu = rows["call_tool"]
    lines = [
        f"### {title}",
        "",
        f"| path | wall {MU}s/call | {X} call_tool | client CPU {MU}s/call | {X} call_tool |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, (w, c) in rows.items():
        ratios = f"{w / base_wall:.2f}{X} | {c:.0f} | {c / base_cpu:.2f}{X}"
        lines.append(f"| `{name}` | {w:.0f} | {ratios} |")
    own = rows["lc_tool"][1] - rows["ainvoke"][1] - rows["lc_noop"][1]
    lines += [
        "",
        f"The bridge's own CPU per call (`lc_tool` - `ainvoke` - `lc_noop`): {own:.0f} {MU}s.",
    ]
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    repeats, batch = (5, 100) if options.quick else (15, 200)
    command = [sys.executable, str(HERE / "mcpkit_server.py")]
    print(f"# LangChain tool overhead ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n")
    for mode in ("2026-07-28", "legacy"):
        async with Client(command, mode=mode) as client:
            print(table(f"stdio, {mode}", await measure(client, repeats, batch)), "\n")
        server = in_memory_server()
        async with server.running(), Client(server, mode=mode) as client:
            print(table(f"in memory, {mode}", await measure(client, repeats, batch)), "\n")


if __name__ == "__main__":
    asyncio.run(main())

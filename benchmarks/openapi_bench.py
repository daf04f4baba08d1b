"""OpenAPI ↔ MCP costs, as ratios against the direct path in the same run.

1. **convert** — GitHub's REST API document (1,223 operations; ``scripts/install-peers`` puts it
   in ``.peers/openapi``): load, ``convert()``, ``from_openapi()`` (registration), first
   ``tools/list``.
2. **OpenAPI tool per call** — the product-search FastAPI service under uvicorn (its own
   process). Direct: ``httpx`` GET + JSON decode. Tool body: the registered tool's ``call()``
   (argument validation, request building, response validation, result). Through MCP: an mcpkit
   client calling the tool on an in-process server (adds JSON-RPC encode/decode and dispatch).
3. **REST facade per call** — ``mcpkit rest`` (its own process) in front of a stdio MCP server.
   Direct: an mcpkit client calling the same kind of stdio server. Facade: ``httpx`` POST.
   Floor: the same POST answered by a bare ASGI app under uvicorn (what any HTTP hop costs
   here, MCP aside).

Sequential calls, interleaved repeats, medians.
Run: ``.venv/bin/python benchmarks/openapi_bench.py``
(``--quick`` for a smoke run). Writes ``benchmarks/results/openapi.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / os.environ.get("PEERS_DIR", ".peers") / "openapi" / "api.github.com.json"
FACADE_SERVER = ROOT / "tests" / "openapi" / "_facade_server.py"


def median_time(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bench_convert(repeats: int) -> dict[str, float]:
    import httpx

    from mcpkit.contrib.openapi import convert, from_openapi, load_document
    from mcpkit.testing import connect

    document = load_document(DOCUMENT)
    out = {
        "load_s": median_time(lambda: load_document(DOCUMENT), repeats),
        "convert_s": median_time(lambda: convert(document), repeats),
        "operations": float(len(convert(document).components)),
    }
    client = httpx.AsyncClient(base_url="http://127.0.0.1:9")
    out["from_openapi_s"] = median_time(lambda: from_openapi(document, client), repeats)

    async def listing() -> float:
        server = from_openapi(document, client)
        async with connect(server) as mcp:
            started = time.perf_counter()
            await mcp.list_tools()
            return time.perf_counter() - started

    out["first_list_s"] = statistics.median(asyncio.run(listing()) for _ in range(repeats))
    return out


async def timed(call: Callable[[], Awaitable[Any]], calls: int) -> float:
    """Median seconds per call over ``calls`` sequential calls."""
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def start(argv: list[str], marker: str, stream: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE if stream == "stdout" else subprocess.DEVNULL,
        stderr=subprocess.PIPE if stream == "stderr" else None,
        text=True,
    )
    pipe = process.stdout if stream == "stdout" else process.stderr
    assert pipe is not None
    line = pipe.readline()
    if marker not in line:
        process.kill()
        raise RuntimeError(f"{argv[1]} did not start: {line!r}")
    return process, line


async def bench_tool(url: str, calls: int, repeats: int) -> dict[str, float]:
    import httpx

    from mcpkit.contrib.openapi import fetch_document, from_openapi
    from mcpkit.testing import connect

    results: dict[str, list[float]] = {
        "direct": [],
        "tool_body": [],
        "mcp_call": [],
        "mcp_call_unvalidated": [],
    }
    async with httpx.AsyncClient(base_url=url) as http:
        document = await fetch_document("/openapi.json", http)
        strict = from_openapi(document, http)
        unvalidated = from_openapi(document, http, validate_responses="off")
        tool = strict._tools["products_get"]
        arguments = {"product_id": 4}

        async def direct() -> Any:
            return (await http.get("/products/4")).json()

        async def body() -> Any:
            return await tool.call(arguments, None)  # type: ignore[arg-type]

        async with connect(strict) as mcp, connect(unvalidated) as mcp_off:

            async def through_mcp() -> Any:
                return await mcp.call_tool("products_get", arguments)

            async def through_mcp_off() -> Any:
                return await mcp_off.call_tool("products_get", arguments, output_validation="off")

            paths = {
                "direct": direct,
                "tool_body": body,
                "mcp_call": through_mcp,
                "mcp_call_unvalidated": through_mcp_off,
            }
            for fn in paths.values():
                await timed(fn, max(calls // 10, 5))  # warm up
            for repeat in range(repeats):
                order = list(paths.items())
                order = order[repeat % len(order) :] + order[: repeat % len(order)]
                for name, fn in order:
                    results[name].append(await timed(fn, calls))
    out = {f"{k}_us": statistics.median(v) * 1e6 for k, v in results.items()}
    for name in ("tool_body", "mcp_call", "mcp_call_unvalidated"):
        out[f"{name}_ratio"] = out[f"{name}_us"] / out["direct_us"]
    return out


async def bench_facade(floor_url: str, calls: int, repeats: int) -> dict[str, float]:
    import httpx

    from mcpkit.client import Client

    command = f"{sys.executable} {FACADE_SERVER}"
    facade, line = start(
        [sys.executable, "-m", "mcpkit.cli", "rest", command, "--port", "0"], "serving", "stderr"
    )
    url = line.split(" at ")[1].split()[0]
    results: dict[str, list[float]] = {"direct_mcp": [], "facade": [], "http_floor": []}
    try:
        async with (
            Client(command) as mcp,
            httpx.AsyncClient(base_url=url) as http,
            httpx.AsyncClient(base_url=floor_url) as floor_http,
        ):

            async def direct() -> Any:
                return await mcp.call_tool("add", {"a": 1, "b": 2})

            async def rest() -> Any:
                return (await http.post("/tools/add", json={"a": 1, "b": 2})).json()

            async def floor() -> Any:
                return (await floor_http.post("/floor", json={"a": 1, "b": 2})).json()

            paths = {"direct_mcp": direct, "facade": rest, "http_floor": floor}
            for fn in paths.values():
                await timed(fn, max(calls // 10, 5))
            for repeat in range(repeats):
                order = list(paths.items())
                order = order[repeat % len(order) :] + order[: repeat % len(order)]
                for name, fn in order:
                    results[name].append(await timed(fn, calls))
    finally:
        facade.terminate()
        facade.wait()
    out = {f"{k}_us": statistics.median(v) * 1e6 for k, v in results.items()}
    out["facade_ratio"] = out["facade_us"] / out["direct_mcp_us"]
    out["facade_over_http_floor"] = out["facade_us"] / out["http_floor_us"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few calls and repeats (smoke run)")
    args = parser.parse_args()
    calls, repeats = (50, 1) if args.quick else (500, 5)
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    report["convert"] = bench_convert(1 if args.quick else 3)
    backend_argv = [sys.executable, str(ROOT / "benchmarks" / "openapi_backend.py")]
    backend, line = start(backend_argv, "PORT", "stdout")
    url = f"http://127.0.0.1:{line.split()[1]}"
    try:
        report["tool"] = asyncio.run(bench_tool(url, calls, repeats))
        report["facade"] = asyncio.run(bench_facade(url, calls, repeats))
    finally:
        backend.terminate()
        backend.wait()
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    (out / "openapi.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

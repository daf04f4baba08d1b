"""Elicitation round trips in a legacy session: direct, through HAProxy, through nginx.

    python benchmarks/proxy_rtt.py               # 40 rounds per configuration, ~30 s
    python benchmarks/proxy_rtt.py --rounds 200

One worker (``tests/deploy/worker.py``, ``server.run("http")``) and the proxies exactly as
``tests/deploy`` configures them (``docs/deploy.md``). Each round is mcpkit's client calling the
worker's ``ask`` tool: the question travels on the call's SSE response, the answer comes back as
a POST, the result follows on the first stream — the exchange a proxy that coalesces small
writes slows down. "haproxy, no http-no-delay" is the configuration ``docs/deploy.md`` gave
before (it held each exchange ~200 ms). Prints the median and 90th percentile per configuration
and the machine's load average, which matters: re-run on an idle machine before quoting.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from deploy._deployment import deployment, start_worker
from mcpkit.client import Client


async def _answer(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


async def _rounds(url: str, rounds: int) -> list[float]:
    took: list[float] = []
    async with Client(url, mode="legacy", elicitation_handler=_answer) as client:
        await client.call_tool("ask", {})  # warm: tool list, connections
        for _ in range(rounds):
            begin = time.perf_counter()
            await client.call_tool("ask", {})
            took.append(time.perf_counter() - begin)
    return took


def _report(name: str, took: list[float]) -> None:
    ordered = sorted(took)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    print(f"| {name} | {statistics.median(took) * 1000:.1f} | {p90 * 1000:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.rounds} rounds")
    print("| path | median ms | p90 ms |\n|---|---|---|")
    worker = start_worker()
    try:
        _report("direct", asyncio.run(_rounds(worker.url, args.rounds)))
    finally:
        worker.process.terminate()
        worker.process.wait(10)
    for name, options in (
        ("haproxy (http-no-delay)", {"proxy_kind": "haproxy"}),
        ("haproxy, no http-no-delay", {"proxy_kind": "haproxy", "haproxy_no_delay": False}),
        ("nginx", {"proxy_kind": "nginx"}),
    ):
        with (
            tempfile.TemporaryDirectory() as tmp,
            deployment(
                Path(tmp),
                workers=1,
                **options,  # type: ignore[arg-type]
            ) as running,
        ):
            _report(name, asyncio.run(_rounds(running.url, args.rounds)))


if __name__ == "__main__":
    main()

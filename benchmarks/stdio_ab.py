"""Interleaved A/B runs of stdio servers: server CPU per sequential ``tools/call echo``.

The stdio counterpart of ``http_ab.py`` (same server syntax, same report): each repeat runs
``driver.measure`` on every server in turn, the order rotated between repeats, and the report
gives medians and, per repeat, each server's ratio to the first one named (the floor)::

    python benchmarks/stdio_ab.py --eras legacy,modern --repeats 9 \\
        raw=benchmarks/raw_stdio_server.py asyncio=benchmarks/raw_asyncio_server.py \\
        before=/tmp/base/src:/tmp/base/benchmarks/mcpkit_server.py \\
        after=src:benchmarks/mcpkit_server.py

``--metric start`` times start → first answer instead (ms from spawn to the answer of the
era's opening request, ``--starts`` starts per server per repeat, median): the wall-clock
companion of ``startup_instructions.py``; ``--metric start-cpu`` gives the server's CPU ms up
to that answer.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from driver import ERAS, StdioPeer, measure, open_session
from http_ab import Server, render

METRICS = ("cpu", "start", "start-cpu")


def _start(command: list[str], era: str, starts: int, cpu: bool) -> float:
    """Median over ``starts`` fresh processes of start → first answer (ms), or its CPU ms."""
    values = []
    for _ in range(starts):
        peer = StdioPeer(command)
        try:
            wall_ms, cpu_ms = open_session(peer, era)
        finally:
            peer.close()
        values.append(cpu_ms if cpu else wall_ms)
    return statistics.median(values)


def _timed(server: Server, era: str, calls: int, metric: str = "cpu", starts: int = 5) -> float:
    saved = os.environ.pop("PYTHONPATH", None)
    try:
        if server.pythonpath is not None:
            os.environ["PYTHONPATH"] = server.pythonpath
        command = [sys.executable, server.script]
        if metric != "cpu":
            return _start(command, era, starts, metric == "start-cpu")
        result = measure(command, era, calls, 200, 100)
    finally:
        os.environ.pop("PYTHONPATH", None)
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    return result.sequential_server_cpu_us_per_call


def run(
    servers: Sequence[Server],
    eras: Sequence[str],
    repeats: int,
    calls: int,
    metric: str = "cpu",
    starts: int = 5,
) -> dict[str, dict[str, list[float]]]:
    """µs of server CPU per call (or ms to the first answer, ``metric``): ``{era: {server: [one
    per repeat]}}``."""
    results = {era: {server.name: [] for server in servers} for era in eras}
    for repeat in range(repeats):
        for era in eras:
            shift = repeat % len(servers)
            for server in [*servers[shift:], *servers[:shift]]:
                results[era][server.name].append(_timed(server, era, calls, metric, starts))
        print(f"repeat {repeat + 1}/{repeats}, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--eras", default="legacy,modern", help="comma-separated: legacy,modern")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=3000, help="timed sequential calls")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    parser.add_argument("--metric", choices=METRICS, default="cpu", help="what is compared")
    parser.add_argument("--starts", type=int, default=5, help="starts per repeat (start metrics)")
    parser.add_argument("servers", nargs="+", help="NAME=[PYTHONPATH:]SCRIPT, the floor first")
    args = parser.parse_args(argv)
    eras = args.eras.split(",")
    if set(eras) - set(ERAS):
        parser.error(f"unknown era(s) in {args.eras}")
    servers = [Server.parse(spec) for spec in args.servers]
    started = time.perf_counter()
    results = run(servers, eras, args.repeats, args.calls, args.metric, args.starts)
    text = render(results)
    if args.metric != "cpu":
        text = text.replace(" us ", " ms ").replace(" us  ", " ms  ")
    print(json.dumps(results) if args.json else text)
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

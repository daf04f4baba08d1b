"""Interleaved A/B runs of stdio servers: server CPU per sequential ``tools/call echo``.

The stdio counterpart of ``http_ab.py`` (same server syntax, same report): each repeat runs
``driver.measure`` on every server in turn, the order rotated between repeats, and the report
gives medians and, per repeat, each server's ratio to the first one named (the floor)::

    python benchmarks/stdio_ab.py --eras legacy,modern --repeats 9 \\
        raw=benchmarks/raw_stdio_server.py asyncio=benchmarks/raw_asyncio_server.py \\
        before=/tmp/base/src:/tmp/base/benchmarks/mcpkit_server.py \\
        after=src:benchmarks/mcpkit_server.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from driver import ERAS, measure
from http_ab import Server, render


def _timed(server: Server, era: str, calls: int) -> float:
    saved = os.environ.pop("PYTHONPATH", None)
    try:
        if server.pythonpath is not None:
            os.environ["PYTHONPATH"] = server.pythonpath
        result = measure([sys.executable, server.script], era, calls, 200, 100)
    finally:
        os.environ.pop("PYTHONPATH", None)
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    return result.sequential_server_cpu_us_per_call


def run(
    servers: Sequence[Server], eras: Sequence[str], repeats: int, calls: int
) -> dict[str, dict[str, list[float]]]:
    """µs of server CPU per call: ``{era: {server: [one per repeat]}}``."""
    results = {era: {server.name: [] for server in servers} for era in eras}
    for repeat in range(repeats):
        for era in eras:
            shift = repeat % len(servers)
            for server in [*servers[shift:], *servers[:shift]]:
                results[era][server.name].append(_timed(server, era, calls))
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
    parser.add_argument("servers", nargs="+", help="NAME=[PYTHONPATH:]SCRIPT, the floor first")
    args = parser.parse_args(argv)
    eras = args.eras.split(",")
    if set(eras) - set(ERAS):
        parser.error(f"unknown era(s) in {args.eras}")
    servers = [Server.parse(spec) for spec in args.servers]
    started = time.perf_counter()
    results = run(servers, eras, args.repeats, args.calls)
    print(json.dumps(results) if args.json else render(results))
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Per-call overhead of mcpkit's gateway over a direct connection to the same backend.

Each pair runs the same raw driver (no SDK in the loop) against the backend directly and
through a gateway in front of it, interleaved over repeats so drift of the shared machine hits
both:

- **stdio**: driver → backend (stdio) vs driver → gateway (stdio) → backend (a stdio child);
- **HTTP**: driver → backend (Streamable HTTP) vs driver → gateway (HTTP) → backend (HTTP), in
  2026 stateless JSON and legacy JSON modes.

Reported per era/mode: sequential p50 latency and calls/s (and their ratios gateway/direct),
pipelined (stdio) or 32-client (HTTP) throughput, and the gateway process's own CPU per call
next to the backend's when called directly. The design budget (DESIGN.md) is a per-call overhead
of at most 1.3× the direct path; a gateway is a second full MCP hop (decode, dispatch, policy,
audit, encode, and the same again as a client), so the report says how far from that it is.

Usage: python benchmarks/gateway.py [--repeats N] [--calls N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from driver import ERAS, measure
from http_driver import measure_http

PYTHON = sys.executable
DIRECT = [PYTHON, str(HERE / "mcpkit_server.py")]
GATEWAY = [PYTHON, str(HERE / "gateway_server.py")]
HTTP_MODES = ("modern", "legacy-json")


def _stdio(command: list[str], era: str, calls: int) -> dict[str, float]:
    m = measure(command, era, calls, pipelined=calls, warmup=calls // 10, max_seconds=8.0)
    return {
        "p50_us": m.sequential_p50_us,
        "calls_per_s": m.sequential_calls_per_s,
        "parallel_calls_per_s": m.pipelined_calls_per_s,
        "cpu_us_per_call": m.sequential_server_cpu_us_per_call,
    }


def _http(command: list[str], mode: str, calls: int) -> dict[str, float]:
    m = measure_http(command, mode, calls, warmup=calls // 10, max_seconds=8.0)
    return {
        "p50_us": m.sequential_p50_us,
        "calls_per_s": m.sequential_calls_per_s,
        "parallel_calls_per_s": m.concurrent_calls_per_s,
        "cpu_us_per_call": m.sequential_server_cpu_us_per_call,
    }


def run(repeats: int, calls: int) -> dict[str, dict[str, list[dict[str, float]]]]:
    cases: list[tuple[str, Any]] = [
        *((f"stdio {era}", lambda cmd, era=era: _stdio(cmd, era, calls)) for era in ERAS),
        *((f"http {mode}", lambda cmd, mode=mode: _http(cmd, mode, calls)) for mode in HTTP_MODES),
    ]
    results: dict[str, dict[str, list[dict[str, float]]]] = {
        name: {"direct": [], "gateway": []} for name, _ in cases
    }
    for repeat in range(repeats):
        for name, case in cases:
            order = [("direct", DIRECT), ("gateway", GATEWAY)]
            if repeat % 2:
                order.reverse()
            for label, command in order:
                results[name][label].append(case(command))
                print(f"  {name:18} {label:8} repeat {repeat + 1}", file=sys.stderr)
    return results


def _median(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def report(results: dict[str, dict[str, list[dict[str, float]]]], repeats: int) -> str:
    lines = [
        f"# Gateway overhead ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"medians of {repeats} interleaved repeats)",
        "",
        "| path | direct p50 µs | gateway p50 µs | latency ratio | direct calls/s | "
        "gateway calls/s | throughput ratio (parallel) | backend CPU µs/call | "
        "gateway CPU µs/call |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, pair in results.items():
        direct, gateway = pair["direct"], pair["gateway"]
        d50, g50 = _median(direct, "p50_us"), _median(gateway, "p50_us")
        dps, gps = _median(direct, "calls_per_s"), _median(gateway, "calls_per_s")
        dpar = _median(direct, "parallel_calls_per_s")
        gpar = _median(gateway, "parallel_calls_per_s")
        lines.append(
            f"| {name} | {d50:.0f} | {g50:.0f} | {g50 / d50:.2f}× | {dps:.0f} | {gps:.0f} | "
            f"{dpar / gpar:.2f}× | {_median(direct, 'cpu_us_per_call'):.0f} | "
            f"{_median(gateway, 'cpu_us_per_call'):.0f} |"
        )
    lines += [
        "",
        "Latency ratio: gateway p50 / direct p50 (budget ≤ 1.3×). Throughput ratio: direct / "
        "gateway calls/s with many in flight (pipelined on stdio, 32 clients on HTTP). Gateway "
        "CPU is the gateway process alone (the backend's CPU is the same in both paths).",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    results = run(args.repeats, args.calls)
    text = report(results, args.repeats)
    print(text)
    if args.out is not None:
        args.out.write_text(text)
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Run the stdio benchmarks for every server in SERVERS, interleaved, and write a report.

    python benchmarks/run.py --quick        # ~2 minutes on 2 cores
    python benchmarks/run.py                # more calls, more repeats

Each repeat runs every (server, era) pair once, in an order rotated between repeats, so slow
drift of the machine (other work on the 2 shared cores, thermal state) spreads over all servers
instead of landing on one. The report gives the median of each metric over the repeats and its
ratio to the raw floor of the same era. Peers come from scripts/install-peers.

Output: benchmarks/results/report.md (human) and benchmarks/results/raw.json (every run).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from driver import ERAS, Measurement, PeerError, measure

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "benchmarks" / "results"
PEERS_DIR = ROOT / os.environ.get("PEERS_DIR", ".peers")
PROJECT_PYTHON = ROOT / ".venv" / "bin" / "python"
RAW_FLOOR = "raw"

# name → server command (argv). Add a server by adding a line; a missing interpreter or script
# makes that server "not available" in the report instead of an error.
SERVERS: dict[str, list[str]] = {
    RAW_FLOOR: [str(PROJECT_PYTHON), "benchmarks/raw_stdio_server.py"],
    # mcpkit's own benchmark server: the same echo/add tools on mcpkit's server layer. The script
    # is written when the server layer exists; until then this row reads "not available".
    "mcpkit": [str(PROJECT_PYTHON), "benchmarks/mcpkit_server.py"],
    "mcp 2.3.0": [
        str(PEERS_DIR / "mcp-venv" / "bin" / "python"),
        "benchmarks/peer_servers/mcp_server.py",
    ],
    "fastmcp 4.2.3": [
        str(PEERS_DIR / "fastmcp-venv" / "bin" / "python"),
        "benchmarks/peer_servers/fastmcp_server.py",
    ],
}


@dataclass(frozen=True)
class Settings:
    repeats: int
    calls: int
    pipelined: int
    warmup: int


QUICK = Settings(repeats=3, calls=1000, pipelined=2000, warmup=50)
FULL = Settings(repeats=5, calls=5000, pipelined=10000, warmup=200)

# (field, column title, unit, higher is better)
METRICS: list[tuple[str, str, str, bool]] = [
    ("start_to_first_answer_ms", "start → first answer", "ms", False),
    ("sequential_calls_per_s", "sequential", "calls/s", True),
    ("sequential_p50_us", "p50", "µs", False),
    ("sequential_p99_us", "p99", "µs", False),
    ("sequential_server_cpu_us_per_call", "server CPU/call", "µs", False),
    ("pipelined_calls_per_s", "pipelined", "calls/s", True),
    ("pipelined_server_cpu_us_per_call", "pipelined CPU/call", "µs", False),
]


def available(command: list[str]) -> str | None:
    """Why `command` cannot run here, or None when it can."""
    interpreter, script = Path(command[0]), ROOT / command[1]
    if not interpreter.exists():
        shown = interpreter.relative_to(ROOT) if interpreter.is_relative_to(ROOT) else interpreter
        return f"{shown} missing"
    if not script.exists():
        return f"{command[1]} not written yet"
    return None


def run_all(
    settings: Settings, only: list[str]
) -> tuple[dict[str, dict[str, list[Measurement]]], dict[str, str]]:
    names = [n for n in SERVERS if not only or n in only or n == RAW_FLOOR]
    skipped = {n: why for n in names if (why := available(SERVERS[n])) is not None}
    runnable = [n for n in names if n not in skipped]
    runs: dict[str, dict[str, list[Measurement]]] = {n: {era: [] for era in ERAS} for n in runnable}
    for repeat in range(settings.repeats):
        shift = repeat % len(runnable)
        order = runnable[shift:] + runnable[:shift]
        for name in order:
            for era in ERAS:
                label = f"[{repeat + 1}/{settings.repeats}] {name} ({era})"
                print(f"{label} …", end=" ", flush=True, file=sys.stderr)
                try:
                    result = measure(
                        SERVERS[name], era, settings.calls, settings.pipelined, settings.warmup
                    )
                except PeerError as exc:
                    print(f"failed: {exc}", file=sys.stderr)
                    skipped.setdefault(f"{name} ({era})", str(exc))
                    continue
                runs[name][era].append(result)
                print(f"{result.sequential_calls_per_s:,.0f} calls/s", file=sys.stderr)
    return runs, skipped


def median_of(results: list[Measurement], field: str) -> float:
    values: list[float] = [getattr(r, field) for r in results]
    return statistics.median(values)


def fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def ratio(value: float, floor: float, higher_is_better: bool) -> str:
    """How many times worse than the floor (1.0x = as good as the floor)."""
    if value <= 0 or floor <= 0:
        return "-"
    times = floor / value if higher_is_better else value / floor
    return f"{times:.1f}x"


def environment(settings: Settings) -> list[str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    clk = os.sysconf("SC_CLK_TCK")
    return [
        f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"- machine: {os.cpu_count()} cores, {cpu}; {platform.system()} {platform.release()}",
        f"- driver Python {platform.python_version()}; servers run on their own venvs' Python",
        f"- {settings.repeats} interleaved repeats; per run {settings.warmup} warm-up calls, "
        f"{settings.calls} sequential and {settings.pipelined} pipelined `tools/call echo`",
        f"- server CPU comes from /proc/<pid>/stat in ticks of {1000 / clk:.0f} ms: resolution "
        f"{1e6 / clk / settings.calls:.0f} µs/call sequential, "
        f"{1e6 / clk / settings.pipelined:.0f} µs/call pipelined",
    ]


def report(
    runs: dict[str, dict[str, list[Measurement]]], skipped: dict[str, str], settings: Settings
) -> str:
    lines = ["# Benchmark report: stdio", "", *environment(settings), ""]
    lines += [
        "Medians over the repeats. `x` = times worse than the raw floor in the same era "
        "(a stdlib JSON-RPC loop: the least any Python server can cost).",
        "",
    ]
    for era in ERAS:
        title = (
            "legacy (2025-11-25, initialize handshake)"
            if era == "legacy"
            else "2026-07-28 (stateless, per-request _meta)"
        )
        lines += [f"## {title}", ""]
        header = "| server | " + " | ".join(f"{t} ({u})" for _, t, u, _ in METRICS) + " |"
        lines += [header, "|---|" + "---:|" * len(METRICS)]
        floor = runs.get(RAW_FLOOR, {}).get(era, [])
        for name, by_era in runs.items():
            results = by_era[era]
            if not results:
                continue
            cells = []
            for field, _, _, higher in METRICS:
                value = median_of(results, field)
                cell = fmt(value)
                if floor and name != RAW_FLOOR:
                    cell += f" ({ratio(value, median_of(floor, field), higher)})"
                cells.append(cell)
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    if skipped:
        lines += ["## Not measured", ""]
        lines += [f"- {name}: {why}" for name, why in skipped.items()]
        lines.append("")
    lines += [
        "Not yet measured (see benchmarks/README.md): HTTP, sessions, large lists and results, "
        "client CPU.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer calls and repeats (~2 minutes)")
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        help="only this server (repeatable; the raw floor always runs)",
    )
    args = parser.parse_args()
    settings = QUICK if args.quick else FULL
    os.chdir(ROOT)
    runs, skipped = run_all(settings, args.server)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    text = report(runs, skipped, settings)
    (RESULTS_DIR / "report.md").write_text(text)
    raw = {
        "settings": asdict(settings),
        "runs": {
            n: {era: [asdict(m) for m in ms] for era, ms in by.items()} for n, by in runs.items()
        },
        "skipped": skipped,
        "fields": [f.name for f in fields(Measurement)],
    }
    (RESULTS_DIR / "raw.json").write_text(json.dumps(raw, indent=2))
    print(text)
    print(f"written: {(RESULTS_DIR / 'report.md').relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

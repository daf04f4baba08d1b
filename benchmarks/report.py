# ruff: noqa: RUF001, RUF002, RUF003 - the report is typeset: ×, –, → and µ are meant
"""The benchmark results and their markdown report: tables, ratios against anchors, budgets.

Ratios read the same way everywhere: against the raw floor, ``2.0× raw`` means twice the
floor's cost (or half its rate); against a peer library, ``12× better`` means that library costs
twelve times what mcpkit costs (or reaches a twelfth of its rate).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RAW = "raw"
MCPKIT = "mcpkit"
PEERS = ("mcp 2.3.0", "fastmcp 4.2.3")
ASYNCIO = "raw asyncio"
"""The bare asyncio + msgspec server (the anchor of the start budget)."""
IMPL_ORDER = (RAW, ASYNCIO, MCPKIT, *PEERS)
MIB = 1024 * 1024


class Results:
    """Every run of every job, and why some did not run."""

    def __init__(self) -> None:
        self.runs: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
        self.failures: dict[str, str] = {}
        self.skipped: dict[str, str] = {}

    def add(self, section: str, impl: str, variant: str, row: dict[str, Any]) -> None:
        self.runs.setdefault(section, {}).setdefault(impl, {}).setdefault(variant, []).append(row)

    def fail(self, section: str, impl: str, variant: str, reason: str) -> None:
        self.failures.setdefault(f"{section} · {impl} · {variant}", reason)

    def skip(self, section: str, impl: str, reason: str) -> None:
        self.skipped.setdefault(f"{section} · {impl}", reason)

    def median(self, section: str, impl: str, variant: str, field: str) -> float | None:
        rows = self.runs.get(section, {}).get(impl, {}).get(variant, [])
        values = [r[field] for r in rows if r.get(field) is not None and r[field] >= 0]
        return statistics.median(values) if values else None

    def count(self, section: str, impl: str, variant: str) -> int:
        return len(self.runs.get(section, {}).get(impl, {}).get(variant, []))

    def impls(self, section: str) -> list[str]:
        present = self.runs.get(section, {})
        known = [i for i in IMPL_ORDER if i in present]
        return known + sorted(i for i in present if i not in known)

    def variants(self, section: str) -> list[str]:
        seen: dict[str, None] = {}
        for by_variant in self.runs.get(section, {}).values():
            for variant in by_variant:
                seen.setdefault(variant, None)
        return list(seen)

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "failures": self.failures, "skipped": self.skipped}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Results:
        results = cls()
        results.runs = data["runs"]
        results.failures = data.get("failures", {})
        results.skipped = data.get("skipped", {})
        return results


@dataclass(frozen=True)
class Metric:
    field: str
    title: str
    unit: str
    higher_is_better: bool = False
    scale: float = 1.0


def fmt(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def times_raw(value: float | None, floor: float | None, higher: bool) -> float | None:
    """How many times the floor's cost (1.0 = as cheap as the floor)."""
    if value is None or floor is None or value <= 0 or floor <= 0:
        return None
    return floor / value if higher else value / floor


def times_better(value: float | None, anchor: float | None, higher: bool) -> float | None:
    """How many times better than an anchor (2.0 = half its cost, or twice its rate)."""
    if value is None or anchor is None or value <= 0 or anchor <= 0:
        return None
    return value / anchor if higher else anchor / value


def ratio_text(ratio: float | None, suffix: str) -> str:
    if ratio is None:
        return "–"
    return f"{ratio:.1f}×{suffix}" if ratio < 100 else f"{ratio:,.0f}×{suffix}"


def table(results: Results, section: str, variant: str, metrics: list[Metric]) -> list[str]:
    """One row per implementation; each cell: the median and its ratio to the raw floor."""
    header = "| implementation | " + " | ".join(f"{m.title} ({m.unit})" for m in metrics) + " |"
    lines = [header, "|---|" + "---:|" * len(metrics)]
    for impl in results.impls(section):
        if not results.count(section, impl, variant):
            continue
        cells = []
        for m in metrics:
            value = results.median(section, impl, variant, m.field)
            shown = None if value is None else value * m.scale
            cell = fmt(shown)
            if impl != RAW:
                floor = results.median(section, RAW, variant, m.field)
                ratio = times_raw(value, floor, m.higher_is_better)
                if ratio is not None:
                    cell += f" ({ratio_text(ratio, '')})"
            cells.append(cell)
        runs = results.count(section, impl, variant)
        lines.append(f"| {impl} ({runs}) | " + " | ".join(cells) + " |")
    return [*lines, ""]


def anchor_rows(
    results: Results, section: str, variant: str, metrics: list[Metric], label: str
) -> list[str]:
    """mcpkit against each anchor, one row per metric."""
    rows = []
    for m in metrics:
        mine = results.median(section, MCPKIT, variant, m.field)
        if mine is None:
            continue
        raw = results.median(section, RAW, variant, m.field)
        cells = [
            f"{label}: {m.title} ({m.unit})",
            fmt(mine * m.scale),
            ratio_text(times_raw(mine, raw, m.higher_is_better), " raw"),
        ]
        for peer in PEERS:
            other = results.median(section, peer, variant, m.field)
            cells.append(ratio_text(times_better(mine, other, m.higher_is_better), " better"))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


STDIO_METRICS = [
    Metric("start_to_first_answer_ms", "start → first answer", "ms"),
    Metric("startup_cpu_ms", "startup CPU", "ms"),
    Metric("sequential_calls_per_s", "sequential", "calls/s", True),
    Metric("sequential_p50_us", "p50", "µs"),
    Metric("sequential_p99_us", "p99", "µs"),
    Metric("sequential_server_cpu_us_per_call", "server CPU/call", "µs"),
    Metric("pipelined_calls_per_s", "pipelined", "calls/s", True),
    Metric("pipelined_server_cpu_us_per_call", "pipelined CPU/call", "µs"),
    Metric("sync_tool_server_cpu_us_per_call", "sync tool CPU/call", "µs"),
]
HTTP_METRICS = [
    Metric("sequential_calls_per_s", "sequential", "calls/s", True),
    Metric("sequential_p50_us", "p50", "µs"),
    Metric("sequential_p99_us", "p99", "µs"),
    Metric("sequential_server_cpu_us_per_call", "server CPU/call", "µs"),
    Metric("concurrent_calls_per_s", "32 clients", "calls/s", True),
    Metric("concurrent_p50_us", "p50", "µs"),
    Metric("concurrent_p99_us", "p99", "µs"),
    Metric("concurrent_server_cpu_us_per_call", "server CPU/call", "µs"),
]
LIST_METRICS = [
    Metric("start_to_first_answer_ms", "start → first answer", "ms"),
    Metric("p50_ms", "tools/list p50", "ms"),
    Metric("server_cpu_ms_per_list", "server CPU/list", "ms"),
    Metric("response_bytes", "response", "KiB", scale=1 / 1024),
]
LARGE_METRICS = [
    Metric("latency_ms", "latency", "ms"),
    Metric("server_cpu_ms", "server CPU", "ms"),
    Metric("peak_extra_bytes", "peak extra RSS", "MiB", scale=1 / MIB),
    Metric("payload_copies", "payload copies", "×"),
]
SESSION_METRICS = [
    Metric("rss_one_session_bytes", "RSS, 1 session", "MiB", scale=1 / MIB),
    Metric("rss_all_sessions_bytes", "RSS, +N sessions", "MiB", scale=1 / MIB),
    Metric("bytes_per_session", "per idle session", "KiB", scale=1 / 1024),
]
CLIENT_METRICS = [
    Metric("client_cpu_us_per_call", "client CPU/call", "µs"),
    Metric("calls_per_s", "calls", "calls/s", True),
]


@dataclass(frozen=True)
class Budget:
    """One line of DESIGN.md §4, checked against the medians."""

    what: str
    section: str
    variant: str
    field: str
    limit: float
    kind: str
    """``raw``: at most `limit` × the raw floor; ``raw-rate``: at least `limit` × the floor's
    rate; ``absolute``: at most `limit` in the field's own unit (after `scale`); ``better``: at
    least `limit` times cheaper than mcp 2.3.0; ``asyncio``: at most `limit` × the bare
    asyncio + msgspec server (``raw asyncio``); ``self``: at most `limit` × mcpkit's own value
    of `base` (a ``(section, variant)``) in the same run."""
    scale: float = 1.0
    unit: str = ""
    base: tuple[str, str] | None = None


BUDGETS = [
    *(
        Budget(f"stdio server CPU/call, {era}", "stdio", era,
               "sequential_server_cpu_us_per_call", 2.0, "raw", unit="µs")
        for era in ("legacy", "modern")
    ),
    *(
        Budget(f"stdio server CPU/call vs mcp, {era}", "stdio", era,
               "sequential_server_cpu_us_per_call", 15.0, "better", unit="µs")
        for era in ("legacy", "modern")
    ),
    *(
        Budget(f"stdio sequential calls/s, {era}", "stdio", era,
               "sequential_calls_per_s", 0.5, "raw-rate", unit="calls/s")
        for era in ("legacy", "modern")
    ),
    *(
        Budget(f"start → first answer, {era}", "stdio", era,
               "start_to_first_answer_ms", 1.3, "asyncio", unit="ms")
        for era in ("legacy", "modern")
    ),
    *(
        Budget(f"start with 1,000 tools, {era}", "list", era,
               "start_to_first_answer_ms", 2.0, "self", unit="ms", base=("stdio", era))
        for era in ("legacy", "modern")
    ),
    *(
        Budget(f"HTTP server CPU/call, {mode}, {load}", "http", mode,
               f"{load}_server_cpu_us_per_call", 1.5, "raw", unit="µs")
        for mode in ("legacy-sse", "legacy-json", "modern")
        for load in ("sequential", "concurrent")
    ),
    Budget("idle legacy HTTP session", "sessions", "legacy-json", "bytes_per_session",
           4.0, "absolute", scale=1 / 1024, unit="KiB"),
    *(
        Budget(f"tools/list, 1,000 tools, {era}", "list", era, "p50_ms", 1.0, "raw", unit="ms")
        for era in ("legacy", "modern")
    ),
    Budget("10 MB result over stdio", "large", "stdio 10 MB", "payload_copies",
           2.0, "absolute", unit="copies"),
]  # fmt: skip


def budget_lines(results: Results) -> list[str]:
    lines = [
        "| budget | mcpkit | raw | mcp 2.3.0 | fastmcp 4.2.3 | limit | measured | verdict |",
        "|---|---:|---:|---:|---:|---|---:|---|",
    ]
    for b in BUDGETS:
        mine = results.median(b.section, MCPKIT, b.variant, b.field)
        raw = results.median(b.section, RAW, b.variant, b.field)
        peers = [results.median(b.section, p, b.variant, b.field) for p in PEERS]
        if b.kind == "raw":
            measured = times_raw(mine, raw, False)
            limit = f"≤ {b.limit:g}× raw"
            ok = measured is not None and measured <= b.limit
            shown = ratio_text(measured, " raw")
        elif b.kind == "better":
            measured = times_better(mine, peers[0], False)
            limit = f"≥ {b.limit:g}× better than mcp"
            ok = measured is not None and measured >= b.limit
            shown = ratio_text(measured, " better")
        elif b.kind in ("asyncio", "self"):
            if b.kind == "asyncio":
                anchor = results.median(b.section, ASYNCIO, b.variant, b.field)
                name = " asyncio"
            else:
                assert b.base is not None
                anchor = results.median(b.base[0], MCPKIT, b.base[1], b.field)
                name = " without"
            measured = times_raw(mine, anchor, False)
            limit = f"≤ {b.limit:g}×{name}"
            ok = measured is not None and measured <= b.limit
            shown = "–" if measured is None else f"{measured:.2f}×{name}"
        elif b.kind == "raw-rate":
            measured = None if mine is None or not raw else mine / raw
            limit = f"≥ {b.limit:.0%} of raw"
            ok = measured is not None and measured >= b.limit
            shown = "–" if measured is None else f"{measured:.0%} of raw"
        else:
            measured = None if mine is None else mine * b.scale
            limit = f"≤ {b.limit:g} {b.unit}"
            ok = measured is not None and measured <= b.limit
            shown = fmt(measured) + f" {b.unit}"
        verdict = "not measured" if measured is None else ("**met**" if ok else "**NOT MET**")
        cells = [fmt(None if v is None else v * b.scale) for v in (mine, raw, *peers)]
        lines.append(
            f"| {b.what} ({b.unit}) | " + " | ".join(cells) + f" | {limit} | {shown} | {verdict} |"
        )
    return [*lines, ""]


def environment(
    settings: dict[str, Any], elapsed: float, quick: bool, when: float | None = None
) -> list[str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return [
        f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z', time.localtime(when))}; "
        f"run took {elapsed / 60:.1f} min "
        f"({'--quick' if quick else 'full run'})",
        f"- machine: {os.cpu_count()} cores, {cpu}; {platform.system()} {platform.release()}; "
        f"load average at the end {load} (the cores are shared: read ratios, not absolutes)",
        f"- Python {platform.python_version()} everywhere; each implementation in its own venv",
        f"- settings: {', '.join(f'{k}={v}' for k, v in settings.items())}",
        "- bytecode compiled before the run (as installed packages are); server CPU: "
        "/proc/<pid>/task/*/schedstat (ns); memory: VmRSS / VmHWM "
        "(peak reset through /proc/<pid>/clear_refs)",
        "- `(n)` after a name: runs the median is taken over; `(2.0)` after a value: times the "
        "raw floor's cost in the same table",
    ]


def render(results: Results, env: list[str]) -> str:
    """The markdown report; ``env`` is :func:`environment`'s description of the run."""
    out = ["# mcpkit benchmark report", "", *env, ""]
    if "startup" in results.runs:  # the issue #34 suite
        out += ["## Issue #34: the distance to the floors", "", *issue34_lines(results)]
    out += ["## Budgets (DESIGN.md §4)", "", *budget_lines(results)]

    headline = [
        "| metric | mcpkit | vs raw floor | vs mcp 2.3.0 | vs fastmcp 4.2.3 |",
        "|---|---:|---:|---:|---:|",
    ]
    for era in ("legacy", "modern"):
        headline += anchor_rows(results, "stdio", era, STDIO_METRICS, f"stdio {era}")
    for mode in results.variants("http"):
        headline += anchor_rows(results, "http", mode, HTTP_METRICS, f"HTTP {mode}")
    for era in ("legacy", "modern"):
        headline += anchor_rows(results, "list", era, LIST_METRICS[1:3], f"1,000 tools {era}")
    for variant in results.variants("large"):
        headline += anchor_rows(results, "large", variant, LARGE_METRICS, variant)
    headline += anchor_rows(results, "sessions", "legacy-json", SESSION_METRICS[2:], "session")
    out += ["## mcpkit against each anchor", "", *headline, ""]

    sections = [
        ("stdio", "stdio `tools/call echo`", STDIO_METRICS),
        ("http", "Streamable HTTP `tools/call echo` (uvicorn, h11, asyncio loop)", HTTP_METRICS),
        ("list", "`tools/list` with 1,000 tools (stdio, repeat calls)", LIST_METRICS),
        ("large", "Large tool results (stdio, legacy era)", LARGE_METRICS),
        ("sessions", "Idle legacy HTTP sessions (JSON mode)", SESSION_METRICS),
    ]
    for section, title, metrics in sections:
        if section not in results.runs:
            continue
        out += [f"## {title}", ""]
        for variant in results.variants(section):
            out += [f"### {variant}", "", *table(results, section, variant, metrics)]
    if "client" in results.runs:
        out += ["## Client-side CPU per `tools/call` (stdio)", "", *client_table(results)]
    if results.failures or results.skipped:
        out += ["## Not measured", ""]
        out += [f"- {k}: {v}" for k, v in {**results.skipped, **results.failures}.items()]
        out.append("")
    return "\n".join(out)


def _verdict(ratio: float | None, target: float) -> str:
    if ratio is None:
        return "–"
    return "**met**" if ratio <= target else "**NOT MET**"


def issue34_lines(results: Results) -> list[str]:
    """The five rows of issue #34, each against its floor, with the peers for scale."""
    lines = [
        "| row | raw floor | raw asyncio | mcpkit | mcp 2.3.0 | fastmcp 4.2.3 | target "
        "| mcpkit × floor | verdict |",
        "|---|---:|---:|---:|---:|---:|---|---:|---|",
    ]

    def row(label: str, values: list[float | None], target: float, unit: str) -> None:
        floor, mine = values[0], values[2]
        ratio = times_raw(mine, floor, False)
        cells = " | ".join(fmt(v) for v in values)
        lines.append(
            f"| {label} ({unit}) | {cells} | ≤ {target:g}× | {ratio_text(ratio, '')} | "
            f"{_verdict(ratio, target)} |"
        )

    impls = (RAW, ASYNCIO, MCPKIT, *PEERS)
    field = "sequential_server_cpu_us_per_call"
    for era in ("legacy", "modern"):
        values = [results.median("stdio", i, era, field) for i in impls]
        row(f"stdio server CPU/call, {era}", values, 2.0, "µs")
    clients = ("raw client", "raw asyncio client", "mcpkit client", "mcp 2.3.0 client")
    for era in ("legacy", "modern"):
        values = [
            results.median("client", c, f"raw server · {era}", "client_cpu_us_per_call")
            for c in clients
        ]
        fast = results.median("client", "fastmcp 4.2.3 client", "raw server · auto",
                              "client_cpu_us_per_call")  # fmt: skip
        row(f"client CPU/call vs raw server, {era}", [*values, fast], 2.0, "µs")
    for era in ("legacy", "modern"):
        values = [results.median("stdio", i, era, "start_to_first_answer_ms") for i in impls]
        row(f"start → first answer, {era}", values, 2.0, "ms")
    for mode, target in (("modern", 1.2), ("legacy-sse", 1.12), ("legacy-json", 1.12)):
        for phase, title in (("sequential", "seq"), ("concurrent", "32 clients")):
            metric = f"{phase}_server_cpu_us_per_call"
            values = [results.median("http", i, mode, metric) for i in impls]
            row(f"HTTP {mode} server CPU/call, {title}", values, target, "µs")
        floor = results.median("http-paired", MCPKIT, mode, "floor_us")
        if floor is not None:
            mine = results.median("http-paired", MCPKIT, mode, "mcpkit_us")
            median = results.median("http-paired", MCPKIT, mode, "block_ratio_median")
            row(
                f"HTTP {mode} server CPU/call, 32 clients, paired blocks (block median "
                f"{median:.2f}×)",
                [floor, None, mine, None, None],
                target,
                "µs",
            )
    out = [*lines, ""]
    bare = results.runs.get("startup", {}).get("bare", {}).get("python", [])
    server = results.runs.get("startup", {}).get(MCPKIT, {}).get("imports", [])
    if bare and server:
        out += [
            "Start-up breakdown (medians, ms; `-X importtime` self time by package, wall time "
            "of the interpreter alone):",
            "",
            "| what | ms |",
            "|---|---:|",
        ]
        for key in bare[0]:
            out.append(f"| `{key}` | {fmt(results.median('startup', 'bare', 'python', key))} |")
        for key in server[0]:
            value = results.median("startup", MCPKIT, "imports", key)
            out.append(f"| mcpkit server `{key}` | {fmt(value)} |")
        out.append("")
    return out


def client_table(results: Results) -> list[str]:
    lines = [
        "| client | server · era | client CPU/call (µs) | calls/s | client CPU vs raw client |",
        "|---|---|---:|---:|---:|",
    ]
    runs = results.runs["client"]
    for client in results.impls("client"):
        for variant in runs[client]:
            cpu = results.median("client", client, variant, "client_cpu_us_per_call")
            rate = results.median("client", client, variant, "calls_per_s")
            era = variant.rsplit("· ", 1)[-1].replace("auto", "legacy")
            floor = results.median(
                "client", "raw client", f"raw server · {era}", "client_cpu_us_per_call"
            )
            ratio = ratio_text(times_raw(cpu, floor, False), " raw")
            lines.append(f"| {client} | {variant} | {fmt(cpu)} | {fmt(rate)} | {ratio} |")
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    """Render a report again from a run's raw.json: ``python benchmarks/report.py RAW [OUT]``."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(main.__doc__, file=sys.stderr)
        return 2
    raw_path = Path(args[0])
    data = json.loads(raw_path.read_text())
    env = data.get("environment") or environment(
        data["settings"], data.get("elapsed_s", 0.0), False, raw_path.stat().st_mtime
    )
    text = render(Results.from_json(data), env)
    if len(args) > 1:
        Path(args[1]).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Run every benchmark, interleaved, against every implementation; write a markdown report.

    python benchmarks/run.py --quick        # ~3 minutes on 2 cores
    python benchmarks/run.py                # the full run (≤ 10 minutes on 2 cores)
    python benchmarks/run.py --only stdio --only http   # some sections only

Sections (see README.md): ``stdio`` (start → first answer, sequential, pipelined, sync tool;
both eras), ``http`` (sequential and 32 concurrent clients; legacy SSE, legacy JSON, 2026
stateless), ``list`` (`tools/list` with 1,000 tools), ``large`` (1 MB and 10 MB results),
``sessions`` (idle legacy HTTP session memory), ``client`` (client-side CPU per call).

Each repeat runs every section once, and within a section every implementation in an order
rotated between repeats, so slow drift of the shared machine spreads over all of them instead of
landing on one. The report gives medians over repeats and ratios against each anchor.

Output: benchmarks/results/report.md and benchmarks/results/raw.json (every run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from driver import ERAS, PeerError, measure, measure_large, measure_list
from http_driver import MODES, measure_http, measure_sessions
from report import Results, environment, render
from startup import bare, breakdown

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "benchmarks" / "results"
PEERS_DIR = ROOT / os.environ.get("PEERS_DIR", ".peers")
PROJECT_PYTHON = ROOT / ".venv" / "bin" / "python"
CLIENT_TIMEOUT_S = 120.0
"""One client_cpu.py run (spawn, connect, calls, close) must end within this."""


@dataclass(frozen=True)
class Impl:
    """One implementation: its interpreter, its stdio and HTTP servers, its client library."""

    name: str
    python: Path
    stdio: str | None
    http: str | None
    client: str | None
    requires: str | None = None
    """A file (relative to the repository) that must exist before this one can be measured."""
    http_requires: str | None = None

    def command(self, script: str, *extra: str) -> list[str]:
        return [str(self.python), script, *extra]


RAW = "raw"
ASYNCIO_REFERENCE = "raw asyncio"
MCPKIT = "mcpkit"
IMPLS: list[Impl] = [
    Impl(
        RAW,
        PROJECT_PYTHON,
        "benchmarks/raw_stdio_server.py",
        "benchmarks/raw_asgi_server.py",
        "raw",
    ),
    Impl(
        ASYNCIO_REFERENCE,
        PROJECT_PYTHON,
        "benchmarks/raw_asyncio_server.py",
        None,
        "raw-asyncio",
    ),
    Impl(
        MCPKIT,
        PROJECT_PYTHON,
        "benchmarks/mcpkit_server.py",
        "benchmarks/mcpkit_server.py",
        "mcpkit",
        http_requires="src/mcpkit/server/_http_entry.py",
    ),
    Impl(
        "mcp 2.3.0",
        PEERS_DIR / "mcp-venv" / "bin" / "python",
        "benchmarks/peer_servers/mcp_server.py",
        "benchmarks/peer_servers/mcp_server.py",
        "mcp",
    ),
    Impl(
        "fastmcp 4.2.3",
        PEERS_DIR / "fastmcp-venv" / "bin" / "python",
        "benchmarks/peer_servers/fastmcp_server.py",
        "benchmarks/peer_servers/fastmcp_server.py",
        "fastmcp",
    ),
]
SECTIONS = ("stdio", "http", "http-paired", "list", "large", "sessions", "client", "startup")
SUITES = {"issue34": ("stdio", "http", "http-paired", "client", "startup")}
"""Named sets of sections (``--suite``), each with its own settings (``SUITE_SETTINGS``)."""


@dataclass(frozen=True)
class Settings:
    repeats: int
    calls: int
    pipelined: int
    warmup: int
    max_seconds: float
    """Each timed phase stops after this long (slow servers), with a minimum number of calls."""
    list_calls: int
    list_tools: int
    large_sizes: tuple[int, ...]
    large_repeats: int
    http_calls: int
    http_max_seconds: float
    sessions: int
    client_calls: int
    light_repeats: int
    """Repeats for list, large and client (each already a median over many calls)."""
    extra_starts: int
    """More spawns per stdio run, so start → first answer is a median of several starts."""
    paired_blocks: int = 300
    """``http-paired``: blocks of 10 calls per client, the floor and mcpkit taking turns
    (``http_ab.py --paired``; whole phases one after the other swing too much on a shared VM)."""


QUICK = Settings(
    repeats=2,
    calls=1500,
    pipelined=3000,
    warmup=50,
    max_seconds=1.0,
    list_calls=10,
    list_tools=1000,
    large_sizes=(1_000_000, 10_000_000),
    large_repeats=1,
    http_calls=300,
    http_max_seconds=0.6,
    sessions=300,
    client_calls=300,
    light_repeats=1,
    extra_starts=2,
)
FULL = Settings(
    repeats=5,
    calls=3000,
    pipelined=6000,
    warmup=200,
    max_seconds=1.2,
    list_calls=20,
    list_tools=1000,
    large_sizes=(1_000_000, 10_000_000),
    large_repeats=3,
    http_calls=1000,
    http_max_seconds=1.0,
    sessions=1000,
    client_calls=1000,
    light_repeats=2,
    extra_starts=3,
)


ISSUE34 = Settings(
    repeats=3,
    calls=3000,
    pipelined=3000,
    warmup=100,
    max_seconds=1.0,
    list_calls=0,
    list_tools=0,
    large_sizes=(),
    large_repeats=0,
    http_calls=600,
    http_max_seconds=0.8,
    sessions=0,
    client_calls=1000,
    light_repeats=3,
    extra_starts=3,
)
"""Issue #34's rows: stdio and HTTP server CPU, client CPU and start-up, every repeat."""
SUITE_SETTINGS = {"issue34": ISSUE34}


def unavailable(impl: Impl, script: str | None, http: bool = False) -> str | None:
    """Why `impl` cannot run `script` here, or None when it can."""
    if script is None:
        return "not applicable"
    if not impl.python.exists():
        shown = impl.python.relative_to(ROOT) if impl.python.is_relative_to(ROOT) else impl.python
        return f"{shown} missing (run scripts/install-peers)"
    for needed in (impl.requires, impl.http_requires if http else None, script):
        if needed is not None and not (ROOT / needed).exists():
            return f"{needed} does not exist yet"
    return None


class Runner:
    """Runs jobs, records results and failures, prints progress."""

    def __init__(self, settings: Settings, impls: list[Impl], sections: list[str]) -> None:
        self.settings = settings
        self.impls = impls
        self.sections = sections
        self.results = Results()

    def job(self, section: str, impl: str, variant: str, work: Callable[[], Any]) -> None:
        label = f"{section} · {impl} · {variant}"
        print(f"  {label} …", end=" ", flush=True, file=sys.stderr)
        began = time.perf_counter()
        try:
            value = work()
        except (PeerError, subprocess.SubprocessError, OSError, ValueError) as exc:
            print(f"failed: {exc}", file=sys.stderr)
            self.results.fail(section, impl, variant, str(exc))
            return
        print(f"{time.perf_counter() - began:.1f} s", file=sys.stderr)
        if isinstance(value, list):
            for item in value:
                row = asdict(item)
                self.results.add(section, impl, f"{variant} {row['size'] // 1_000_000} MB", row)
        else:
            self.results.add(
                section, impl, variant, value if isinstance(value, dict) else asdict(value)
            )

    def rotated(self, repeat: int, names: list[Impl]) -> list[Impl]:
        shift = repeat % len(names) if names else 0
        return names[shift:] + names[:shift]

    def available(self, section: str, impl: Impl, script: str | None, http: bool = False) -> bool:
        why = unavailable(impl, script, http)
        if why is None:
            return True
        if why != "not applicable":
            self.results.skip(section, impl.name, why)
        return False

    def run(self) -> None:
        s = self.settings
        for repeat in range(s.repeats):
            print(f"repeat {repeat + 1}/{s.repeats}", file=sys.stderr)
            order = self.rotated(repeat, self.impls)
            light = repeat < s.light_repeats
            if "stdio" in self.sections:
                self.stdio(order)
            if "http" in self.sections:
                self.http(order)
            if "http-paired" in self.sections and repeat == 0:
                self.http_paired()
            if "list" in self.sections and light:
                self.tools_list(order)
            if "large" in self.sections and light:
                self.large(order)
            if "sessions" in self.sections and repeat == 0:
                self.sessions(order)
            if "client" in self.sections and light:
                self.client(order)
            if "startup" in self.sections and light:
                self.startup()

    def startup(self) -> None:
        """Where mcpkit's start goes (``startup.py``), and the bare interpreter's."""
        mcpkit = next(i for i in self.impls if i.name == MCPKIT)
        self.job("startup", "bare", "python", lambda: bare(str(PROJECT_PYTHON), 3))
        self.job(
            "startup",
            MCPKIT,
            "imports",
            lambda: breakdown(mcpkit.command(mcpkit.stdio), 3),  # type: ignore[arg-type]
        )

    def stdio(self, order: list[Impl]) -> None:
        s = self.settings
        for impl in order:
            if not self.available("stdio", impl, impl.stdio):
                continue
            for era in ERAS:
                command = impl.command(impl.stdio)  # type: ignore[arg-type]
                self.job(
                    "stdio",
                    impl.name,
                    era,
                    lambda c=command, e=era: measure(  # type: ignore[misc]
                        c, e, s.calls, s.pipelined, s.warmup, s.max_seconds, s.extra_starts
                    ),
                )

    def http(self, order: list[Impl]) -> None:
        s = self.settings
        for impl in order:
            if not self.available("http", impl, impl.http, http=True):
                continue
            for mode in MODES:
                command = impl.command(impl.http)  # type: ignore[arg-type]
                self.job(
                    "http",
                    impl.name,
                    mode,
                    lambda c=command, m=mode: measure_http(  # type: ignore[misc]
                        c, m, s.http_calls, s.warmup // 4, s.http_max_seconds
                    ),
                )

    def http_paired(self) -> None:
        """The floor and mcpkit served at once, 32 clients each, timed in alternating blocks."""
        floor, mine = (next(i for i in self.impls if i.name == n) for n in (RAW, MCPKIT))
        if not (self.available("http-paired", floor, floor.http, http=True)
                and self.available("http-paired", mine, mine.http, http=True)):  # fmt: skip
            return
        for mode in MODES:
            self.job(
                "http-paired",
                MCPKIT,
                mode,
                lambda m=mode: paired_http(floor, mine, m, self.settings.paired_blocks),  # type: ignore[misc]
            )

    def tools_list(self, order: list[Impl]) -> None:
        s = self.settings
        for impl in order:
            if impl.name == ASYNCIO_REFERENCE or not self.available("list", impl, impl.stdio):
                continue
            for era in ERAS:
                command = impl.command(impl.stdio, "--tools", str(s.list_tools))  # type: ignore[arg-type]
                self.job(
                    "list",
                    impl.name,
                    era,
                    lambda c=command, e=era: measure_list(  # type: ignore[misc]
                        c, e, s.list_calls, s.list_tools
                    ),
                )

    def large(self, order: list[Impl]) -> None:
        s = self.settings
        for impl in order:
            if impl.name == ASYNCIO_REFERENCE or not self.available("large", impl, impl.stdio):
                continue
            command = impl.command(impl.stdio)  # type: ignore[arg-type]
            self.job(
                "large",
                impl.name,
                "stdio",
                lambda c=command: measure_large(c, "legacy", s.large_sizes, s.large_repeats),  # type: ignore[misc]
            )

    def sessions(self, order: list[Impl]) -> None:
        s = self.settings
        for impl in order:
            if not self.available("sessions", impl, impl.http, http=True):
                continue
            command = impl.command(impl.http)  # type: ignore[arg-type]
            self.job(
                "sessions",
                impl.name,
                "legacy-json",
                lambda c=command: measure_sessions(c, s.sessions),  # type: ignore[misc]
            )

    def client(self, order: list[Impl]) -> None:
        """mcpkit's client against every server; every client against the raw floor."""
        servers = [i for i in order if i.client is not None and i.stdio is not None]
        clients = [i for i in order if i.client is not None]
        raw = next(i for i in self.impls if i.name == RAW)
        pairs = [(c, raw) for c in clients] + [
            (c, srv)
            for c in clients
            if c.name == MCPKIT
            for srv in servers
            if srv.name not in (RAW, ASYNCIO_REFERENCE)
        ]
        for client, server in pairs:
            if not self.available("client", client, "benchmarks/client_cpu.py"):
                continue
            if not self.available("client", server, server.stdio):
                continue
            eras = ERAS if client.client != "fastmcp" else ("auto",)
            for era in eras:
                self.job(
                    "client",
                    f"{client.name} client",
                    f"{server.name} server · {era}",
                    lambda c=client, srv=server, e=era: run_client(c, srv, e, self.settings),  # type: ignore[misc]
                )


def paired_http(floor: Impl, mine: Impl, mode: str, blocks: int) -> dict[str, float]:
    """µs of server CPU per call of each, over all blocks, and the block ratios' quartiles."""
    import asyncio

    import http_ab

    servers = [
        http_ab.Server(RAW, str(ROOT / floor.http), None),  # type: ignore[operator]
        http_ab.Server(MCPKIT, str(ROOT / mine.http), None),  # type: ignore[operator]
    ]
    runs = asyncio.run(http_ab.run_paired(servers, mode, blocks, per_client=10))
    summary = http_ab.summarise_paired(runs[RAW], runs[MCPKIT])
    return {
        "floor_us": summary.floor_us,
        "mcpkit_us": summary.server_us,
        "block_ratio_median": summary.block_ratio_median,
        "block_ratio_q1": summary.block_ratio_q1,
        "block_ratio_q3": summary.block_ratio_q3,
    }


def run_client(client: Impl, server: Impl, era: str, settings: Settings) -> dict[str, float]:
    command = [
        str(client.python),
        "benchmarks/client_cpu.py",
        "--client",
        str(client.client),
        "--era",
        era if era != "auto" else "legacy",
        "--calls",
        str(settings.client_calls),
        "--warmup",
        str(settings.warmup // 4),
        "--",
        *server.command(server.stdio),  # type: ignore[arg-type]
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise PeerError(f"client exited {done.returncode}: …{done.stderr.strip()[-400:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def compile_bytecode() -> None:
    """Compile mcpkit and the benchmark scripts first, as an installed package would be.

    With ``PYTHONDONTWRITEBYTECODE`` set (common in containers) a stale ``.pyc`` is never
    refreshed, and every server start would include compiling whatever changed since: that
    measures the checkout, not the library. The peers' venvs were compiled by pip.
    """
    subprocess.run(
        [str(PROJECT_PYTHON), "-m", "compileall", "-q", "src/mcpkit", "benchmarks"],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer calls and repeats")
    parser.add_argument(
        "--suite", choices=sorted(SUITES), help="a named set of sections with its own settings"
    )
    parser.add_argument("--only", action="append", choices=SECTIONS, default=[], help="section")
    parser.add_argument(
        "--server", action="append", default=[], help="only this implementation (raw always runs)"
    )
    parser.add_argument("--output", type=Path, default=RESULTS_DIR, help="report directory")
    args = parser.parse_args()
    settings = QUICK if args.quick else FULL
    if args.suite is not None:
        settings = SUITE_SETTINGS[args.suite]
        args.only = args.only or list(SUITES[args.suite])
    os.chdir(ROOT)
    compile_bytecode()
    impls = [i for i in IMPLS if not args.server or i.name in args.server or i.name == RAW]
    runner = Runner(settings, impls, args.only or list(SECTIONS))
    began = time.perf_counter()
    runner.run()
    elapsed = time.perf_counter() - began
    args.output.mkdir(parents=True, exist_ok=True)
    env = environment(asdict(settings), elapsed, quick=args.quick)
    text = render(runner.results, env)
    (args.output / "report.md").write_text(text)
    raw = {
        "settings": asdict(settings),
        "elapsed_s": elapsed,
        "environment": env,
        **runner.results.to_json(),
    }
    (args.output / "raw.json").write_text(json.dumps(raw, indent=2))
    print(text)
    print(f"written: {args.output / 'report.md'} ({elapsed:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

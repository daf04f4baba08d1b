"""Interleaved A/B runs of HTTP servers: server CPU per ``tools/call`` with 32 clients.

CPU time on a shared machine drifts with load, so servers are compared in the same runs: each
repeat starts every server in turn (the order rotated between repeats), warms up 32 keep-alive
clients of ``http_driver.py``, and times their calls; the report gives medians and, per repeat,
each server's ratio to the first one named (the floor). Typical use: the raw ASGI floor, the
code before a change and after it (a ``git worktree`` of the old commit)::

    python benchmarks/http_ab.py --modes legacy-sse,legacy-json,modern --repeats 7 \\
        raw=benchmarks/raw_asgi_server.py \\
        before=/tmp/base/src:/tmp/base/benchmarks/mcpkit_server.py \\
        after=src:benchmarks/mcpkit_server.py

A server is ``NAME=[PYTHONPATH:]SCRIPT``; every script runs under this interpreter with the
command line of ``httpserve.ServerArgs``.

``--paired BLOCKS`` measures on a noisy machine (a VM whose neighbours take the CPU's caches and
cycles in bursts lasting seconds, so whole-repeat ratios swing 0.9-1.6x): every server runs at
once, each with its 32 warm clients, and the timed calls are cut into BLOCKS short blocks (each
``--per-client`` calls per client), the servers taking turns block by block (order rotated). A
burst then lands on neighbouring blocks of every server alike; the report gives each server's
CPU per call over all its blocks and the median and quartiles of the block-by-block ratios to the
floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_driver import CONCURRENT_CLIENTS, MODES, HttpServer, McpHttpClient, mode_flags
from procstats import CpuClock

WARMUP_ROUNDS = 5
"""Calls per client before the timed ones (every connection and code path warm)."""


@dataclass(frozen=True)
class Server:
    name: str
    script: str
    pythonpath: str | None

    @classmethod
    def parse(cls, spec: str) -> Server:
        name, _, where = spec.partition("=")
        if not name or not where:
            raise SystemExit(f"server {spec!r}: expected NAME=[PYTHONPATH:]SCRIPT")
        path, _, script = where.rpartition(":")
        return cls(name, script, path or None)


def _start(server: Server, mode: str) -> HttpServer:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if server.pythonpath is not None:
        env["PYTHONPATH"] = server.pythonpath
    return HttpServer([sys.executable, server.script], mode_flags(mode), env)


async def _warm_clients(process: HttpServer, mode: str) -> list[McpHttpClient]:
    """32 clients of a started server, connected (sessions opened) and warmed up."""
    await process.wait_ready()
    clients = [McpHttpClient(process.port, mode) for _ in range(CONCURRENT_CLIENTS)]
    await asyncio.gather(*(client.open() for client in clients))
    for _ in range(WARMUP_ROUNDS):
        await asyncio.gather(*(client.echo() for client in clients))
    return clients


async def _timed_calls(process: HttpServer, clients: list[McpHttpClient], per_client: int) -> float:
    """µs of the server's CPU per call while each client makes ``per_client`` calls."""

    async def calls(client: McpHttpClient) -> None:
        for _ in range(per_client):
            await client.echo()

    before = process.cpu.read()
    await asyncio.gather(*(calls(client) for client in clients))
    spent = CpuClock.delta(before, process.cpu.read())
    return spent / (per_client * len(clients)) * 1e6


async def _timed(server: Server, mode: str, per_client: int) -> float:
    process = _start(server, mode)
    clients: list[McpHttpClient] = []
    try:
        clients = await _warm_clients(process, mode)
        return await _timed_calls(process, clients, per_client)
    finally:
        for client in clients:
            await client.close()
        process.stop()


def run(
    servers: Sequence[Server], modes: Sequence[str], repeats: int, per_client: int
) -> dict[str, dict[str, list[float]]]:
    """µs of server CPU per call: ``{mode: {server: [one per repeat]}}``."""
    results = {mode: {server.name: [] for server in servers} for mode in modes}
    for repeat in range(repeats):
        for mode in modes:
            shift = repeat % len(servers)
            for server in [*servers[shift:], *servers[:shift]]:
                results[mode][server.name].append(asyncio.run(_timed(server, mode, per_client)))
        print(f"repeat {repeat + 1}/{repeats}, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return results


async def run_paired(
    servers: Sequence[Server], mode: str, blocks: int, per_client: int
) -> dict[str, list[float]]:
    """µs of server CPU per call in each block: ``{server: [one per block]}``."""
    processes: list[HttpServer] = []
    fleets: list[list[McpHttpClient]] = []
    try:
        for server in servers:
            processes.append(_start(server, mode))
        for process in processes:
            fleets.append(await _warm_clients(process, mode))
        results: dict[str, list[float]] = {server.name: [] for server in servers}
        order = list(range(len(servers)))
        for block in range(blocks):
            shift = block % len(order)
            for index in [*order[shift:], *order[:shift]]:
                per_call = await _timed_calls(processes[index], fleets[index], per_client)
                results[servers[index].name].append(per_call)
        return results
    finally:
        for clients in fleets:
            for client in clients:
                await client.close()
        for process in processes:
            process.stop()


@dataclass(frozen=True)
class PairedSummary:
    """One server against the floor over the blocks of one paired run."""

    floor_us: float
    server_us: float
    """CPU per call over all blocks (µs)."""
    block_ratio_q1: float
    block_ratio_median: float
    block_ratio_q3: float

    @property
    def ratio(self) -> float:
        return self.server_us / self.floor_us


def summarise_paired(floor: Sequence[float], values: Sequence[float]) -> PairedSummary:
    """``values`` (one per block) against the ``floor``'s blocks of the same run."""
    ratios = [value / base for value, base in zip(values, floor, strict=True)]
    low, median, high = statistics.quantiles(ratios, n=4)
    return PairedSummary(statistics.fmean(floor), statistics.fmean(values), low, median, high)


def render_paired(mode: str, results: dict[str, list[float]]) -> str:
    names = list(results)
    floor = results[names[0]]
    lines = []
    for name in names:
        values = results[name]
        line = (
            f"{mode:12} {name:10} {statistics.fmean(values):7.1f} us per call over "
            f"{len(values)} blocks"
        )
        if name != names[0]:
            s = summarise_paired(floor, values)
            line += (
                f"  ({s.ratio:.3f}x {names[0]} over all; block ratios median "
                f"{s.block_ratio_median:.3f}, quartiles {s.block_ratio_q1:.3f}-"
                f"{s.block_ratio_q3:.3f})"
            )
        lines.append(line)
    return "\n".join(lines)


def render(results: dict[str, dict[str, list[float]]]) -> str:
    lines = []
    for mode, by_server in results.items():
        names = list(by_server)
        floor = by_server[names[0]]
        for name in names:
            values = by_server[name]
            median = statistics.median(values)
            line = f"{mode:12} {name:10} median {median:7.1f} us"
            if name != names[0]:
                ratios = [value / base for value, base in zip(values, floor, strict=True)]
                line += (
                    f"  ({median / statistics.median(floor):.2f}x {names[0]}; per repeat "
                    f"{min(ratios):.2f}-{max(ratios):.2f}, median {statistics.median(ratios):.2f})"
                )
            lines.append(line + "  [" + " ".join(f"{v:.0f}" for v in values) + "]")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modes", default="legacy-sse", help="comma-separated: " + ",".join(MODES))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--per-client", type=int, default=60, help="timed calls per client")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    parser.add_argument(
        "--paired",
        type=int,
        metavar="BLOCKS",
        help="every server at once, taking turns in BLOCKS short blocks (see above)",
    )
    parser.add_argument("servers", nargs="+", help="NAME=[PYTHONPATH:]SCRIPT, the floor first")
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown mode(s): {', '.join(sorted(unknown))}")
    servers = [Server.parse(spec) for spec in args.servers]
    started = time.perf_counter()
    if args.paired:
        paired = {
            mode: asyncio.run(run_paired(servers, mode, args.paired, args.per_client))
            for mode in modes
        }
        for mode, by_server in paired.items():
            print(json.dumps({mode: by_server}) if args.json else render_paired(mode, by_server))
        print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
        return 0
    results = run(servers, modes, args.repeats, args.per_client)
    print(json.dumps(results) if args.json else render(results))
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

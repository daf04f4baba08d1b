"""Two git revisions of mcpkit side by side in one run: server CPU per call and start-up.

A change that should not cost anything (a refactoring, a new structure) is checked here: each
revision is checked out in a temporary ``git worktree`` under /tmp, and its own
``benchmarks/mcpkit_server.py`` runs under this interpreter with ``PYTHONPATH=<worktree>/src``
(the same dependencies for both). Every repeat measures both revisions, in an order that
alternates between repeats, so the drift of a shared machine lands on both. What is measured,
with the drivers the other benchmarks use:

* ``stdio legacy`` / ``stdio modern`` — server CPU per sequential ``tools/call echo`` over stdio
  (``driver.measure``; 2025-11-25 after ``initialize``, 2026-07-28 with ``_meta``);
* ``start → first answer`` — process start to the first answer (``initialize`` /
  ``server/discover``), the median of several starts (``driver.open_session``);
* ``http legacy-sse`` / ``http legacy-json`` / ``http modern`` — server CPU per ``tools/call``
  with 32 keep-alive clients (``http_ab``; a legacy session answered as SSE or JSON, and
  2026-07-28 stateless POSTs).

The table gives each side's median over repeats and new/old: the ratio of the medians, and the
range of the per-repeat ratios (each from one repeat, the two sides measured minutes apart at
most). Below 1 the new revision costs less.

    python benchmarks/compare_revs.py a4f6bc5 HEAD --repeats 7
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import http_ab  # noqa: E402
from driver import ERA_LEGACY, ERA_MODERN, StdioPeer, measure, open_session  # noqa: E402

HTTP_MODES = ("legacy-sse", "legacy-json", "modern")
STARTS = 5
"""Process starts per revision and repeat for the start-up figure (their median)."""


@dataclass(frozen=True)
class Revision:
    """One revision checked out for the run."""

    label: str
    sha: str
    tree: Path

    @property
    def script(self) -> Path:
        return self.tree / "benchmarks" / "mcpkit_server.py"

    @property
    def src(self) -> Path:
        return self.tree / "src"


def _git(*args: str, cwd: Path = BENCHMARKS) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@contextlib.contextmanager
def checked_out(revs: Sequence[str]) -> Iterator[list[Revision]]:
    """A temporary worktree per revision (removed at the end), its bytecode compiled first."""
    base = Path(tempfile.mkdtemp(prefix="mcpkit-revs-"))
    made: list[Path] = []
    try:
        revisions = []
        for index, rev in enumerate(revs):
            sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
            tree = base / f"{index}-{sha[:10]}"
            _git("worktree", "add", "--detach", str(tree), sha)
            made.append(tree)
            compileall.compile_dir(tree / "src", quiet=1)
            compileall.compile_dir(tree / "benchmarks", quiet=1, maxlevels=0)
            revisions.append(Revision(rev, sha, tree))
        yield revisions
    finally:
        for tree in made:
            _git("worktree", "remove", "--force", str(tree))
        with contextlib.suppress(OSError):
            base.rmdir()


@contextlib.contextmanager
def _pythonpath(path: Path) -> Iterator[None]:
    """Children spawned inside (the stdio driver inherits the environment) import ``path``."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(path)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


def _stdio_cpu(rev: Revision, era: str, calls: int) -> float:
    command = [sys.executable, str(rev.script)]
    with _pythonpath(rev.src):
        result = measure(command, era, calls, pipelined=200, warmup=max(50, calls // 10))
    return result.sequential_server_cpu_us_per_call


def _startup(rev: Revision) -> float:
    command = [sys.executable, str(rev.script)]
    times = []
    with _pythonpath(rev.src):
        for _ in range(STARTS):
            peer = StdioPeer(command)
            try:
                times.append(open_session(peer, ERA_LEGACY)[0])
            finally:
                peer.close()
    return statistics.median(times)


def _http_cpu(rev: Revision, mode: str, per_client: int) -> float:
    server = http_ab.Server(rev.label, str(rev.script), str(rev.src))
    return asyncio.run(http_ab._timed(server, mode, per_client))


def metrics(calls: int, per_client: int) -> dict[str, Callable[[Revision], float]]:
    """Every figure compared: its name (with its unit) → how to measure it for a revision."""
    table: dict[str, Callable[[Revision], float]] = {
        "stdio legacy: server CPU us/call": lambda rev: _stdio_cpu(rev, ERA_LEGACY, calls),
        "stdio modern: server CPU us/call": lambda rev: _stdio_cpu(rev, ERA_MODERN, calls),
        "start -> first answer ms": _startup,
    }
    for mode in HTTP_MODES:
        table[f"http {mode}: server CPU us/call"] = (
            lambda rev, mode=mode: _http_cpu(rev, mode, per_client)  # type: ignore[misc]
        )
    return table


def run(
    revisions: Sequence[Revision], repeats: int, calls: int, per_client: int
) -> dict[str, dict[str, list[float]]]:
    """``{metric: {label: [one value per repeat]}}``, the revisions' order alternating."""
    table = metrics(calls, per_client)
    results: dict[str, dict[str, list[float]]] = {
        name: {rev.label: [] for rev in revisions} for name in table
    }
    for repeat in range(repeats):
        order = list(revisions) if repeat % 2 == 0 else list(reversed(revisions))
        for name, measure_one in table.items():
            for rev in order:
                results[name][rev.label].append(measure_one(rev))
        load = os.getloadavg()[0]
        print(f"repeat {repeat + 1}/{repeats} done, load {load:.1f}", file=sys.stderr)
    return results


def render(results: dict[str, dict[str, list[float]]], old: str, new: str) -> str:
    """A markdown table: medians, new/old of the medians, and the per-repeat ratios' range."""
    lines = [
        f"| figure | {old} (old) | {new} (new) | new/old | per repeat |",
        "|---|---:|---:|---:|---|",
    ]
    for name, by_rev in results.items():
        before, after = by_rev[old], by_rev[new]
        ratios = sorted(a / b for a, b in zip(after, before, strict=True) if b)
        ratio = statistics.median(after) / statistics.median(before)
        spread = f"{ratios[0]:.2f}-{ratios[-1]:.2f}" if ratios else "-"
        lines.append(
            f"| {name} | {statistics.median(before):.1f} | {statistics.median(after):.1f} "
            f"| {ratio:.3f} | {spread} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", help="the revision before (any git revision)")
    parser.add_argument("new", help="the revision after")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000, help="sequential stdio calls")
    parser.add_argument("--per-client", type=int, default=60, help="HTTP calls per client")
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    args = parser.parse_args(argv)
    if args.old == args.new:
        parser.error("name two different revisions")
    # stopped with SIGTERM, still remove the worktrees and stop the server being measured
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    started = time.perf_counter()
    with checked_out([args.old, args.new]) as revisions:
        for rev in revisions:
            print(f"{rev.label} = {rev.sha[:10]} in {rev.tree}", file=sys.stderr)
        results = run(revisions, args.repeats, args.calls, args.per_client)
    print(json.dumps(results) if args.json else render(results, args.old, args.new))
    print(
        f"({args.repeats} repeats, {time.perf_counter() - started:.0f} s, "
        f"load {os.getloadavg()[0]:.1f} at the end)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

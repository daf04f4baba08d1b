"""Interleaved A/B runs of stdio clients: client CPU per sequential ``tools/call echo``.

The client counterpart of ``stdio_ab.py``: each repeat runs ``client_cpu.py`` once for every
client named, in an order rotated between repeats, against the raw stdlib server, and the
report gives medians and, per repeat, each client's ratio to the first one named (the floor,
usually the blocking stdlib client)::

    python benchmarks/client_ab.py --eras legacy,modern --repeats 9 \\
        raw=raw before=/tmp/base/src:mcpkit after=src:mcpkit

A client is ``NAME=[PYTHONPATH:]CLIENT`` with ``CLIENT`` one of ``client_cpu.py --client``'s
choices; a ``PYTHONPATH`` runs the client against that tree (e.g. an older commit's ``src``
unpacked with ``git archive``). The load average is printed after each repeat: CPU times on a
shared machine are only comparable within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class ClientSpec:
    """One client to time: its report name, the library, and the tree it runs from."""

    name: str
    client: str
    pythonpath: str | None

    @classmethod
    def parse(cls, spec: str) -> ClientSpec:
        name, _, rest = spec.partition("=")
        path, _, client = rest.rpartition(":")
        return cls(name, client or rest, path or None)


def _timed(spec: ClientSpec, era: str, calls: int, warmup: int) -> float:
    """One run of ``client_cpu.py``: the client's CPU µs per call."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if spec.pythonpath is not None:
        env["PYTHONPATH"] = str((ROOT / spec.pythonpath).resolve())
    command = [
        sys.executable,
        str(HERE / "client_cpu.py"),
        "--client",
        spec.client,
        "--era",
        era,
        "--calls",
        str(calls),
        "--warmup",
        str(warmup),
        "--",
        sys.executable,
        str(HERE / "raw_stdio_server.py"),
    ]
    out = subprocess.run(
        command, env=env, check=True, capture_output=True, timeout=RUN_TIMEOUT_S, cwd=ROOT
    )
    result: dict[str, float] = json.loads(out.stdout.decode().strip().splitlines()[-1])
    return result["client_cpu_us_per_call"]


def run(
    specs: Sequence[ClientSpec], eras: Sequence[str], repeats: int, calls: int, warmup: int
) -> dict[str, dict[str, list[float]]]:
    """µs of client CPU per call: ``{era: {client: [one per repeat]}}``."""
    results: dict[str, dict[str, list[float]]] = {
        era: {spec.name: [] for spec in specs} for era in eras
    }
    for repeat in range(repeats):
        for era in eras:
            shift = repeat % len(specs)
            for spec in [*specs[shift:], *specs[:shift]]:
                results[era][spec.name].append(_timed(spec, era, calls, warmup))
        print(f"repeat {repeat + 1}/{repeats}, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return results


def render(results: dict[str, dict[str, list[float]]]) -> str:
    """Medians, and the median of the per-repeat ratios to the first client."""
    lines = []
    for era, by_client in results.items():
        names = list(by_client)
        floor = by_client[names[0]]
        lines.append(f"{era}:")
        for name in names:
            values = by_client[name]
            ratios = [value / base for value, base in zip(values, floor, strict=True)]
            lines.append(
                f"  {name:>10} {statistics.median(values):8.2f} us  "
                f"x{names[0]} median {statistics.median(ratios):.2f} "
                f"(per repeat {', '.join(f'{r:.2f}' for r in ratios)})"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--eras", default="legacy,modern", help="comma-separated: legacy,modern")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000, help="timed sequential calls")
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    parser.add_argument("clients", nargs="+", help="NAME=[PYTHONPATH:]CLIENT, the floor first")
    args = parser.parse_args(argv)
    eras = args.eras.split(",")
    if set(eras) - {"legacy", "modern"}:
        parser.error(f"unknown era(s) in {args.eras}")
    specs = [ClientSpec.parse(spec) for spec in args.clients]
    started = time.perf_counter()
    results = run(specs, eras, args.repeats, args.calls, args.warmup)
    print(json.dumps(results) if args.json else render(results))
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a stdio server's start goes: ``-X importtime`` by package, and the bare interpreter.

For one server command, ``breakdown`` starts it ``runs`` times with ``-X importtime``, hands it
one ``initialize`` on a pipe, waits for the answer and sums the imports' own time by top-level
package (``mcpkit``, ``asyncio``, ``msgspec``, the rest of the stdlib, third parties), medians
over the runs. ``bare`` times ``python -c pass`` and ``python -c "import asyncio, msgspec"``
the same way: what any Python asyncio + msgspec server pays before its first line runs.
Wall times of imports on a loaded machine are noisy; ``stdio_instructions.py``-style callgrind
counts (see README.md) are the repeatable figure, this is the attribution.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "startup", "version": "0"},
        },
    }
).encode()
GROUPS = ("mcpkit", "asyncio", "msgspec")


def _group(module: str) -> str:
    top = module.split(".", 1)[0]
    if top in GROUPS:
        return top
    if top in sys.stdlib_module_names or top.startswith("_"):
        return "other stdlib"
    return "third party"


def _one(command: Sequence[str]) -> tuple[float, dict[str, float]]:
    """Start → answer (ms), and import self-time by group (ms), for one start."""
    began = time.perf_counter()
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        input=INITIALIZE + b"\n",
        capture_output=True,
        timeout=120,
        check=True,
    )
    wall = (time.perf_counter() - began) * 1e3
    by_group: dict[str, float] = defaultdict(float)
    for line in done.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        self_us, _, name = (part.strip() for part in line[len("import time:") :].split("|"))
        if self_us.isdigit():
            by_group[_group(name)] += int(self_us) / 1e3
    return wall, by_group


def breakdown(command: Sequence[str], runs: int = 5) -> dict[str, float]:
    """Medians over ``runs`` starts: ``start_ms`` and ``imports_<group>_ms`` per group."""
    walls: list[float] = []
    groups: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        wall, by_group = _one(command)
        walls.append(wall)
        for name in (*GROUPS, "other stdlib", "third party"):
            groups[name].append(by_group.get(name, 0.0))
    result = {"start_ms": statistics.median(walls)}
    for name, values in groups.items():
        result[f"imports_{name.replace(' ', '_')}_ms"] = statistics.median(values)
    return result


def bare(python: str, runs: int = 5) -> dict[str, float]:
    """The interpreter alone, and with asyncio and msgspec imported (ms, medians)."""
    out: dict[str, float] = {}
    for label, code in (
        ("python_pass_ms", "pass"),
        ("asyncio_msgspec_ms", "import asyncio, msgspec"),
    ):
        walls = []
        for _ in range(runs):
            began = time.perf_counter()
            subprocess.run([python, "-c", code], check=True, timeout=60)
            walls.append((time.perf_counter() - began) * 1e3)
        out[label] = statistics.median(walls)
    return out


if __name__ == "__main__":
    print(json.dumps({"bare": bare(sys.executable), "server": breakdown(sys.argv[1:])}, indent=2))

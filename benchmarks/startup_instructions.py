"""Start → first answer in instructions (callgrind), and where they go.

    # the count: one ``initialize`` on a pipe, answered, stdin closed, the process exits
    python benchmarks/startup_instructions.py raw=benchmarks/raw_stdio_server.py \\
        asyncio=benchmarks/raw_asyncio_server.py mcpkit=benchmarks/mcpkit_server.py
    # a branch point against this tree (``NAME=PYTHONPATH:SCRIPT``, as stdio_ab.py takes)
    python benchmarks/startup_instructions.py before=/tmp/base/src:benchmarks/mcpkit_server.py \\
        after=src:benchmarks/mcpkit_server.py
    # and the breakdown: phases, packages, the modules that cost most (--top N)
    python benchmarks/startup_instructions.py --by-module \\
        asyncio=benchmarks/raw_asyncio_server.py mcpkit=benchmarks/mcpkit_server.py

Each server runs under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0`` and its bytecode
compiled first (``compileall``, as an installed package is): the count moves by < 0.1 % between
runs, where start-up wall time on this shared machine moves by tens of percent. The count covers
the whole process, interpreter shutdown included; ``--by-module`` shows how much of it that is.

``--by-module`` runs each server once more through ``startup_marks.py`` (see there) and splits
the count into phases — the interpreter's own start, imports (by package and by module: each
module's *self*, i.e. finding and loading it and running its top-level code), the script's own
top-level code, the event loop's run (``asyncio.Runner.run``, imports inside it excluded) and
the exit after the script returns. Marks cost a little (the marked total is a bit higher).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from startup import INITIALIZE  # the same first request as startup.py (run from benchmarks/)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TIMEOUT_S = 600.0
GROUPS = ("mcpkit", "asyncio", "msgspec", "ssl")


def _target(spec: str) -> tuple[str, list[str], str]:
    """``NAME=[PYTHONPATH:]SCRIPT`` → (name, PYTHONPATH entries, script)."""
    name, _, rest = spec.partition("=")
    *paths, script = rest.split(":")
    return name, paths, script


def _env(paths: list[str]) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("MCPKIT_WIRE_LOG", None)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in paths)
    return env


def _compile(paths: list[str], script: str) -> None:
    dirs = [*paths, str(Path(script).parent), str(ROOT / "src")]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *dirs], check=True, stdout=subprocess.DEVNULL
    )


def _totals(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def _answered(stdout: bytes) -> None:
    first = json.loads(stdout.splitlines()[0])
    if first.get("id") != 0 or "result" not in first:
        raise RuntimeError(f"no initialize result: {stdout[:200]!r}")


def count(paths: list[str], script: str) -> int:
    """Instructions of one start → ``initialize`` answer → stdin closed → exit."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "-q", f"--callgrind-out-file={out}",
             sys.executable, script],
            input=INITIALIZE + b"\n", stdout=subprocess.PIPE, env=_env(paths),
            timeout=TIMEOUT_S, check=True, cwd=ROOT,
        )  # fmt: skip
        _answered(done.stdout)
        return _totals(out)


def _group(module: str) -> str:
    top = module.split(".", 1)[0]
    if top in GROUPS or top == "_ssl":
        return "ssl" if top == "_ssl" else top
    if top in sys.stdlib_module_names or top.startswith("_"):
        return "other stdlib"
    return "third party"


def attribute(events: list[str], segments: list[int]) -> tuple[Counter[str], Counter[str]]:
    """(instructions by phase, self instructions by module) from the marks and the segments
    between them (``segments[0]`` precedes the first mark, ``segments[i]`` follows mark i-1)."""
    phases: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    phase, stack = "interpreter start", []
    phases[phase] += segments[0]
    for event, cost in zip(events, segments[1:], strict=True):
        if event.startswith("+"):
            stack.append(event[1:])
        elif event.startswith("-"):
            stack.pop()
        else:
            phase = {
                "=script": "script top level",
                "=serve": "event loop run",
                "=served": "script top level",
                "=exit": "exit",
            }[event]
        if stack:
            modules[stack[-1]] += cost
            phases["imports"] += cost
        else:
            phases[phase] += cost
    return phases, modules


def by_module(paths: list[str], script: str) -> tuple[Counter[str], Counter[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        out, events = Path(tmp) / "cg.out", Path(tmp) / "events"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "-q", f"--callgrind-out-file={out}",
             "--dump-before=getpgrp", sys.executable, str(HERE / "startup_marks.py"),
             str(events), script],
            input=INITIALIZE + b"\n", stdout=subprocess.PIPE, env=_env(paths),
            timeout=TIMEOUT_S, check=True, cwd=ROOT,
        )  # fmt: skip
        _answered(done.stdout)
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(re.sub(r".*\.", "", p.name)))
        segments = [_totals(p) for p in dumps] + [_totals(out)]
        return attribute(events.read_text().split("\n"), segments)


def _m(value: float) -> str:
    return f"{value / 1e6:,.1f} M"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("targets", nargs="+", help="NAME=[PYTHONPATH:]SCRIPT")
    parser.add_argument("--by-module", action="store_true", help="phases, packages, modules")
    parser.add_argument("--top", type=int, default=15, help="modules listed (--by-module)")
    args = parser.parse_args()
    targets = [_target(spec) for spec in args.targets]
    for _, paths, script in targets:
        _compile(paths, script)
    names = [name for name, _, _ in targets]
    totals = {name: count(paths, script) for name, paths, script in targets}
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    cells = [_m(totals[n]) for n in names]
    print("| instructions, start → answer → exit | " + " | ".join(cells) + " |")
    if not args.by_module:
        return
    split = {name: by_module(paths, script) for name, paths, script in targets}
    for phase in ("interpreter start", "imports", "script top level", "event loop run", "exit"):
        print(f"| {phase} | " + " | ".join(_m(split[n][0][phase]) for n in names) + " |")
    for group in (*GROUPS, "other stdlib", "third party"):
        cells = [_m(sum(v for m, v in split[n][1].items() if _group(m) == group)) for n in names]
        print(f"| imports: {group} | " + " | ".join(cells) + " |")
    for name in names:
        modules = split[name][1]
        print(f"\n{name}: {len(modules)} modules imported; the {args.top} costliest (self)")
        for module, value in modules.most_common(args.top):
            print(f"  {_m(value):>10}  {module}")
    if len(names) == 2:
        first, last = (split[n][1] for n in names)
        extra = Counter({m: v - first.get(m, 0) for m, v in last.items()})
        print(f"\n{names[1]} minus {names[0]}, the {args.top} largest differences by module:")
        for module, value in extra.most_common(args.top):
            print(f"  {_m(value):>10}  {module}")


if __name__ == "__main__":
    main()

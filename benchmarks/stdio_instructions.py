"""Instructions per stdio ``tools/call echo``, server side or client side, counted by callgrind.

CPU time on a shared machine moves by ±30 % with load; an instruction count moves by < 0.5 %.
Each measurement runs the process under test under ``valgrind --tool=callgrind``
(``PYTHONHASHSEED=0``) twice, with ``A`` and ``B`` sequential calls after the same opening
exchange, and reports ``(count(B) - count(A)) / (B - A)``: start-up, the handshake and the
shutdown cancel out, what is left is the cost of one call.

    # the server's instructions per call, driven by the blocking stdlib client (client_cpu.py raw)
    python benchmarks/stdio_instructions.py server --era legacy \\
        -- .venv/bin/python benchmarks/mcpkit_server.py
    # a client's instructions per call, against the raw stdlib server (not traced)
    python benchmarks/stdio_instructions.py client --client mcpkit --era modern \\
        -- .venv/bin/python benchmarks/raw_stdio_server.py

``--calls A B`` sets the two counts (default 200 1200). The client side runs ``client_cpu.py``
under the interpreter given by ``--python`` (a peer's venv for ``mcp`` and ``fastmcp``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TIMEOUT_S = 900.0


def _totals(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def _valgrind(out: Path) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "-q"]


def count(side: str, client: str, python: str, era: str, calls: int, server: list[str]) -> int:
    """Instructions of the traced process for one run of ``calls`` sequential calls."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        driver = [str(HERE / "client_cpu.py"), "--era", era, "--calls", str(calls), "--warmup", "0"]
        if side == "server":
            command = [sys.executable, *driver, "--client", "raw", "--", *_valgrind(out), *server]
        else:
            command = [*_valgrind(out), python, *driver, "--client", client, "--", *server]
        subprocess.run(
            command, env=env, check=True, timeout=TIMEOUT_S, stdout=subprocess.DEVNULL, cwd=ROOT
        )
        return _totals(out)


def per_call(
    side: str, client: str, python: str, era: str, calls: tuple[int, int], server: list[str]
) -> dict[str, float]:
    low, high = (count(side, client, python, era, n, server) for n in calls)
    return {
        "instructions_per_call": (high - low) / (calls[1] - calls[0]),
        f"total_at_{calls[0]}": low,
        f"total_at_{calls[1]}": high,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("side", choices=("server", "client"))
    parser.add_argument("--client", default="mcpkit", help="client library (client side)")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the client")
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    parser.add_argument("--calls", type=int, nargs=2, default=(200, 1200), metavar=("A", "B"))
    parser.add_argument("command", nargs="+", help="server command (after --)")
    args = parser.parse_args(argv)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "src/mcpkit", "benchmarks"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    result = per_call(
        args.side, args.client, args.python, args.era, tuple(args.calls), args.command
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Server instructions per HTTP ``tools/call``, counted by callgrind (deterministic under load).

CPU time on a shared machine moves by ±30 % with load; an instruction count does not. This runs
one HTTP benchmark server under ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``), opens the
clients of ``http_driver.py``, warms every connection up, zeroes the counters
(``callgrind_control -z``), makes the timed calls, dumps the counters (``callgrind_control -d``)
and prints the server's instructions per call. uvicorn's main loop wakes every 0.1 s, which is
when callgrind reads its commands, so the zero and the dump land between calls.

    python benchmarks/http_instructions.py --mode legacy-sse [--clients 32] [--calls 30] \\
        -- .venv/bin/python benchmarks/mcpkit_server.py

``--calls`` is per client (32 x 30 = 960 calls, as the driver's concurrent phase with
``--calls 500``). The count includes uvicorn's main-loop ticks while callgrind takes its two
commands: a few million instructions, the same for every server (~5 k per call at 960 calls,
under 1 % of a call); compare servers at the same number of calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_driver import (
    HOST,
    MODES,
    McpHttpClient,
    PeerError,
    free_port,
    mode_flags,
)

READY_TIMEOUT_S = 300.0
CONTROL_TIMEOUT_S = 120.0


def _totals(path: Path) -> int:
    """The ``totals:`` (or ``summary:``) line of one callgrind dump: instructions executed."""
    summary = None
    for line in path.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
        if line.startswith("summary:"):
            summary = int(line.split()[1])
    if summary is None:
        raise PeerError(f"no totals in {path}")
    return summary


def _control(option: str, pid: int) -> None:
    subprocess.run(
        ["callgrind_control", option, str(pid)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=CONTROL_TIMEOUT_S,
    )


async def _wait_ready(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise PeerError(f"server exited with {proc.returncode}")
        try:
            _, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            await asyncio.sleep(0.2)
            continue
        writer.close()
        return
    raise PeerError("server not listening")


async def _calls(client: McpHttpClient, count: int) -> None:
    for _ in range(count):
        await client.echo()


async def _drive(port: int, pid: int, mode: str, clients: int, calls: int, warmup: int) -> None:
    """Open the clients, warm them up, then zero, call and dump the server's counters."""
    opened: list[McpHttpClient] = []
    try:
        opened = [McpHttpClient(port, mode) for _ in range(clients)]
        for client in opened:
            await client.open()
        await asyncio.gather(*(_calls(c, warmup) for c in opened))
        await asyncio.to_thread(_control, "-z", pid)
        await asyncio.gather(*(_calls(c, calls) for c in opened))
        await asyncio.to_thread(_control, "-d", pid)
    finally:
        for client in opened:
            await client.close()


def count(command: Sequence[str], mode: str, clients: int, calls: int, warmup: int) -> int:
    """The server's instructions over ``clients`` x ``calls`` timed calls."""
    port = free_port()
    out = Path(tempfile.mkdtemp(prefix="http-callgrind-"))
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}/cg.out",
            *command,
            "--http",
            "--port",
            str(port),
            *mode_flags(mode),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        asyncio.run(_wait_ready(port, proc))
        asyncio.run(_drive(port, proc.pid, mode, clients, calls, warmup))
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    # the dump asked for is cg.out.1 (cg.out itself is written at exit)
    dumped = sorted(p for p in out.iterdir() if p.name.rsplit(".", 1)[-1].isdigit())
    if not dumped:
        raise PeerError(f"no callgrind dump in {out}: {[p.name for p in out.iterdir()]}")
    total = _totals(dumped[0])
    for path in out.iterdir():
        path.unlink()
    out.rmdir()
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=MODES, default="legacy-sse")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--calls", type=int, default=30, help="timed calls per client")
    parser.add_argument("--warmup", type=int, default=3, help="warm-up calls per client")
    parser.add_argument("command", nargs="+", help="server command (after --)")
    args = parser.parse_args(argv)
    total = count(args.command, args.mode, args.clients, args.calls, args.warmup)
    calls = args.clients * args.calls
    print(
        json.dumps(
            {
                "mode": args.mode,
                "calls": calls,
                "instructions": total,
                "per_call": round(total / calls),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

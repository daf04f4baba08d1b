"""Worker instructions per legacy call by store, counted by callgrind (deterministic under load).

    python benchmarks/redis_call_instructions.py [--calls 400] [--shapes json,sse]
        [--stores memory,redis]

The companion of ``redis_call_cpu.py`` for a loaded machine: the same worker
(``scale_server.py``, speed stack) and the same client (one legacy session, ``tools/call echo``
awaited in turn), but the worker runs under ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``)
and what is reported is its instructions per call between a zero and a dump of the counters
(``callgrind_control``), against the memory store's for the same answer shape. Callgrind counts
user-space instructions only: the kernel's share of a Redis round trip (a ``send``, a wake-up,
a ``recv``) is not in it, so this ranks changes to the worker's own code; ``redis_call_cpu.py``
remains the figure for the budget.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_driver import McpHttpClient
from http_instructions import _control, _totals

HERE = Path(__file__).resolve().parent
SERVER = HERE / "scale_server.py"
REDIS_URL = "redis://127.0.0.1:6379/0"
_SERVING = re.compile(rb"mcpkit: serving .* at http://[^:]+:(\d+)/mcp")
START_TIMEOUT_S = 300.0


def _port(process: subprocess.Popen[bytes], log_path: Path) -> int:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        found = _SERVING.search(log_path.read_bytes())
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            raise RuntimeError(log_path.read_text(errors="replace")[-800:])
        time.sleep(0.2)
    raise RuntimeError("the worker did not start")


async def _drive(port: int, pid: int, calls: int, warmup: int) -> None:
    client = McpHttpClient(port, "legacy-json")
    await client.open()
    try:
        for _ in range(warmup):
            await client.echo()
        await asyncio.to_thread(_control, "-z", pid)
        for _ in range(calls):
            await client.echo()
        await asyncio.to_thread(_control, "-d", pid)
    finally:
        await client.close()


def count(store: str, shape: str, calls: int, warmup: int) -> int:
    """The worker's instructions over ``calls`` calls of ``shape`` answers with ``store``."""
    out = Path(tempfile.mkdtemp(prefix="redis-callgrind-"))
    argv = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}/cg.out",
        sys.executable,
        str(SERVER),
        "--stack",
        "speed",
        f"--{shape}",
    ]
    if store == "redis":
        argv += ["--redis", REDIS_URL, "--prefix", f"mcpkit-bench-{secrets.token_hex(4)}:"]
    log_path = out / "log"
    with log_path.open("wb") as log:
        env = dict(os.environ, PYTHONHASHSEED="0")
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
    try:
        port = _port(process, log_path)
        asyncio.run(_drive(port, process.pid, calls, warmup))
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    dumped = sorted(p for p in out.iterdir() if p.name.rsplit(".", 1)[-1].isdigit())
    if not dumped:
        raise RuntimeError(f"no callgrind dump in {out}")
    total = _totals(dumped[0])
    for path in out.iterdir():
        path.unlink()
    out.rmdir()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--shapes", default="json,sse")
    parser.add_argument("--stores", default="memory,redis")
    args = parser.parse_args()
    stores = args.stores.split(",")
    print(f"{args.calls} calls per configuration after {args.warmup} warm-up calls\n")
    print("| answer | store | instructions/call | vs memory |")
    print("|---|---|---:|---:|")
    for shape in args.shapes.split(","):
        base = None
        for store in stores:
            per_call = count(store, shape, args.calls, args.warmup) / args.calls
            if store == "memory":
                base = per_call
            ratio = f"{per_call / base:.2f}x" if base else "—"
            print(f"| {shape} | {store} | {per_call:,.0f} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()

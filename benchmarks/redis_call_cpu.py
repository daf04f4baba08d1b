"""CPU per legacy call by where the session and its streams live: memory, SQLite, Redis.

    python benchmarks/redis_call_cpu.py [--calls 2000] [--baseline-src DIR]

One worker (``scale_server.py``, speed stack) and one legacy client (``http_driver``, one
keep-alive connection, calls awaited in turn) calling ``tools/call echo``; each answer either as
JSON (``--json``) or as an SSE stream (``sse_after=0``: with a store, every SSE answer is a
stored, resumable stream — prime, append, close). Reported per call: the worker's CPU (µs), the
Redis server's CPU (µs, from ``INFO cpu``) and the Redis commands it executed (``INFO
commandstats``, commands inside scripts included), the worker's read and write system calls
(``/proc/<pid>/io``: deterministic where CPU time is not, and most of what a Redis round trip
costs a worker is kernel time that callgrind does not see), and the worker's CPU against the
memory configuration of the same answer shape. The three workers of one answer shape run side by
side and are called in turns (``--rounds``), so a machine whose load changes during the run
weighs on each alike. The budget (issue #29): a call on Redis at most 2x the worker CPU of the
same call in memory.

``--baseline-src DIR`` adds a fourth worker, "redis-base": the Redis configuration running the
mcpkit found in ``DIR`` (``git archive <rev> src | tar -x -C /tmp/base`` → ``/tmp/base/src``),
called in the same turns, so a change is measured before and after under the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_driver import McpHttpClient
from procstats import CpuClock

HERE = Path(__file__).resolve().parent
SERVER = HERE / "scale_server.py"
REDIS_URL = "redis://127.0.0.1:6379/0"
STORES = ("memory", "sqlite", "redis")
_SERVING = re.compile(rb"mcpkit: serving .* at http://[^:]+:(\d+)/mcp")


def _port(process: subprocess.Popen[bytes], log: IO[bytes]) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        found = _SERVING.search(log.read())
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(log.read().decode(errors="replace")[-800:])
        time.sleep(0.05)
    raise RuntimeError("the worker did not start")


def _redis_counters() -> tuple[float, int]:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        cpu = client.info("cpu")
        stats = client.info("commandstats")
    finally:
        client.close()
    seconds = float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
    commands = sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info")
    return seconds, commands


def _syscalls(pid: int) -> int:
    """Read and write system calls of process ``pid`` so far (``syscr`` + ``syscw``)."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/io").read_text().splitlines() if line
    )
    return int(fields["syscr"]) + int(fields["syscw"])


async def _calls(port: int, count: int) -> None:
    client = McpHttpClient(port, "legacy-json")
    await client.open()
    try:
        for _ in range(count):
            await client.echo()
    finally:
        await client.close()


@contextlib.contextmanager
def _worker(store: str, shape: str, tmp: str, base: str | None) -> Iterator[tuple[int, int]]:
    """One worker serving ``shape`` answers with its state in ``store``: (port, pid)."""
    argv = [sys.executable, str(SERVER), "--stack", "speed", f"--{shape}"]
    env = dict(os.environ)
    if store == "redis-base" and base is not None:
        env["PYTHONPATH"] = base  # ahead of the installed (editable) mcpkit
    if store.startswith("redis"):
        argv += ["--redis", REDIS_URL, "--prefix", f"mcpkit-bench-{secrets.token_hex(4)}:"]
    elif store == "sqlite":
        argv += ["--event-store", str(Path(tmp) / f"events-{shape}.db")]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
        try:
            yield _port(process, log), process.pid
        finally:
            process.terminate()
            process.wait(10)


def measure(shape: str, calls: int, rounds: int, base: str | None = None) -> list[dict[str, Any]]:
    """Every store's worker for ``shape``, measured in turns: ``rounds`` batches of
    ``calls / rounds`` calls each, one worker after the other, so that a machine whose load
    changes during the run weighs on every configuration alike."""
    batch = max(1, calls // rounds)
    stores = (*STORES, "redis-base") if base else STORES
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        workers = {store: stack.enter_context(_worker(store, shape, tmp, base)) for store in stores}
        for port, _ in workers.values():
            asyncio.run(_calls(port, 200))  # warm up
        cpu = dict.fromkeys(stores, 0.0)
        syscalls = dict.fromkeys(stores, 0)
        redis_cpu = dict.fromkeys(stores, 0.0)
        redis_commands = dict.fromkeys(stores, 0)
        for _ in range(rounds):
            for store, (port, pid) in workers.items():
                clock = CpuClock(pid)
                before = clock.read()
                calls_before = _syscalls(pid)
                redis_before = _redis_counters() if store.startswith("redis") else (0.0, 0)
                asyncio.run(_calls(port, batch))
                cpu[store] += clock.delta(before, clock.read())
                syscalls[store] += _syscalls(pid) - calls_before
                if store.startswith("redis"):
                    redis_after = _redis_counters()
                    redis_cpu[store] += redis_after[0] - redis_before[0]
                    redis_commands[store] += redis_after[1] - redis_before[1]
    done = batch * rounds
    return [
        {
            "store": store,
            "shape": shape,
            "worker_us": cpu[store] / done * 1e6,
            "syscalls": syscalls[store] / done,
            "redis_us": redis_cpu[store] / done * 1e6,
            "redis_commands": redis_commands[store] / done,
        }
        for store in stores
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=8, help="turns the calls are split in")
    parser.add_argument("--baseline-src", default=None, help="also run Redis on this mcpkit")
    args = parser.parse_args()
    load = os.getloadavg()
    rows = [
        row
        for shape in ("json", "sse")
        for row in measure(shape, args.calls, args.rounds, args.baseline_src)
    ]
    print(
        f"load average before: {load[0]:.1f}; {args.calls} calls per configuration, in "
        f"{args.rounds} turns\n"
    )
    print(
        "| answer | store | worker µs/call | vs memory | worker syscalls/call | Redis µs/call "
        "| Redis commands/call |"
    )
    print("|---|---|---|---|---|---|---|")
    memory = {r["shape"]: r["worker_us"] for r in rows if r["store"] == "memory"}
    for r in rows:
        print(
            f"| {r['shape']} | {r['store']} | {r['worker_us']:.0f} | "
            f"{r['worker_us'] / memory[r['shape']]:.2f}x | {r['syscalls']:.1f} | "
            f"{r['redis_us']:.0f} | "
            f"{r['redis_commands']:.1f} |"
        )


if __name__ == "__main__":
    main()

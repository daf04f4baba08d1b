"""Slow-header attack on the default serve path: latency of good requests under 1,000 idle sockets.

Starts ``server.run("http")`` in a process (mcpkit's guard on, then off), opens ``--sockets``
connections from 127.0.0.2 that send half a request header and then nothing, and times
``--requests`` sequential good requests (one new connection each, ``GET /healthz`` and a 2025
``initialize``) from 127.0.0.1. Reports, per scenario, how many good requests succeeded and
their median and p95 latency as a ratio of the no-attack baseline measured in the same run.

    python benchmarks/slow_headers.py                 # 1,000 sockets, 200 requests
    python benchmarks/slow_headers.py --sockets 3000

Linux only (it binds 127.0.0.2 as a source address, and raises RLIMIT_NOFILE).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import socket
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Final

SERVER_CODE: Final = """
import sys
from mcpkit.server import Server
server = Server("slow-headers", "1")
@server.tool
def add(a: int, b: int) -> int:
    return a + b
options = {} if sys.argv[2] == "on" else {"header_timeout": None, "max_connections_per_peer": None}
server.run("http", port=int(sys.argv[1]), log_level="error", uvicorn_options=options)
"""
INITIALIZE: Final = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
).encode()


@dataclass
class Outcome:
    scenario: str
    ok: int
    total: int
    median_ms: float
    p95_ms: float


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise RuntimeError("the server did not start")


async def _good_request(port: int, initialize: bool) -> float | None:
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        if initialize:
            head = (
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: {len(INITIALIZE)}"
                "\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode() + INITIALIZE)
        else:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        async with asyncio.timeout(10):
            answer = await reader.read()
        writer.close()
    except (OSError, TimeoutError):
        return None
    if not answer.startswith(b"HTTP/1.1 200 "):
        return None
    return time.perf_counter() - start


async def _scenario(name: str, guard: str, sockets: int, requests: int) -> Outcome:
    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SERVER_CODE, str(port), guard
    )
    slow: list[asyncio.StreamWriter] = []
    try:
        await _wait_listening(port)
        for i in range(10):  # warm-up (imports, first session), not counted
            await _good_request(port, i % 2 == 1)
        for _ in range(sockets):
            try:
                _, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=("127.0.0.2", 0)
                )
            except OSError:
                break
            writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(writer)
        times = [await _good_request(port, i % 2 == 1) for i in range(requests)]
    finally:
        for writer in slow:
            writer.close()
        process.kill()
        await process.wait()
    ok = [t * 1000 for t in times if t is not None]
    ok.sort()
    return Outcome(
        name,
        len(ok),
        requests,
        statistics.median(ok) if ok else float("nan"),
        ok[int(len(ok) * 0.95) - 1] if ok else float("nan"),
    )


async def _main(sockets: int, requests: int) -> list[Outcome]:
    return [
        await _scenario("baseline (no attack, guard on)", "on", 0, requests),
        await _scenario(f"{sockets} slow sockets, guard on", "on", sockets, requests),
        await _scenario(f"{sockets} slow sockets, guard off", "off", sockets, requests),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 3 * args.sockets + 100
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    outcomes = asyncio.run(_main(args.sockets, args.requests))
    base = outcomes[0]
    print("| scenario | good requests answered 200 | median | p95 | median vs baseline |")
    print("|---|---|---|---|---|")
    for o in outcomes:
        ratio = o.median_ms / base.median_ms if o.ok else float("nan")
        print(
            f"| {o.scenario} | {o.ok}/{o.total} | {o.median_ms:.2f} ms | {o.p95_ms:.2f} ms "
            f"| {ratio:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

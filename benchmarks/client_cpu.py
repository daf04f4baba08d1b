"""Client-side CPU per `tools/call`: one client library calling one server over stdio.

Runs inside the venv of the client being measured (mcpkit: the project's .venv; mcp and
fastmcp: their .peers venvs) and prints JSON: the client process's CPU time per call
(``time.process_time()``: every thread of this process, not the server's) and calls/s, over
sequential `echo` calls after a warm-up. The server is the command after ``--``.

    python benchmarks/client_cpu.py --client mcpkit [--era legacy|modern] --calls N -- CMD...

``--client raw`` is the floor: a blocking newline-JSON loop with the stdlib, no library.
``--client raw-asyncio`` is the asyncio floor: the same messages over an asyncio subprocess pipe,
one future per call resolved by the read callback (what the event loop alone costs a client).
``--client raw-asyncio-pipe`` is the same with the child's stdout on its own pipe, read without
the subprocess transport's extra loop iteration per chunk (two iterations per call, not three)
and 64 KiB at a time (no ``mmap`` per read): the least an asyncio client that awaits a future
pays.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

ECHO = {"text": "hello, benchmark"}
MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"


def _report(calls: int, cpu: float, wall: float) -> dict[str, float]:
    return {"client_cpu_us_per_call": cpu / calls * 1e6, "calls_per_s": calls / wall}


async def _timed(call: Callable[[], Awaitable[Any]], calls: int, warmup: int) -> dict[str, float]:
    for _ in range(warmup):
        await call()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(calls):
        await call()
    return _report(calls, time.process_time() - cpu, time.perf_counter() - wall)


async def run_mcpkit(command: list[str], era: str, calls: int, warmup: int) -> dict[str, float]:
    from mcpkit.client import Client

    mode = "2026-07-28" if era == "modern" else "legacy"
    async with Client(command, mode=mode) as client:  # type: ignore[arg-type]

        async def call() -> Any:
            result = await client.call_tool("echo", ECHO)
            if result.is_error:  # pragma: no cover - a broken server fails the run
                raise RuntimeError(f"echo failed: {result}")
            return result

        return await _timed(call, calls, warmup)


async def run_mcp(command: list[str], era: str, calls: int, warmup: int) -> dict[str, float]:
    from mcp import Client, StdioServerParameters  # type: ignore[import-not-found]

    mode = MODERN_VERSION if era == "modern" else "legacy"
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params, mode=mode) as client:

        async def call() -> Any:
            return await client.call_tool("echo", ECHO)

        return await _timed(call, calls, warmup)


async def run_fastmcp(command: list[str], era: str, calls: int, warmup: int) -> dict[str, float]:
    from fastmcp import Client  # type: ignore[import-not-found]
    from fastmcp.client.transports import StdioTransport  # type: ignore[import-not-found]

    async with Client(StdioTransport(command[0], command[1:])) as client:

        async def call() -> Any:
            return await client.call_tool("echo", ECHO)

        return await _timed(call, calls, warmup)


def run_raw(command: list[str], era: str, calls: int, warmup: int) -> dict[str, float]:
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    meta: dict[str, Any] = {}
    if era == "modern":
        meta = {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        }

    def send(message: dict[str, Any]) -> dict[str, Any] | None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        if "id" not in message:
            return None
        while True:
            answer: dict[str, Any] = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
            if answer.get("id") == message["id"]:
                return answer

    try:
        if era == "legacy":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": LEGACY_VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
            )
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ids = iter(range(1, 1 << 30))

        def call() -> None:
            params = {"name": "echo", "arguments": ECHO, **meta}
            send({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": params})

        for _ in range(warmup):
            call()
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(calls):
            call()
        return _report(calls, time.process_time() - cpu, time.perf_counter() - wall)
    finally:
        proc.stdin.close()
        proc.wait()


async def run_raw_asyncio(
    command: list[str], era: str, calls: int, warmup: int
) -> dict[str, float]:
    """The asyncio floor of a client: the raw client's messages over an asyncio subprocess
    pipe, each call a future resolved by the read callback (msgspec codec, no library). What
    any asyncio client pays at least: the event loop's wake-up per answer."""
    return await _raw_asyncio(command, era, calls, warmup, own_pipe=False)


async def run_raw_asyncio_pipe(
    command: list[str], era: str, calls: int, warmup: int
) -> dict[str, float]:
    """``raw-asyncio`` with the child's stdout on a pipe of its own (``connect_read_pipe``,
    64 KiB reads): asyncio's subprocess transport hands each chunk to the protocol one loop
    iteration later (``call_soon``), so ``raw-asyncio`` spends three loop iterations per call;
    this one spends two (the read, the caller's wake-up), the least for a client that awaits a
    future, and no ``mmap``/``munmap`` per read."""
    return await _raw_asyncio(command, era, calls, warmup, own_pipe=True)


async def _raw_asyncio(
    command: list[str], era: str, calls: int, warmup: int, *, own_pipe: bool
) -> dict[str, float]:
    import os

    import msgspec

    decode = msgspec.json.Decoder().decode
    encode = msgspec.json.Encoder().encode
    loop = asyncio.get_running_loop()
    waiting: dict[int, asyncio.Future[Any]] = {}
    exited: asyncio.Future[None] = loop.create_future()

    class Answers(asyncio.SubprocessProtocol):
        buffer = b""

        def pipe_data_received(self, fd: int, data: bytes) -> None:
            if fd == 1:
                self.data_received(data)

        def data_received(self, data: bytes) -> None:  # own_pipe: the stdout pipe's protocol
            *lines, self.buffer = (self.buffer + data).split(b"\n")
            for line in lines:
                answer = decode(line)
                future = waiting.pop(answer.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(answer)

        def eof_received(self) -> None:  # own_pipe: the stdout pipe's end
            return None

        def process_exited(self) -> None:
            exited.set_result(None)

    answers = Answers()
    stdout_pipe: Any = None
    if own_pipe:
        read_fd, write_fd = os.pipe()
        transport, _ = await loop.subprocess_exec(
            lambda: answers, *command, stdout=write_fd, stderr=None
        )
        os.close(write_fd)
        stdout_pipe, _ = await loop.connect_read_pipe(
            lambda: answers, os.fdopen(read_fd, "rb", buffering=0)
        )
        # 64 KiB reads, as mcpkit's pipes make them: asyncio's 256 KiB read buffer comes from
        # mmap and goes back with munmap, two more system calls per answer
        stdout_pipe.max_size = 64 * 1024
    else:
        transport, _ = await loop.subprocess_exec(lambda: answers, *command, stderr=None)
    stdin: Any = transport.get_pipe_transport(0)
    meta: dict[str, Any] = {}
    if era == "modern":
        meta = {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        }

    async def send(message: dict[str, Any]) -> Any:
        future = None
        if "id" in message:
            future = waiting[message["id"]] = loop.create_future()
        stdin.write(encode(message) + b"\n")
        return None if future is None else await future

    try:
        if era == "legacy":
            await send(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": LEGACY_VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
            )
            await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ids = iter(range(1, 1 << 30))

        async def call() -> Any:
            params = {"name": "echo", "arguments": ECHO, **meta}
            return await send(
                {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": params}
            )

        return await _timed(call, calls, warmup)
    finally:
        stdin.close()
        await exited
        if stdout_pipe is not None:
            stdout_pipe.close()
        transport.close()


CLIENTS = {
    "mcpkit": run_mcpkit,
    "mcp": run_mcp,
    "fastmcp": run_fastmcp,
    "raw-asyncio": run_raw_asyncio,
    "raw-asyncio-pipe": run_raw_asyncio_pipe,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--client", choices=[*CLIENTS, "raw"], required=True)
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("command", nargs="+", help="server command (after --)")
    args = parser.parse_args(argv)
    if args.client == "raw":
        result = run_raw(args.command, args.era, args.calls, args.warmup)
    else:
        runner = CLIENTS[args.client]
        result = asyncio.run(runner(args.command, args.era, args.calls, args.warmup))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Resume latency after ``kill -9`` of the worker holding a client's SSE stream (Redis state).

    .venv/bin/python benchmarks/redis_resume.py [--trials 5] [--url redis://127.0.0.1:6379/0]

Each trial: three workers (``server.run("http", state=RedisState(...))`` processes) share one
Redis. A legacy client initializes on worker 1, subscribes to a resource, opens its ``GET``
stream on worker 3 and receives one update. Worker 3 is killed with SIGKILL; worker 1 announces
two more updates (nobody is connected to receive them). The client notices the dead connection
and resumes with ``Last-Event-ID`` on worker 2. Reported, per trial and as medians:

* **notice**: from the kill to the client's read failing (the kernel closes the socket);
* **resume**: from sending the resuming ``GET`` to receiving both missed events;
* **live**: from announcing a further update on worker 1 to the resumed stream carrying it.

Every trial checks that the missed events arrive once, in order. Keys use a fresh prefix and are
deleted afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import signal
import socket
import statistics
import sys
import time
from typing import Any

import httpx

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._sse import SSEDecoder

VERSION = "2025-11-25"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _serve(port: int, url: str, prefix: str) -> None:
    from mcpkit.contrib.redis import RedisState
    from mcpkit.server import Server

    server = Server("resume-bench", "1.0.0")

    @server.tool
    async def touch(uri: str) -> str:
        await server.notify_resource_updated(uri)
        return "ok"

    @server.resource("bench://watched", mime_type="text/plain")
    def watched() -> str:
        return "watched"

    state = RedisState(url, prefix=prefix)
    server.run("http", port=port, log_level="warning", state=state)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _start(url: str, prefix: str) -> tuple[asyncio.subprocess.Process, str]:
    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve", str(port), "--url", url, "--prefix", prefix,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while b"mcpkit: serving" not in (line := await process.stderr.readline()):
            if not line:
                raise RuntimeError("a worker failed to start")
    return process, f"http://127.0.0.1:{port}/mcp"


class Events:
    def __init__(self, response: httpx.Response) -> None:
        self.chunks = response.aiter_bytes()
        self.decoder = SSEDecoder()
        self.ready: list[Any] = []

    async def next(self) -> Any:
        while not self.ready:
            chunk = await anext(self.chunks)
            self.ready += [e for e in self.decoder.feed(chunk) if e.data]
        return self.ready.pop(0)


async def _call(
    http: httpx.AsyncClient, at: str, session: dict[str, str], n: int, **p: Any
) -> None:
    body = {"jsonrpc": "2.0", "id": n, **p}
    response = await http.post(at, json=body, headers={**HEADERS, **session})
    assert response.status_code in (200, 202), response.text


async def trial(http: httpx.AsyncClient, url: str, prefix: str) -> dict[str, float]:
    started = await asyncio.gather(*(_start(url, prefix) for _ in range(3)))
    (_w1, at1), (_w2, at2), (holder, at3) = started
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": VERSION, "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}}}  # fmt: skip
        response = await http.post(at1, json=init, headers=HEADERS)
        session = {"mcp-session-id": response.headers["mcp-session-id"],
                   "mcp-protocol-version": VERSION}  # fmt: skip
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(at1, json=note, headers={**HEADERS, **session})
        await _call(http, at2, session, 2, method="resources/subscribe",
                    params={"uri": "bench://watched"})  # fmt: skip
        touch = {"method": "tools/call",
                 "params": {"name": "touch", "arguments": {"uri": "bench://watched"}}}  # fmt: skip
        get_headers = {"accept": "text/event-stream", **session}
        async with http.stream("GET", at3, headers=get_headers) as stream:
            events = Events(stream)
            await _call(http, at1, session, 3, **touch)
            seen = await events.next()
            killed = time.perf_counter()
            holder.send_signal(signal.SIGKILL)
            with contextlib.suppress(httpx.HTTPError, StopAsyncIteration):
                await events.next()
            noticed = time.perf_counter()
        await _call(http, at1, session, 4, **touch)
        await _call(http, at1, session, 5, **touch)
        resumed_at = time.perf_counter()
        async with http.stream("GET", at2, headers={**get_headers, "last-event-id": seen.id}) as r:
            events = Events(r)
            missed = [await events.next(), await events.next()]
            resumed = time.perf_counter()
            assert len({e.id for e in missed}) == 2 and all(
                decode_json(e.data)["method"] == "notifications/resources/updated" for e in missed
            )
            announce = time.perf_counter()
            await _call(http, at1, session, 6, **touch)
            await events.next()
            live = time.perf_counter()
        return {
            "notice": (noticed - killed) * 1000,
            "resume": (resumed - resumed_at) * 1000,
            "live": (live - announce) * 1000,
        }
    finally:
        for process, _ in started:
            if process.returncode is None:
                process.kill()
            await process.wait()


async def main(url: str, trials: int) -> None:
    import redis.asyncio as aioredis

    prefix = f"mcpkit-bench-resume:{secrets.token_hex(4)}:"
    rows = []
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            for _ in range(trials):
                rows.append(await trial(http, url, prefix))
    finally:
        client = aioredis.Redis.from_url(url)
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
        await client.aclose()
    print(f"Resume after kill -9 of the stream's worker, {trials} trials (ms)")
    print("| trial | notice | resume (2 missed events) | live event after resume |")
    print("|---|---|---|---|")
    for index, row in enumerate(rows, 1):
        print(f"| {index} | {row['notice']:.1f} | {row['resume']:.1f} | {row['live']:.1f} |")
    medians = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"| median | {medians['notice']:.1f} | {medians['resume']:.1f} | {medians['live']:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--prefix", default="mcpkit-bench-resume:", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        _serve(args.serve, args.url, args.prefix)
    else:
        asyncio.run(main(args.url, args.trials))

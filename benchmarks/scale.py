# ruff: noqa: RUF001, RUF003 - the report is typeset: × is meant
"""Scaling figures: requests/s with 1 and 2 workers, direct and through HAProxy; the speed stack.

    python benchmarks/scale.py            # ~4 minutes on 2 cores; writes results/scale.md
    python benchmarks/scale.py --quick    # one repeat, shorter runs

Every worker is ``scale_server.py`` (``server.run("http")``). "direct" with two workers shares
one port the way ``mcpkit run --workers 2`` does (one listening socket, inherited through
``MCPKIT_LISTEN_FD``); "proxy" puts HAProxy in front, configured exactly as ``tests/deploy``
configures it (round robin per request, no stickiness), with each worker on its own port.

The load comes from ``http_driver.McpHttpClient`` (raw HTTP/1.1 keep-alive, no SDK): CLIENTS
connections calling ``tools/call echo`` back to back for SECONDS. The generator shares the two
cores with the workers and the proxy; its own CPU is reported so the ceiling is visible.
Configurations are interleaved, repeats rotate their order, and medians are reported.

Sections: 2026-07-28 stateless (no shared state needed beyond the key ring); legacy 2025-11-25
sessions on Redis (``RedisState``; needs a Redis at 127.0.0.1:6379 and ``mcpkit.contrib.redis``);
the default stack (h11 + asyncio) against ``mcpkit[speed]`` (httptools + uvloop), one worker.

Resume latency (with Redis): the deployment of ``tests/deploy`` (three workers behind HAProxy), a
legacy client listening on its session's ``GET`` stream; ``kill -9`` of the worker holding that
stream, then one ``resources/updated`` published through another worker: the time from the kill
to the client receiving it (reconnect through the proxy with ``Last-Event-ID``, replay from
Redis). Next to it, the same delivery without a kill.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from driver import percentile
from http_driver import HOST, McpHttpClient, free_port
from procstats import CpuClock

from deploy._deployment import deployment, haproxy_config, redis_answers

HERE = Path(__file__).resolve().parent
SERVER = HERE / "scale_server.py"
CLIENTS = 32
READY_TIMEOUT_S = 60.0
_SERVING = re.compile(rb"mcpkit: serving .* at http://[^:]+:(\d+)/mcp")


@dataclass(frozen=True)
class Setup:
    section: str
    mode: str  # http_driver mode: "modern" or "legacy-json"
    workers: int
    proxied: bool
    stack: str = "speed"
    redis: bool = False

    @property
    def label(self) -> str:
        where = "proxy" if self.proxied else "direct"
        return f"{self.section}: {self.workers} worker{'s' * (self.workers > 1)}, {where}" + (
            f", {self.stack}" if self.section == "stack" else ""
        )


@dataclass
class Result:
    label: str
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    worker_cpu_us_per_call: float
    proxy_cpu_us_per_call: float
    load_cpu_share: float
    """CPU the load generator used, in cores (1.0 = a whole core)."""


def _wait_port(process: subprocess.Popen[bytes], log: IO[bytes]) -> int:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"worker exited: {log.read().decode(errors='replace')[-800:]}")
        log.seek(0)
        found = _SERVING.search(log.read())
        if found:
            return int(found.group(1))
        time.sleep(0.05)
    raise RuntimeError("worker did not start")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def fleet(setup: Setup, redis_url: str | None) -> Iterator[tuple[int, list[int], int | None]]:
    """Start the setup; yields (port to load, worker pids, proxy pid or None)."""
    args = [sys.executable, str(SERVER), "--stack", setup.stack]
    if setup.mode == "legacy-json":
        args.append("--json")
    if setup.redis:
        assert redis_url is not None
        args += ["--redis", redis_url, "--prefix", f"mcpkit-bench-{secrets.token_hex(4)}:"]
    env = {**os.environ, "MCPKIT_STATE_KEYS": "c2NhbGUtYmVuY2htYXJrLWtleS0xMjM0NTY3ODkwMTI="}
    processes: list[subprocess.Popen[bytes]] = []
    logs: list[IO[bytes]] = []
    shared: socket.socket | None = None
    try:
        if not setup.proxied and setup.workers > 1:
            shared = socket.socket()
            shared.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            shared.bind((HOST, 0))
            shared.listen(2048)
        ports = []
        for _ in range(setup.workers):
            log = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
            logs.append(log)
            extra: dict[str, Any] = {}
            child_env = env
            if shared is not None:
                child_env = {**env, "MCPKIT_LISTEN_FD": str(shared.fileno())}
                extra["pass_fds"] = (shared.fileno(),)
            process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=child_env, **extra
            )
            processes.append(process)
            ports.append(_wait_port(process, log))
        pids = [p.pid for p in processes]
        if not setup.proxied:
            yield ports[0], pids, None
            return
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        front = free_port()
        config = tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False)  # noqa: SIM115
        config.write(haproxy_config(front, ports))
        config.close()
        proxy = subprocess.Popen(
            [binary, "-db", "-f", config.name],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        processes.append(proxy)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                socket.create_connection((HOST, front), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proxy.poll() is not None:
                    raise RuntimeError("haproxy did not start") from None
                time.sleep(0.05)
        try:
            yield front, pids, proxy.pid
        finally:
            os.unlink(config.name)
    finally:
        for process in processes:
            _stop(process)
        for log in logs:
            log.close()
        if shared is not None:
            shared.close()


async def _client_loop(client: McpHttpClient, stop_at: float, latencies: list[float]) -> None:
    while True:
        sent = time.perf_counter()
        if sent >= stop_at:
            return
        await client.echo()
        latencies.append(time.perf_counter() - sent)


async def _load(port: int, mode: str, seconds: float, warmup: int) -> tuple[list[float], float]:
    clients = [McpHttpClient(port, mode) for _ in range(CLIENTS)]
    try:
        await asyncio.gather(*(c.open() for c in clients))
        for _ in range(warmup):
            await asyncio.gather(*(c.echo() for c in clients))
        latencies: list[float] = []
        began = time.perf_counter()
        await asyncio.gather(*(_client_loop(c, began + seconds, latencies) for c in clients))
        return latencies, time.perf_counter() - began
    finally:
        for client in clients:
            await client.close()


def measure(setup: Setup, seconds: float, warmup: int, redis_url: str | None) -> Result:
    with fleet(setup, redis_url) as (port, pids, proxy_pid):
        clocks = [CpuClock(pid) for pid in pids]
        proxy_clock = CpuClock(proxy_pid) if proxy_pid is not None else None
        before = [c.read() for c in clocks]
        proxy_before = proxy_clock.read() if proxy_clock else None
        load_before = time.process_time()
        latencies, elapsed = asyncio.run(_load(port, setup.mode, seconds, warmup))
        load_cpu = time.process_time() - load_before
        worker_cpu = sum(CpuClock.delta(b, c.read()) for b, c in zip(before, clocks, strict=True))
        proxy_cpu = (
            CpuClock.delta(proxy_before, proxy_clock.read())
            if proxy_clock and proxy_before
            else 0.0
        )
    # the warm-up calls are outside the timed window and outside the CPU readings' window
    # except for the proxy/worker clocks, which started before it: subtract nothing, but count
    # them so CPU per call is not inflated
    calls = len(latencies) + warmup * CLIENTS
    ordered = sorted(latencies)
    return Result(
        label=setup.label,
        calls_per_s=len(latencies) / elapsed,
        p50_ms=percentile(ordered, 0.5) * 1e3,
        p99_ms=percentile(ordered, 0.99) * 1e3,
        worker_cpu_us_per_call=worker_cpu / calls * 1e6,
        proxy_cpu_us_per_call=proxy_cpu / calls * 1e6,
        load_cpu_share=load_cpu / elapsed,
    )


async def _resume_once(url: str, deployed: Any) -> tuple[float, float]:
    """(delivery without a kill, delivery after kill -9 of the stream's worker), in seconds."""
    from mcpkit.client import Client
    from mcpkit.types import ResourceUpdatedNotification, SubscriptionsAcknowledgedNotification

    uris = ["test://feed/1", "test://feed/2"]

    async def next_of(notes: Any, kind: type) -> Any:
        async with asyncio.timeout(60):
            async for note in notes:
                if isinstance(note, kind):
                    return note
        raise RuntimeError("the listen stream ended")

    async with (
        Client(url, mode="legacy") as listener,
        listener.listen(resource_uris=uris) as changes,
        Client(url, mode="2026-07-28") as publisher,
    ):
        notes = aiter(changes)
        await next_of(notes, SubscriptionsAcknowledgedNotification)
        began = time.perf_counter()
        await publisher.call_tool("touch", {"uri": uris[0]})
        await next_of(notes, ResourceUpdatedNotification)
        plain = time.perf_counter() - began
        gets = [r for r in deployed.routes() if r.method == "GET" and r.status == 200]
        holder = deployed.workers[gets[-1].worker]
        began = time.perf_counter()
        holder.kill()
        await publisher.call_tool("touch", {"uri": uris[1]})
        note = await next_of(notes, ResourceUpdatedNotification)
        resumed = time.perf_counter() - began
        if note.params.uri != uris[1]:
            raise RuntimeError(f"expected {uris[1]}, got {note.params.uri}")
    return plain, resumed


def measure_resume(redis_url: str, repeats: int) -> list[tuple[float, float]]:
    """One fresh three-worker deployment per repeat (each repeat kills one worker)."""
    samples = []
    for _ in range(repeats):
        prefix = f"mcpkit-bench-{secrets.token_hex(4)}:"
        with (
            tempfile.TemporaryDirectory() as tmp,
            deployment(Path(tmp), args=["--redis", redis_url, "--prefix", prefix]) as deployed,
        ):
            samples.append(asyncio.run(_resume_once(deployed.url, deployed)))
    return samples


def resume_report(samples: Sequence[tuple[float, float]]) -> str:
    plain = statistics.median(s[0] for s in samples) * 1e3
    resumed = [s[1] * 1e3 for s in samples]
    return (
        "\n## Resume after `kill -9` of the worker holding a legacy `GET` stream\n\n"
        f"{len(samples)} fresh deployments (3 workers, HAProxy, Redis), one kill each. The "
        "client waits the server's `retry` (1,000 ms by default) before reconnecting.\n\n"
        "| | median ms | min ms | max ms |\n|---|---:|---:|---:|\n"
        f"| `resources/updated` delivered, no kill | {plain:.1f} | "
        f"{min(s[0] for s in samples) * 1e3:.1f} | {max(s[0] for s in samples) * 1e3:.1f} |\n"
        f"| kill → the next event delivered on another worker | "
        f"{statistics.median(resumed):.0f} | {min(resumed):.0f} | {max(resumed):.0f} |\n"
    )


def setups(with_redis: bool) -> list[Setup]:
    chosen = [
        Setup("2026 stateless", "modern", workers, proxied)
        for proxied in (False, True)
        for workers in (1, 2)
    ]
    if with_redis:
        chosen += [
            Setup("legacy on Redis", "legacy-json", workers, proxied, redis=True)
            for proxied in (False, True)
            for workers in (1, 2)
        ]
    chosen += [Setup("stack", "modern", 1, False, stack) for stack in ("default", "speed")]
    return chosen


def _median(results: Sequence[Result]) -> Result:
    fields = {
        name: statistics.median(getattr(r, name) for r in results)
        for name in asdict(results[0])
        if name != "label"
    }
    return Result(label=results[0].label, **fields)


def report(
    results: dict[Setup, Result], repeats: int, seconds: float, load: tuple[float, float]
) -> str:
    lines = [
        "# Scaling: workers, proxy, stack",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
        f"load average {load[0]:.1f} before and {load[1]:.1f} after (other work on the machine "
        "competes with every figure; compare rows, not runs); "
        f"{CLIENTS} keep-alive clients calling `tools/call echo` for {seconds:g} s; "
        f"median of {repeats} interleaved repeat(s). Ratios are against the same section's "
        "1 worker, direct.",
        "",
        "| setup | calls/s | ratio | p50 ms | p99 ms | worker CPU µs/call | proxy CPU µs/call "
        "| load generator (cores) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base: dict[str, float] = {}
    for setup, result in results.items():
        key = setup.section
        if setup.workers == 1 and not setup.proxied and key not in base:
            base[key] = result.calls_per_s
        ratio = result.calls_per_s / base[key] if key in base else float("nan")
        lines.append(
            f"| {result.label} | {result.calls_per_s:,.0f} | {ratio:.2f}× | {result.p50_ms:.2f} "
            f"| {result.p99_ms:.2f} | {result.worker_cpu_us_per_call:.0f} "
            f"| {result.proxy_cpu_us_per_call:.0f} | {result.load_cpu_share:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one repeat of 3 s runs")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scale.md")
    parser.add_argument("--resume-repeats", type=int, default=5)
    parser.add_argument("--only-resume", action="store_true", help="skip the throughput runs")
    args = parser.parse_args(argv)
    repeats, seconds = (1, 3.0) if args.quick else (args.repeats, args.seconds)
    if shutil.which("haproxy") is None and not os.access("/usr/sbin/haproxy", os.X_OK):
        print("scale: haproxy is missing (scripts/install-system)", file=sys.stderr)
        return 2
    with_redis = redis_answers()
    try:
        import mcpkit.contrib.redis  # noqa: F401
    except ImportError:
        with_redis = False
    if not with_redis:
        print(
            "scale: no Redis (or no mcpkit.contrib.redis): legacy section left out", file=sys.stderr
        )
    redis_url = "redis://127.0.0.1:6379/0" if with_redis else None
    chosen = [] if args.only_resume else setups(with_redis)
    runs: dict[Setup, list[Result]] = {s: [] for s in chosen}
    load_before = os.getloadavg()[0]
    for repeat in range(repeats):
        order = chosen[repeat % len(chosen) :] + chosen[: repeat % len(chosen)]
        for setup in order:
            result = measure(setup, seconds, warmup=20, redis_url=redis_url)
            runs[setup].append(result)
            print(
                f"[{repeat + 1}/{repeats}] {result.label}: {result.calls_per_s:,.0f} calls/s",
                file=sys.stderr,
            )
    medians = {s: _median(r) for s, r in runs.items()}
    text = report(medians, repeats, seconds, (load_before, os.getloadavg()[0])) if medians else ""
    if redis_url is not None:
        text += resume_report(measure_resume(redis_url, 1 if args.quick else args.resume_repeats))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(
        json.dumps({s.label: [asdict(r) for r in rs] for s, rs in runs.items()}, indent=1)
    )
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

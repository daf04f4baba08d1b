"""The scaling figure: requests/s with 1, 2 and 3 workers, direct and through HAProxy and nginx.

    python benchmarks/scale_wrk.py                    # 10 s per configuration, ~2 minutes
    python benchmarks/scale_wrk.py --seconds 30 --connections 64

The load generator is ``wrk`` (Debian's package; ``scripts/install-system`` installs it): a C
program whose CPU per request is a small fraction of a Python client's, so on a 2-core machine
the workers, not the generator, get the cores. Every request is a 2026-07-28 stateless
``tools/call echo`` (no shared state: any worker answers it) with the headers a conforming client
sends. The workers are ``scale_server.py`` (``server.run("http")``, ``mcpkit[speed]`` stack).
"direct" with N workers shares one listening socket the way ``mcpkit run --workers N`` does (the
workers accept from one queue); "reuseport" gives each worker its own ``SO_REUSEPORT`` socket on
the one port, as ``mcpkit run --workers N --reuse-port`` does (the kernel hashes each connection
to one socket); "haproxy" and "nginx" put the proxy of ``tests/deploy`` (the configuration
``docs/deploy.md`` gives) in front of one port per worker.

Reported per configuration: requests/s, wrk's latency percentiles, the workers' CPU per request
(µs: the figure that still means something on a loaded machine), and the CPU each side used in
cores (1.0 = one core busy for the whole run): workers (sum, and each worker's share of it in
%: an uneven split is uneven accepting), proxy, wrk. Their sum against the machine's cores says
where the rest went; the load average before each run is printed too. Run it on an idle
machine: on a shared one requests/s only say how the configurations compare.

The figure for docs/deploy.md, on an idle machine (~3 minutes)::

    python benchmarks/scale_wrk.py --paths direct,reuseport,haproxy,nginx
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from http_driver import HOST, free_port
from procstats import CpuClock
from scale import READY_TIMEOUT_S, _stop, _wait_port  # one way to start and stop a worker

from deploy._deployment import haproxy_config, nginx_config
from mcpkit.transports.http import listening_socket

HERE = Path(__file__).resolve().parent
SERVER = HERE / "scale_server.py"
_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "echo",
        "arguments": {"text": "hello"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "wrk", "version": "1"},
        },
    },
}
_LUA = """\
wrk.method = "POST"
wrk.body = {body}
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
"""


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the proxy did not start") from None
            time.sleep(0.05)


@contextmanager
def fleet(workers: int, proxy: str, run_dir: Path) -> Iterator[tuple[int, list[int], int | None]]:
    """``workers`` workers, direct or behind ``proxy``: (port to load, worker pids, proxy pid)."""
    env = {**os.environ, "MCPKIT_STATE_KEYS": "c2NhbGUtYmVuY2htYXJrLWtleS0xMjM0NTY3ODkwMTI="}
    with ExitStack() as stack:
        listeners: list[socket.socket] = []
        if proxy == "direct" and workers > 1:  # one socket for all, as mcpkit run --workers N
            listeners = [stack.enter_context(listening_socket(HOST, 0))] * workers
        elif proxy == "reuseport":  # one socket each on one port (--reuse-port)
            first = stack.enter_context(listening_socket(HOST, 0, reuse_port=True))
            listeners = [first] + [
                stack.enter_context(listening_socket(HOST, first.getsockname()[1], reuse_port=True))
                for _ in range(workers - 1)
            ]
        ports, pids = [], []
        for slot in range(workers):
            log = stack.enter_context(tempfile.TemporaryFile())
            child_env, fds = env, ()
            if listeners:
                child_env = {**env, "MCPKIT_LISTEN_FD": str(listeners[slot].fileno())}
                fds = (listeners[slot].fileno(),)
            process = subprocess.Popen(
                [sys.executable, str(SERVER), "--stack", "speed"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=child_env, pass_fds=fds,
            )  # fmt: skip
            stack.callback(_stop, process)
            ports.append(_wait_port(process, log))
            pids.append(process.pid)
        if proxy in ("direct", "reuseport"):
            yield ports[0], pids, None
            return
        front = free_port()
        if proxy == "haproxy":
            config = run_dir / "haproxy.cfg"
            config.write_text(haproxy_config(front, ports))
            argv = [shutil.which("haproxy") or "/usr/sbin/haproxy", "-db", "-f", str(config)]
        else:
            config = run_dir / "nginx.conf"
            config.write_text(nginx_config(front, ports, run_dir))
            binary = shutil.which("nginx") or "/usr/sbin/nginx"
            argv = [binary, "-e", "stderr", "-p", str(run_dir), "-c", str(config)]
        server = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        stack.callback(_stop, server)
        _wait_listening(front, server)
        yield front, pids, server.pid


def _wrk(port: int, seconds: float, connections: int, script: Path) -> dict[str, float]:
    binary = shutil.which("wrk")
    if binary is None:
        raise SystemExit("wrk is missing: run scripts/install-system (or apt-get install wrk)")
    process = subprocess.Popen(
        [binary, "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", "-s", str(script),
         f"http://{HOST}:{port}/mcp"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out, _ = process.communicate()  # its CPU: the caller's children times, once it exited
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    percentiles = dict(re.findall(r"^\s+(50|90|99)%\s+([\d.]+\w+)", out, re.MULTILINE))
    if rps is None:
        raise RuntimeError(out)
    return {
        "rps": float(rps.group(1)),
        "errors": float(errors.group(1)) if errors else 0.0,
        **{f"p{k}": _ms(v) for k, v in percentiles.items()},
    }


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def measure(
    workers: int, proxy: str, seconds: float, connections: int, script: Path
) -> dict[str, float | str]:
    with tempfile.TemporaryDirectory() as tmp, fleet(workers, proxy, Path(tmp)) as (port, pids, pp):
        _wrk(port, 2.0, connections, script)  # warm up (imports, caches, connections)
        load = os.getloadavg()[0]
        clocks = [CpuClock(pid) for pid in pids]
        proxy_clock = CpuClock(pp) if pp is not None else None
        before = [c.read() for c in clocks]
        proxy_before = proxy_clock.read() if proxy_clock is not None else None
        children_before = os.times()
        started = time.monotonic()
        result = _wrk(port, seconds, connections, script)
        wall = time.monotonic() - started
        children_after = os.times()
        each = [c.delta(b, c.read()) for c, b in zip(clocks, before, strict=True)]
        workers_cpu = sum(each)
        proxy_cpu = (
            proxy_clock.delta(proxy_before, proxy_clock.read())
            if proxy_clock is not None and proxy_before is not None
            else 0.0
        )
        wrk_cpu = (children_after.children_user + children_after.children_system) - (
            children_before.children_user + children_before.children_system
        )
    return {
        "workers": workers,
        "path": proxy,
        "rps": result["rps"],
        "p50_ms": result.get("p50", 0.0),
        "p99_ms": result.get("p99", 0.0),
        "errors": result["errors"],
        "workers_cores": workers_cpu / wall,
        "split": "/".join(f"{100 * cpu / max(workers_cpu, 1e-9):.0f}" for cpu in each),
        "worker_us_per_request": workers_cpu / max(1.0, result["rps"] * wall) * 1e6,
        "proxy_cores": proxy_cpu / wall,
        "wrk_cores": wrk_cpu / wall,
        "load_before": load,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", default="1,2,3")
    parser.add_argument("--paths", default="direct,reuseport,haproxy,nginx")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "echo.lua"
        script.write_text(_LUA.format(body=json.dumps(json.dumps(_BODY))))
        for proxy in args.paths.split(","):
            for workers in (int(n) for n in args.workers.split(",")):
                rows.append(measure(workers, proxy, args.seconds, args.connections, script))
                row = rows[-1]
                print(f"{proxy} {workers}: {row['rps']:.0f} req/s", file=sys.stderr)
    print(f"cores: {os.cpu_count()}; wrk -t1 -c{args.connections}, {args.seconds:.0f} s a run\n")
    print("| path | workers | req/s | vs 1 worker | p50 ms | p99 ms | worker CPU µs/req | "
          "workers (cores) | split % | proxy (cores) | wrk (cores) | non-2xx | load before |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base: dict[str, float] = {}
    for row in rows:
        one = base.setdefault(str(row["path"]), float(row["rps"]))
        print(
            f"| {row['path']} | {row['workers']} | {row['rps']:.0f} | "
            f"{float(row['rps']) / one:.2f}x | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | "
            f"{row['worker_us_per_request']:.0f} | {row['workers_cores']:.2f} | {row['split']} | "
            f"{row['proxy_cores']:.2f} | {row['wrk_cores']:.2f} | "
            f"{row['errors']:.0f} | {row['load_before']:.1f} |"
        )
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

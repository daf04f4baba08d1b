"""A real multi-worker deployment for the tests: worker processes behind HAProxy (or nginx).

Each worker is ``worker.py`` on its own port (``server.run("http")``, uvicorn, port 0); HAProxy,
configured here, balances every request round robin over them with no stickiness, does not buffer
(SSE flows through as it is written), keeps long timeouts for streams, and health-checks each
worker on ``/healthz`` so a killed one leaves the rotation at once. Everything started is stopped
by the context manager, whatever happens in the test.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

import pytest

# The Redis probe is tests/contrib/redis's (one PING over a raw socket); re-exported for
# benchmarks/scale.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contrib" / "redis"))
from _redis_env import redis_answers

__all__ = [
    "Deployment",
    "Route",
    "Worker",
    "deployment",
    "haproxy_binary",
    "haproxy_config",
    "nginx_binary",
    "nginx_config",
    "redis_answers",
    "require_redis",
]

HERE: Final = Path(__file__).resolve().parent
WORKER: Final = HERE / "worker.py"
START_TIMEOUT: Final = 60.0
"""Seconds a worker or the proxy may take to come up on a loaded 2-core machine."""
POLL_SECONDS: Final = 0.05
REDIS_HOST: Final = "127.0.0.1"
REDIS_PORT: Final = 6379
_SERVING: Final = re.compile(r"mcpkit: serving .* at (http://\S+)")


def _missing(what: str) -> None:
    """Under CI a missing service is a failure; elsewhere the test skips and says why."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} (CI=true: the deployment tests must run)")
    pytest.skip(what)


def haproxy_binary() -> str:
    """HAProxy's path, or skip/fail (CI) with the way to install it."""
    found = shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None
    )
    if found is None:
        _missing("HAProxy is missing: run scripts/install-system (or apt-get install haproxy)")
    assert found is not None
    return found


def nginx_binary() -> str:
    """nginx's path, or skip/fail (CI) with the way to install it."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None
    )
    if found is None:
        _missing("nginx is missing: run scripts/install-system (or apt-get install nginx)")
    assert found is not None
    return found


def require_redis() -> str:
    """The Redis URL for the tests, or skip/fail (CI) when none answers."""
    if not redis_answers():
        _missing(
            f"no Redis answers on {REDIS_HOST}:{REDIS_PORT}: run scripts/start-redis "
            "(scripts/install-system installs redis-server)"
        )
    return f"redis://{REDIS_HOST}:{REDIS_PORT}/0"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Output:
    """A process's output stream, read by a thread into a list (bounded waits for lines)."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def drain(self) -> list[str]:
        """Every line so far (without waiting)."""
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return self.lines
            if line is None:
                return self.lines
            self.lines.append(line)

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no line matching {pattern.pattern!r}: {self.lines[-20:]}"
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, f"output ended before {pattern.pattern!r}: {self.lines}"
            self.lines.append(line)
            found = pattern.search(line)
            if found is not None:
                return found


def _start(
    argv: Sequence[str], env: dict[str, str] | None = None, *, stdout: bool = False
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(argv), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if stdout else subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, encoding="utf-8", bufsize=1, env={**os.environ, **(env or {})},
    )  # fmt: skip


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Worker:
    """One worker process and its direct URL (``…/mcp``)."""

    process: subprocess.Popen[str]
    url: str
    stderr: _Output

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    def kill(self) -> None:
        """``kill -9``: no shutdown, no goodbye to anyone."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


@dataclass(frozen=True)
class Route:
    """One request as the proxy logged it (when the worker's response headers came)."""

    worker: int
    """Index into :attr:`Deployment.workers`."""
    method: str
    path: str
    status: int
    mcp_method: str
    """The ``Mcp-Method`` header (2026 requests), ``-`` when absent (legacy)."""


_BARRIER_PATH: Final = "/__routes_barrier/"
"""Requests to this path mark a point in the proxy's log (:meth:`Deployment.routes`)."""
_ROUTE: Final = re.compile(
    r"^ROUTE (?:w(\d+)|127\.0\.0\.1:(\d+)) (\S+) (\S+) (-?\d+) \{?([^}]*)\}?$"
)


@dataclass
class Deployment:
    """The workers and the proxy in front of them; ``url`` is the proxy's MCP endpoint."""

    workers: list[Worker]
    url: str
    proxy: subprocess.Popen[str]
    config: Path
    proxy_log: _Output
    _barriers: int = 0
    _barriers_seen: set[str] = field(default_factory=set)

    @property
    def pids(self) -> set[int]:
        return {w.pid for w in self.workers}

    def worker(self, pid: int) -> Worker:
        return next(w for w in self.workers if w.pid == pid)

    def wait_route(self, wanted: Callable[[Route], bool], timeout: float = START_TIMEOUT) -> Route:
        """The first logged request ``wanted`` accepts (bounded wait: it may not be logged yet)."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((r for r in self._logged() if wanted(r)), None)
            if found is not None:
                return found
            assert time.monotonic() < deadline, f"no such request logged: {self._logged()}"
            time.sleep(POLL_SECONDS)

    def routes(
        self, count: int = 0, timeout: float = START_TIMEOUT, mcp_method: str | None = None
    ) -> list[Route]:
        """Every MCP request the proxy logged since it started (health probes left out), in order.

        With ``count``: once at least that many are logged (of ``mcp_method`` only, if given).
        Without: once every request answered before this call is. A request's line reaches the
        log a moment after its answer reached the client, so a barrier request is sent through
        the proxy and the log is read up to its line (the proxy writes its lines in the order it
        answers). Bounded waits either way.
        """
        deadline = time.monotonic() + timeout
        barrier: str | None = None
        if count == 0:
            self._barriers += 1
            barrier = f"{_BARRIER_PATH}{self._barriers}"
            base = self.url.rsplit("/", 1)[0]
            with contextlib.suppress(urllib.error.HTTPError):  # a 404: the line is what counts
                urllib.request.urlopen(base + barrier, timeout=timeout).close()
        while True:
            logged = self._logged()
            if barrier is not None and barrier in self._barriers_seen:
                return logged
            counted = [r for r in logged if mcp_method is None or r.mcp_method == mcp_method]
            if barrier is None and len(counted) >= count:
                return logged
            waited = f"the barrier {barrier}" if barrier else f"{count} requests"
            assert time.monotonic() < deadline, f"{len(counted)} logged, waiting for {waited}"
            time.sleep(POLL_SECONDS)

    def _logged(self) -> list[Route]:
        """Every request line the proxy wrote so far (barriers and health probes left out)."""
        ports = [w.port for w in self.workers]
        routes = []
        for match in map(_ROUTE.match, self.proxy_log.drain()):
            if match is None or match.group(4) == "/healthz":
                continue
            if match.group(4).startswith(_BARRIER_PATH):
                self._barriers_seen.add(match.group(4))
                continue
            worker = int(match.group(1)) if match.group(1) else ports.index(int(match.group(2)))
            routes.append(
                Route(
                    worker, match.group(3), match.group(4), int(match.group(5)),
                    match.group(6) or "-",
                )
            )  # fmt: skip
        return routes


def start_worker(args: Sequence[str] = (), env: dict[str, str] | None = None) -> Worker:
    process = _start([sys.executable, str(WORKER), *args], env)
    assert process.stderr is not None
    output = _Output(process.stderr)
    try:
        url = output.wait_for(_SERVING, START_TIMEOUT).group(1)
    except BaseException:
        _stop(process)
        raise
    return Worker(process, url, output)


def haproxy_config(
    port: int, backends: Sequence[int], *, log: bool = False, no_delay: bool = True
) -> str:
    """Round robin per request, no stickiness, no buffering, long stream timeouts, health checks.

    ``retries``/``redispatch`` send a request whose connection was refused (a worker just
    killed, before its health checks failed) to another worker instead of failing it, so the
    checks can be patient: a worker slowed down by a loaded machine must not be taken out
    (``timeout check`` 5 s, three failures in a row). Also used
    by ``benchmarks/scale.py``, so the benchmark measures the proxy the tests run. ``log``
    writes one ``ROUTE w<i> METHOD PATH STATUS {Mcp-Method}`` line per request on stdout as soon as
    the worker's response headers arrive (``logasap``: an SSE stream is logged when it opens).
    ``option http-no-delay`` sends each SSE event as it comes: without it HAProxy waits for
    more data to coalesce (~200 ms per exchange); ``no_delay=False`` (benchmarks only) shows it.
    """
    servers = "\n".join(
        f"    server w{i} 127.0.0.1:{backend} check inter 500ms fall 3 rise 1"
        for i, backend in enumerate(backends)
    )
    logging = "    log stdout format raw local0\n" if log else ""
    route_log = (
        "    log global\n    option logasap\n"
        '    log-format "ROUTE %s %HM %HP %ST %hr"\n'
        "    http-request capture req.hdr(mcp-method) len 64\n"
        if log
        else ""
    )
    return f"""\
global
    maxconn 2048
{logging}
defaults
    mode http
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    timeout http-request 30s
    timeout check 5s
    retries 3
    option redispatch 1
{"    option http-no-delay" if no_delay else ""}
    option forwardfor

frontend mcp
    bind 127.0.0.1:{port}
{route_log}    default_backend workers

backend workers
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
{servers}
"""


def nginx_config(port: int, backends: Sequence[int], run_dir: Path, *, log: bool = False) -> str:
    """The nginx of ``docs/deploy.md``: round robin, no buffering, long stream timeouts, HTTP/1.1
    keep-alive to the workers, ``X-Forwarded-For``; passive health checks only (open-source
    nginx). Everything it writes stays in ``run_dir``. ``log`` writes one
    ``ROUTE 127.0.0.1:PORT METHOD PATH STATUS {Mcp-Method}`` line per request on stdout (when
    the request ends: nginx has no ``logasap``)."""
    servers = "\n".join(
        f"        server 127.0.0.1:{backend} max_fails=1 fail_timeout=5s;" for backend in backends
    )
    access = (
        "    log_format route 'ROUTE $upstream_addr $request_method $uri $status "
        "{$http_mcp_method}';\n    access_log /dev/stdout route;\n"
        if log
        else "    access_log off;\n"
    )
    temp = "\n".join(
        f"    {kind}_temp_path {run_dir / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""\
daemon off;
master_process off;
worker_processes 1;
pid {run_dir / "nginx.pid"};
error_log stderr warn;
events {{
    worker_connections 2048;
}}
http {{
{access}{temp}
    upstream mcp_workers {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://mcp_workers;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 1h;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""


def _wait_ready(url: str, proxy: subprocess.Popen[str], timeout: float) -> None:
    """Bounded wait until the proxy answers ``/healthz`` (it forwards to a worker)."""
    deadline = time.monotonic() + timeout
    while True:
        assert proxy.poll() is None, f"haproxy exited with {proxy.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        assert time.monotonic() < deadline, f"the proxy did not answer {url} within {timeout} s"
        time.sleep(POLL_SECONDS)


@contextlib.contextmanager
def deployment(
    tmp_path: Path,
    *,
    workers: int = 3,
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    proxy_kind: str = "haproxy",
    haproxy_no_delay: bool = True,
) -> Iterator[Deployment]:
    """``workers`` processes of ``worker.py`` (each given ``args``/``env``) behind HAProxy
    (``proxy_kind="nginx"``: nginx), which logs every request's worker
    (:meth:`Deployment.routes`)."""
    binary = nginx_binary() if proxy_kind == "nginx" else haproxy_binary()
    started: list[Worker] = []
    proxy: subprocess.Popen[str] | None = None
    try:
        for _ in range(workers):
            started.append(start_worker(args, env))
        port = _free_port()
        backends = [w.port for w in started]
        if proxy_kind == "nginx":
            run_dir = tmp_path / "nginx"
            run_dir.mkdir(exist_ok=True)
            config = run_dir / "nginx.conf"
            config.write_text(nginx_config(port, backends, run_dir, log=True))
            argv = [binary, "-e", "stderr", "-p", str(run_dir), "-c", str(config)]
            check_argv = [*argv, "-t"]
        else:
            config = tmp_path / "haproxy.cfg"
            config.write_text(haproxy_config(port, backends, log=True, no_delay=haproxy_no_delay))
            argv = [binary, "-db", "-f", str(config)]
            check_argv = [binary, "-c", "-f", str(config)]
        check = subprocess.run(check_argv, capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        proxy = _start(argv, stdout=True)
        assert proxy.stderr is not None and proxy.stdout is not None
        _Output(proxy.stderr)  # drained so a chatty proxy never blocks on a full pipe
        log = _Output(proxy.stdout)
        _wait_ready(f"http://127.0.0.1:{port}/healthz", proxy, START_TIMEOUT)
        yield Deployment(started, f"http://127.0.0.1:{port}/mcp", proxy, config, log)
    finally:
        if proxy is not None:
            _stop(proxy)
        for worker in started:
            _stop(worker.process)

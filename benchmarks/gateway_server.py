"""Benchmark server: mcpkit's gateway in front of one mcpkit backend (benchmarks/mcpkit_server.py).

The command line of benchmarks/httpserve.ServerArgs. stdio: the gateway on stdio, its backend a
stdio child. ``--http``: the backend is started on its own port (same ``--json`` /
``--stateless`` flags) and the gateway serves HTTP in front of it. Names are kept
(``namespacing="never"``) so the drivers call ``echo`` as they do directly.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from httpserve import HOST, ServerArgs, run_uvicorn

from mcpkit.gateway import Gateway

BACKEND = HERE / "mcpkit_server.py"
READY_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:
    """Runs in the backend child before exec: SIGTERM when this process dies, however it dies
    (the drivers SIGKILL a server that is slow to stop; its backend must not outlive it)."""
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the backend exited with {process.returncode}")
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the backend did not listen in time")


def main() -> None:
    args = ServerArgs(sys.argv)
    if not args.http:
        backend = {"command": sys.executable, "args": [str(BACKEND)]}
        Gateway({"bench": backend}, namespacing="never").run("stdio")
        return
    port = _free_port()
    flags = ["--json"] * args.json + ["--stateless"] * args.stateless
    process = subprocess.Popen(
        [sys.executable, str(BACKEND), "--http", "--port", str(port), *flags],
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )
    try:
        _wait_listening(port, process)
        gateway = Gateway({"bench": {"url": f"http://{HOST}:{port}/mcp"}}, namespacing="never")
        options = {"json_response": True} if args.json else {"sse_after": 0.0}
        run_uvicorn(gateway.http_app(stateless=args.stateless, **options), args.port)
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()

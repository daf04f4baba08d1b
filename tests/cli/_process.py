"""A long-running command whose stdout/stderr lines are read with bounded waits."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Final

from ._run import ROOT

LINE_TIMEOUT: Final = 60.0
"""Seconds to wait for one expected line before the test fails."""
PORT_TIMEOUT: Final = 60.0
CONNECT_RETRY_SECONDS: Final = 0.05

MODERN_META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "cli-tests", "version": "0"},
}


def modern_request(request_id: int, method: str, params: dict[str, Any] | None = None) -> str:
    """A stateless 2026-07-28 request line: no handshake needed, any process answers it."""
    body = dict(params or {})
    body["_meta"] = MODERN_META
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": body})


class Running:
    """A subprocess with a reader thread per output stream feeding a queue of lines."""

    def __init__(
        self, argv: Sequence[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None
    ) -> None:
        self.process = subprocess.Popen(
            list(argv), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1,
            env={**os.environ, **env} if env else None,
        )  # fmt: skip
        self.stdout: queue.Queue[str | None] = queue.Queue()
        self.stderr: queue.Queue[str | None] = queue.Queue()
        self.stderr_seen: list[str] = []
        assert self.process.stdout is not None and self.process.stderr is not None
        for stream, sink in (
            (self.process.stdout, self.stdout),
            (self.process.stderr, self.stderr),
        ):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()

    @staticmethod
    def _pump(stream: IO[str], sink: queue.Queue[str | None]) -> None:
        for line in stream:
            sink.put(line.rstrip("\n"))
        sink.put(None)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_json(self, timeout: float = LINE_TIMEOUT) -> dict[str, Any]:
        line = self.stdout.get(timeout=timeout)
        assert line is not None, f"stdout ended; stderr: {self.stderr_seen}"
        message: dict[str, Any] = json.loads(line)
        return message

    def wait_stderr(self, needle: str, timeout: float = LINE_TIMEOUT) -> str:
        """The first stderr line containing ``needle`` (fails after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no stderr line with {needle!r}: {self.stderr_seen}"
            line = self.stderr.get(timeout=remaining)
            assert line is not None, f"stderr ended before {needle!r}: {self.stderr_seen}"
            self.stderr_seen.append(line)
            if needle in line:
                return line

    def wait_stdout(self, needle: str, timeout: float = LINE_TIMEOUT) -> str:
        """The first stdout line containing ``needle`` (fails after ``timeout``)."""
        deadline = time.monotonic() + timeout
        seen: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no stdout line with {needle!r}: {seen}"
            try:
                line = self.stdout.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, (
                f"stdout ended before {needle!r}: {seen}; stderr: {self._drain_stderr()}"
            )
            seen.append(line)
            if needle in line:
                return line

    def _drain_stderr(self) -> list[str]:
        while True:
            try:
                line = self.stderr.get_nowait()
            except queue.Empty:
                return self.stderr_seen
            if line is None:
                return self.stderr_seen
            self.stderr_seen.append(line)

    def close(self, timeout: float = LINE_TIMEOUT) -> int:
        """Close stdin and wait for the exit (killing it if it does not come)."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[str], timeout: float = PORT_TIMEOUT) -> None:
    """Bounded wait until something accepts connections on ``port`` (or the process died)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(CONNECT_RETRY_SECONDS)
    raise AssertionError(f"nothing listened on port {port} within {timeout} s")

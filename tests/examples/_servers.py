"""The example servers as real stdio subprocesses (``python examples/X.py``), with their data in
a test's own folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
EXAMPLES: Final = ROOT / "examples"
NOTIFY_TIMEOUT: Final = 30.0
"""Seconds to wait for a change notification before the test fails."""
HTTP_START_TIMEOUT: Final = 60.0
"""A cold interpreter importing mcpkit and uvicorn on a busy shared machine."""
CONNECT_RETRY: Final = 0.05


def example(script: str, data: Path, **env: str) -> dict[str, Any]:
    """An ``mcpServers`` entry running ``examples/<script>`` with its data under ``data``."""
    return {
        "command": sys.executable,
        "args": [str(EXAMPLES / script)],
        "env": {"MCPKIT_EXAMPLES_DATA": str(data), **env},
    }


@contextmanager
def http_example(script: str, data: Path, *args: str) -> Iterator[str]:
    """``python examples/<script> --http PORT`` on a free loopback port; yields its MCP URL
    once it accepts connections (bounded wait), killed on exit."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / script), *args, "--http", str(port)],
        env={**os.environ, "MCPKIT_EXAMPLES_DATA": str(data)},
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + HTTP_START_TIMEOUT
        while True:
            assert process.poll() is None, f"{script} exited with {process.returncode}"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, f"{script} did not listen on {port}"
                time.sleep(CONNECT_RETRY)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(HTTP_START_TIMEOUT)

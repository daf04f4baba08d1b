"""``mcpkit run --reload``: restart the server whenever its source file changes.

The supervisor never imports the server. It runs ``python -m mcpkit.cli run …`` as a child
(sharing our stdin/stdout for stdio, so the client keeps its pipes) and polls the watched files'
modification times every :data:`POLL_INTERVAL_SECONDS` — a bounded poll, no file-system
notification dependency. On a change it stops the child (SIGTERM, then SIGKILL after
:data:`STOP_TIMEOUT_SECONDS`) and starts a new one. A child that exits 0 by itself (a stdio
client closed its end) ends the supervisor; one that fails waits for the next change. Ctrl-C
stops both. Restarts are reported on stderr.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from mcpkit.cli.errors import EXIT_INTERRUPTED

__all__ = ["POLL_INTERVAL_SECONDS", "STOP_TIMEOUT_SECONDS", "supervise"]

POLL_INTERVAL_SECONDS: Final = 0.3
"""How often the watched files' modification times are compared."""
STOP_TIMEOUT_SECONDS: Final = 3.0
"""How long a child gets to exit after SIGTERM before it is killed."""


def _stamp(files: Sequence[Path]) -> tuple[int, ...]:
    stamps = []
    for path in files:
        try:
            stat = path.stat()
            stamps.append(stat.st_mtime_ns ^ stat.st_size)
        except OSError:
            stamps.append(-1)
    return tuple(stamps)


def _say(text: str) -> None:
    sys.stderr.write(f"mcpkit: {text}\n")
    sys.stderr.flush()


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is not None:
        return
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def supervise(argv: Sequence[str], files: Sequence[Path]) -> int:
    """Run ``mcpkit <argv>`` and restart it when ``files`` change; returns the exit code."""
    command = [sys.executable, "-m", "mcpkit.cli", *argv]
    names = ", ".join(os.path.relpath(f) for f in files)
    stamp = _stamp(files)
    first = subprocess.Popen(command)
    child: subprocess.Popen[bytes] | None = first
    _say(f"serving (pid {first.pid}); watching {names} for changes")
    try:
        while True:
            if child is not None:
                try:
                    code = child.wait(POLL_INTERVAL_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
                else:
                    if code == 0:
                        return 0
                    _say(f"the server exited with code {code}; waiting for a change to restart")
                    child = None
            else:
                time.sleep(POLL_INTERVAL_SECONDS)  # nothing running: wait for the files
            current = _stamp(files)
            if current != stamp:
                stamp = current
                if child is not None:
                    _stop(child)
                _say(f"{names} changed; restarting")
                child = subprocess.Popen(command)
                _say(f"serving (pid {child.pid})")
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        if child is not None:
            _stop(child)

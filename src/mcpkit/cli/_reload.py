"""``mcpkit run --reload``: restart the server whenever its source file changes.

The supervisor never imports the server. It runs ``python -m mcpkit.cli run …`` as a child
(sharing our stdin/stdout for stdio, so the client keeps its pipes) and polls the watched files'
modification times every :data:`POLL_INTERVAL_SECONDS` — a bounded poll, no file-system
notification dependency. On a change it stops the child (SIGTERM, then SIGKILL after
:data:`STOP_TIMEOUT_SECONDS`) and starts a new one. A child that exits 0 by itself (a stdio
client closed its end) ends the supervisor; one that fails waits for the next change. Ctrl-C
stops both. Restarts are reported on stderr.

No child outlives the supervisor: SIGTERM and SIGHUP stop it the way Ctrl-C does (the child is
stopped first), and on Linux every child is started with ``PR_SET_PDEATHSIG`` so the kernel sends
it SIGTERM when the supervisor dies however it dies (SIGKILL included). Elsewhere, a killed
supervisor's child notices by itself (:func:`watch_reload_parent`, keyed by :data:`PARENT_ENV`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Final

from mcpkit.cli._errors import EXIT_INTERRUPTED

__all__ = [
    "PARENT_ENV",
    "POLL_INTERVAL_SECONDS",
    "STOP_TIMEOUT_SECONDS",
    "supervise",
    "watch_reload_parent",
]

POLL_INTERVAL_SECONDS: Final = 0.3
"""How often the watched files' modification times are compared."""
STOP_TIMEOUT_SECONDS: Final = 3.0
"""How long a child gets to exit after SIGTERM before it is killed."""
PARENT_ENV: Final = "MCPKIT_RELOAD_PARENT"
"""Set in the child's environment to the supervisor's pid (see :func:`watch_reload_parent`)."""
_PR_SET_PDEATHSIG: Final = 1


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM the child when its parent dies (else ``None``)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def arm() -> None:  # runs in the child between fork and exec: keep it tiny
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)

    return arm


def watch_reload_parent(interval: float = 0.5) -> None:
    """In a child started by the reloader: SIGTERM ourselves once the reloader is gone.

    The portable half of the parent-death check (Linux also uses ``PR_SET_PDEATHSIG``); a
    daemon thread, so it works whatever the child serves (stdio or HTTP). Does nothing outside
    a reloader's child.
    """
    text = os.environ.get(PARENT_ENV, "")
    if not text.isdigit():
        return
    parent = int(text)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="mcpkit-reload-parent-watch", daemon=True).start()


class _Stopped(Exception):
    """SIGTERM or SIGHUP reached the supervisor."""


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    def stop(signum: int, _frame: FrameType | None) -> None:
        raise _Stopped(signum)

    signums = [signal.SIGTERM, *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])]
    previous = {signum: signal.signal(signum, stop) for signum in signums}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


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
    supervisor = _Supervisor([sys.executable, "-m", "mcpkit.cli", *argv], files)
    try:
        with _stop_on_signals():
            return supervisor.run()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except _Stopped as stopped:
        _say("stopped by a signal; stopping the server")
        return 128 + int(stopped.args[0])
    finally:
        if supervisor.child is not None:
            _stop(supervisor.child)


class _Supervisor:
    """The restart loop; :attr:`child` is whatever runs now, so the caller can always stop it."""

    def __init__(self, command: list[str], files: Sequence[Path]) -> None:
        self.command = command
        self.files = files
        self.names = ", ".join(os.path.relpath(f) for f in files)
        self.env = {**os.environ, PARENT_ENV: str(os.getpid())}
        self.arm = _die_with_parent(os.getpid())
        self.child: subprocess.Popen[bytes] | None = None

    def start(self) -> subprocess.Popen[bytes]:
        self.child = subprocess.Popen(self.command, env=self.env, preexec_fn=self.arm)
        return self.child

    def run(self) -> int:
        stamp = _stamp(self.files)
        first = self.start()
        child: subprocess.Popen[bytes] | None = first
        _say(f"serving (pid {first.pid}); watching {self.names} for changes")
        while True:
            if child is not None:
                try:
                    code = child.wait(POLL_INTERVAL_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
                else:
                    self.child = child = None
                    if code == 0:
                        return 0
                    _say(f"the server exited with code {code}; waiting for a change to restart")
            else:
                time.sleep(POLL_INTERVAL_SECONDS)  # nothing running: wait for the files
            current = _stamp(self.files)
            if current != stamp:
                stamp = current
                if child is not None:
                    _stop(child)
                _say(f"{self.names} changed; restarting")
                child = self.start()
                _say(f"serving (pid {child.pid})")

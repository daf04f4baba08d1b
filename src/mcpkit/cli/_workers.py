"""``mcpkit run --http --workers N``: several server processes sharing one port.

The supervisor never imports the server. It binds the listening socket once and starts N
children (``python -m mcpkit.cli run TARGET --http ...``) that inherit it
(:data:`~mcpkit.transports.http.LISTEN_FD_ENV`): each accepts connections from the
same
queue, so the kernel spreads them over the processes and the port is never unbound while a child
restarts. It keeps N running — a child that dies (a crash, an OOM kill, ``kill -9``) is replaced —
and stops them all on SIGTERM, SIGHUP or Ctrl-C. A child that fails within
:data:`STARTUP_GRACE_SECONDS` of starting (an import error, a bad option) stops everything
instead of restarting in a loop.

With ``--reuse-port`` the supervisor binds one socket per worker instead, all on the same port
with ``SO_REUSEPORT``: the kernel hands each new connection to one socket (by a hash of the
connection's addresses), so no two workers wake up for the same connection. A restarted child
gets its slot's socket back (still held by the supervisor), so the port stays bound; but the
connections the kernel hashed to a dead worker's socket wait in its queue until the replacement
accepts them (a second or two), where with the shared socket the other workers take them at
once. See ``docs/deploy.md`` for the measured difference.

What the processes share is only the port. Unless ``MCPKIT_STATE_KEYS`` is set, the supervisor
makes one random key for its children, so a 2026 MRTR round started on one finishes on another.
Legacy sessions, event logs and task records are per process unless the children share them
on Redis (``--redis URL``; ``docs/deploy.md``).
"""

from __future__ import annotations

import base64
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Final

from mcpkit.cli._errors import EXIT_INTERRUPTED
from mcpkit.cli._reload import (
    PARENT_ENV,
    POLL_INTERVAL_SECONDS,
    STOP_TIMEOUT_SECONDS,
    _die_with_parent,
    _say,
    _stop_on_signals,
    _Stopped,
)

__all__ = ["STARTUP_GRACE_SECONDS", "supervise_workers", "worker_count"]

STARTUP_GRACE_SECONDS: Final = 5.0
"""A child that exits with an error code (not killed by a signal) this soon after starting stops
the supervisor instead of being restarted in a loop."""


class _Workers:
    """The children; :meth:`stop_all` can always be called, whatever state they are in."""

    def __init__(self, command: list[str], fds: Sequence[int], env: dict[str, str]) -> None:
        self.command = command
        self.fds = list(fds)
        """The listening socket of each slot (the same one in every slot unless reuse-port)."""
        self.env = env
        self.arm = _die_with_parent(os.getpid())
        self.children: dict[int, tuple[subprocess.Popen[bytes], float]] = {}

    def start(self, slot: int) -> subprocess.Popen[bytes]:
        from mcpkit.transports.http import LISTEN_FD_ENV

        fd = self.fds[slot]
        child = subprocess.Popen(
            self.command,
            env={**self.env, LISTEN_FD_ENV: str(fd)},
            pass_fds=(fd,),
            preexec_fn=self.arm,
        )
        self.children[slot] = (child, time.monotonic())
        return child

    def watch(self) -> int:
        """Replace children that die, until one fails at startup (its exit code is returned)."""
        while True:
            time.sleep(POLL_INTERVAL_SECONDS)
            for slot, (child, started) in list(self.children.items()):
                code = child.poll()
                if code is None:
                    continue
                if code > 0 and time.monotonic() - started < STARTUP_GRACE_SECONDS:
                    _say(f"worker {slot} (pid {child.pid}) failed at startup (code {code})")
                    return code
                replacement = self.start(slot)
                _say(
                    f"worker {slot} (pid {child.pid}) exited with code {code}; "
                    f"started pid {replacement.pid}"
                )

    def stop_all(self) -> None:
        """SIGTERM to every child at once, then wait (bounded) and kill what is left."""
        alive = [child for child, _ in self.children.values() if child.poll() is None]
        for child in alive:
            child.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT_SECONDS + 5.0  # + the graceful shutdown
        for child in alive:
            try:
                child.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _shared_env() -> dict[str, str]:
    from mcpkit.server import STATE_KEYS_ENV

    env = {**os.environ, PARENT_ENV: str(os.getpid())}
    if not env.get(STATE_KEYS_ENV, "").strip():
        env[STATE_KEYS_ENV] = base64.b64encode(secrets.token_bytes(32)).decode()
    return env


def _listeners(host: str, port: int, count: int, reuse_port: bool) -> list[socket.socket]:
    """The listening socket of each of ``count`` slots: one shared, or one each (reuse-port)."""
    from mcpkit.transports.http import listening_socket

    first = listening_socket(host, port, reuse_port=reuse_port)
    if not reuse_port:
        return [first] * count
    sockets = [first]
    try:
        bound = first.getsockname()[1]  # port 0: the others join the port the first got
        sockets += [listening_socket(host, bound, reuse_port=True) for _ in range(count - 1)]
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def supervise_workers(
    target: str,
    count: int,
    host: str,
    port: int,
    *,
    extra: Sequence[str] = (),
    reuse_port: bool = False,
) -> int:
    """Serve ``target`` over HTTP from ``count`` processes on one port; returns the exit code.

    ``extra`` is appended to each child's ``mcpkit run`` arguments (``--redis URL``).
    ``reuse_port``: one ``SO_REUSEPORT`` socket per worker instead of one shared socket (see the
    module docstring). Raises ``OSError`` when ``host:port`` cannot be bound (before any child
    starts).
    """
    sockets = _listeners(host, port, count, reuse_port)
    try:
        bound = sockets[0].getsockname()[1]
        command = [
            sys.executable, "-m", "mcpkit.cli", "run", target,
            "--http", "--host", host, "--port", str(bound), *extra,
        ]  # fmt: skip
        workers = _Workers(command, [sock.fileno() for sock in sockets], _shared_env())
        try:
            with _stop_on_signals():
                pids = [workers.start(slot).pid for slot in range(count)]
                _say(f"{count} workers on {host}:{bound} (pids {', '.join(map(str, pids))})")
                return workers.watch()
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        except _Stopped as stopped:
            _say("stopped by a signal; stopping the workers")
            return 128 + int(stopped.args[0])
        finally:
            workers.stop_all()
    finally:
        for sock in set(sockets):
            sock.close()


def worker_count(value: str) -> int:
    """``--workers``: a positive integer."""
    import argparse

    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of workers") from None
    if count < 1:
        raise argparse.ArgumentTypeError("--workers must be at least 1")
    return count

"""Child-process helpers for the stdio client: the environment it gets and how it is stopped."""

from __future__ import annotations

import os
import signal
from collections.abc import Collection, Mapping
from typing import Final

DEFAULT_ALLOWED_ENV: Final[tuple[str, ...]] = (
    # POSIX
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TMPDIR",
    "TZ",
    # mcpkit's own wire log (a debugging switch, never a secret): children log as the parent does
    "MCPKIT_WIRE_LOG",
    # Windows
    "APPDATA",
    "COMSPEC",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "WINDIR",
)
"""Variables a stdio server inherits from our environment by default.

Enough to find programs, the user's home, the locale and a temp dir; nothing that usually holds a
secret (API keys, tokens, cloud credentials stay with the parent unless passed in ``env``). A
name ending in ``*`` matches by prefix.
"""

_CASE_INSENSITIVE: Final = os.name == "nt"

KILL_SIGNAL: Final[int] = getattr(signal, "SIGKILL", signal.SIGTERM)
"""SIGKILL where it exists (on Windows, SIGTERM already means TerminateProcess)."""


def _allowed(name: str, patterns: Collection[str]) -> bool:
    key = name.upper() if _CASE_INSENSITIVE else name
    for pattern in patterns:
        pat = pattern.upper() if _CASE_INSENSITIVE else pattern
        if pat.endswith("*"):
            if key.startswith(pat[:-1]):
                return True
        elif key == pat:
            return True
    return False


def child_environment(
    inherit: Collection[str],
    extra: Mapping[str, str] | None,
    parent: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The allow-listed part of ``parent`` (default: ``os.environ``), then ``extra`` on top."""
    source = os.environ if parent is None else parent
    env = {name: value for name, value in source.items() if _allowed(name, inherit)}
    if extra:
        env.update(extra)
    return env


def signal_group(pid: int, sig: int) -> bool:
    """Send ``sig`` to the process group led by ``pid`` (the child runs in its own session).

    Returns false when nothing was left to signal. On platforms without process groups, only the
    process itself is signalled.
    """
    try:
        if hasattr(os, "killpg"):
            os.killpg(pid, sig)
        else:  # pragma: no cover - Windows
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def describe_exit(returncode: int) -> str:
    """``exited with code 3`` / ``was killed by SIGKILL``."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with code {returncode}"


__all__ = [
    "DEFAULT_ALLOWED_ENV",
    "KILL_SIGNAL",
    "child_environment",
    "describe_exit",
    "signal_group",
]

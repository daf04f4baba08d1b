"""Running the ``mcpkit`` command as a real subprocess, the way people run it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
EXAMPLES: Final = ROOT / "examples"
FIXTURES: Final = Path(__file__).resolve().parent / "fixtures"
CLI_TIMEOUT: Final = 90.0
"""Seconds one command may take before the test fails (generous: the machine is shared)."""
MCPKIT: Final = [sys.executable, "-m", "mcpkit.cli"]


@dataclass(frozen=True, slots=True)
class Ran:
    code: int
    out: str
    err: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def mcpkit(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
    timeout: float = CLI_TIMEOUT,
) -> Ran:
    """Run ``python -m mcpkit.cli ARGS`` to completion; stdin is closed unless given."""
    done = subprocess.run(
        [*MCPKIT, *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

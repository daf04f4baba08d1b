"""mcpkit as a user gets it: the built wheel, installed into a clean virtualenv with some extras.

The docs run against this, not the checkout: a page that forgets to tell the reader to install
an extra, or an example that imports something only the repository has, fails here as it would
for the reader. Building and installing take seconds each, so everything is made once per test
session and shared: one wheel (``scripts/build``), one venv per set of extras, each made on first
use. Under pytest-xdist the workers share them through a folder of the run and a lock file each
(the first worker to ask builds, the others wait and reuse).
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S: Final = 600.0
INSTALL_TIMEOUT_S: Final = 600.0
_PIP_INSTALL: Final = re.compile(r"pip install (?P<args>[^\n`#]+)")
_WITH_EXTRAS: Final = re.compile(r"""^["']?(?:mcpkit|\.|\S+\.whl)\[(?P<extras>[a-z,\s]+)\]["']?$""")
_PACKAGE: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Told:
    """What a page tells its reader to install: mcpkit's extras and other packages."""

    extras: frozenset[str] = frozenset()
    packages: frozenset[str] = frozenset()


def installs_told(text: str) -> Told:
    """Every ``pip install …`` on a page: ``".[a,b]"`` (or ``mcpkit[…]``, ``….whl[…]``) gives
    extras, a plain name (``starlette``) a package."""
    extras: set[str] = set()
    packages: set[str] = set()
    for match in _PIP_INSTALL.finditer(text):
        for arg in match.group("args").split():
            if found := _WITH_EXTRAS.match(arg):
                extras |= {e.strip() for e in found.group("extras").split(",") if e.strip()}
            elif _PACKAGE.match(arg) and arg not in ("mcpkit", "pip"):
                packages.add(arg)
    return Told(frozenset(extras), frozenset(packages))


def extras_told(text: str) -> frozenset[str]:
    """The extras a page tells its reader to install (see :func:`installs_told`)."""
    return installs_told(text).extras


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(argv: list[str], *, timeout: float, what: str, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False, env=env
    )
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")


class Installs:
    """The session's wheel and venvs, under ``base`` (shared by every worker of one run)."""

    def __init__(self, base: Path) -> None:
        self.base = base

    @property
    def dist(self) -> Path:
        return self.base / "dist"

    def wheel(self) -> Path:
        """``scripts/build``'s wheel (built on first use; the sdist is built beside it)."""
        with _locked(self.base / "build.lock"):
            found = sorted(self.dist.glob("mcpkit-*.whl"))
            if not found:
                _run(
                    [str(ROOT / "scripts" / "build")],
                    timeout=BUILD_TIMEOUT_S,
                    what="scripts/build",
                    env={**os.environ, "OUT": str(self.dist)},
                )
                found = sorted(self.dist.glob("mcpkit-*.whl"))
            assert len(found) == 1, f"scripts/build made {found}"
            return found[0]

    def venv(self, told: Told = Told()) -> Path:
        """A venv holding the wheel with the extras told (and their needs), and the packages
        told, nothing else."""
        chosen = sorted(told.extras)
        packages = sorted(told.packages)
        name = "venv-" + ("-".join([*chosen, *packages]) or "core")
        path = self.base / name
        wheel = self.wheel()
        with _locked(self.base / f"{name}.lock"):
            if not (path / ".ready").exists():
                _run([sys.executable, "-m", "venv", "--without-pip", str(path)],
                     timeout=INSTALL_TIMEOUT_S, what=f"making {name}")  # fmt: skip
                spec = f"{wheel}[{','.join(chosen)}]" if chosen else str(wheel)
                _run(
                    [sys.executable, "-m", "pip", "--python", str(path / "bin" / "python"),
                     "install", "--disable-pip-version-check", "--quiet", spec, *packages],
                    timeout=INSTALL_TIMEOUT_S,
                    what=f"installing {spec} into {name}",
                )  # fmt: skip
                (path / ".ready").touch()
        return path


def session_base(basetemp: Path) -> Path:
    """Where the session's installs live: one folder per run, shared by xdist workers."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return basetemp.parent / f"mcpkit-installs-{run}" if run else basetemp / "mcpkit-installs"

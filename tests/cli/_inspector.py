"""The web inspector as users start it (``mcpkit dev TARGET``, a real subprocess), and the real
browser that drives it (Debian's Chromium under Playwright; no browser download)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import parse_qs, urlsplit

import pytest

from ._process import Running, free_port, wait_for_port
from ._run import EXAMPLES, MCPKIT, ROOT

URL_TIMEOUT: Final = 60.0
"""Seconds for ``mcpkit dev`` to connect to its target and print the page's URL."""
EXIT_TIMEOUT: Final = 30.0
CHROMIUM_CANDIDATES: Final = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
SCREENSHOTS_ENV: Final = "MCPKIT_SCREENSHOTS"
"""Folder for the panel screenshots (``scripts/screenshots`` sets it to docs/img/inspector)."""


@dataclass(frozen=True, slots=True)
class Inspector:
    url: str
    base: str
    token: str
    port: int
    process: Running


ALLOW_LOOPBACK: Final = {"MCPKIT_AUTH_ALLOW_LOOPBACK": "1"}
"""The development opt-in for OAuth servers on loopback (the sign-in test's issuer is local)."""


@contextmanager
def run_inspector(*args: str, env: dict[str, str] | None = None) -> Iterator[Inspector]:
    """``mcpkit dev ARGS``; stopped with Ctrl-C (SIGINT) at the end, which must exit cleanly."""
    running = Running([*MCPKIT, "dev", *args], env=env)
    failed = False
    try:
        line = running.wait_stdout("mcpkit inspector: ", URL_TIMEOUT)
        url = line.split("mcpkit inspector: ", 1)[1].strip()
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1", url
        token = parse_qs(parts.query)["token"][0]
        yield Inspector(url, f"http://127.0.0.1:{parts.port}", token, int(parts.port or 0), running)
    except BaseException:
        failed = True  # the test's own failure is the one to report
        raise
    finally:
        if running.process.poll() is None:
            running.process.send_signal(signal.SIGINT)
        try:
            code: int | None = running.process.wait(EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            running.process.kill()
            running.process.wait()
            code = None
        if not failed:
            assert code is not None, "mcpkit dev did not exit on Ctrl-C"
            assert code in (0, -signal.SIGINT, 130), f"mcpkit dev exited {code}"


@contextmanager
def http_feature_tour() -> Iterator[str]:
    """examples/feature_tour.py served over Streamable HTTP; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "feature_tour.py"), "--http", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def chromium_path() -> str:
    """Debian's Chromium; CI must have it (scripts/install-system installs it)."""
    for candidate in (os.environ.get("MCPKIT_CHROMIUM"), *CHROMIUM_CANDIDATES):
        if candidate and Path(candidate).exists():
            return candidate
    found = shutil.which("chromium")
    if found:
        return found
    if os.environ.get("CI"):
        raise AssertionError("Chromium is missing in CI: scripts/install-system installs it")
    pytest.skip("Chromium is missing: run scripts/install-system (or apt-get install chromium)")


def screenshot_dir(fallback: Path) -> Path:
    folder = Path(os.environ.get(SCREENSHOTS_ENV) or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


__all__ = [
    "Inspector",
    "chromium_path",
    "free_port",
    "http_feature_tour",
    "run_inspector",
    "screenshot_dir",
]

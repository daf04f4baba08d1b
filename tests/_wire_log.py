"""Schema-check the messages that mcpkit *subprocesses* send during the test session.

In-process messages are checked test by test (:mod:`_schema_check`). Servers and clients that the
tests start as real subprocesses inherit ``MCPKIT_WIRE_LOG`` (set here at configure time), so
each appends what it sends to ``<dir>/wire.<pid>`` (:mod:`mcpkit._runtime.wire_log`). At the end of
the session every logged message is validated the same way; any violation fails the run, with
the message, the revision and the schema's complaint.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import msgspec
import pytest

from _schema_check import check_message, format_violations
from mcpkit._runtime.wire_log import WIRE_LOG_ENV

_STATE: dict[str, Path] = {}


def configure() -> None:
    """Point subprocesses at a fresh log directory (call from ``pytest_configure``)."""
    directory = Path(tempfile.mkdtemp(prefix="mcpkit-wire-"))
    _STATE["dir"] = directory
    os.environ[WIRE_LOG_ENV] = str(directory / "wire")


def check(session: pytest.Session) -> None:
    """Validate every logged message; fail the session on violations (``pytest_sessionfinish``)."""
    directory = _STATE.get("dir")
    if directory is None or not directory.exists():
        return
    violations = []
    checked = 0
    for path in sorted(directory.glob("wire.*")):
        for line in path.read_bytes().splitlines():
            try:
                entry = msgspec.json.decode(line)
            except msgspec.DecodeError:
                continue  # a process killed mid-write leaves a torn last line
            checked += 1
            violations += check_message(entry["message"], entry["version"], entry["method"])
    shutil.rmtree(directory, ignore_errors=True)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"schema check of subprocess messages: {checked} checked")
    if violations:
        if reporter is not None:
            reporter.write_line("subprocess " + format_violations(violations[:20]))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

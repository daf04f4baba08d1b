"""Schema-check the messages that mcpkit *subprocesses* send during the test session.

In-process messages are checked test by test (:mod:`_schema_check`). Servers and clients that the
tests start as real subprocesses inherit ``MCPKIT_WIRE_LOG`` (set here at configure time), so
each appends what it sends to ``<dir>/wire.<pid>`` (:mod:`mcpkit._runtime.wire_log`). At the end of
the session every logged message is validated the same way; any violation fails the run, with
the message, the revision and the schema's complaint.

Under pytest-xdist the controller makes the directory before it starts the workers, which inherit
``MCPKIT_WIRE_LOG``; only the controller checks, once, after every worker has finished (a
worker's exit status would not reach the run's result). ``mcpkit._runtime`` installs a wire log
from the environment when first imported: in a worker that would log the worker's *own*
messages too, among them those that tests send invalid on purpose (they opt out of the
in-process check, which already covers this process). So this module imports it first, with the
variable hidden, and puts the variable back for the children.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import msgspec
import pytest

from _schema_check import check_message, format_violations

WIRE_LOG_ENV = "MCPKIT_WIRE_LOG"
"""``mcpkit._runtime.wire_log.WIRE_LOG_ENV``, spelt out: importing it would install a log here."""

_STATE: dict[str, Path] = {}


def _import_runtime_unlogged() -> None:
    inherited = os.environ.pop(WIRE_LOG_ENV, None)
    try:
        from mcpkit._runtime import wire_log

        assert wire_log.WIRE_LOG_ENV == WIRE_LOG_ENV
    finally:
        if inherited is not None:
            os.environ[WIRE_LOG_ENV] = inherited


_import_runtime_unlogged()


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def configure(config: pytest.Config) -> None:
    """Point subprocesses at a fresh log directory (call from ``pytest_configure``)."""
    if _is_xdist_worker(config):
        return  # the controller's directory, inherited through the environment
    directory = Path(tempfile.mkdtemp(prefix="mcpkit-wire-"))
    _STATE["dir"] = directory
    os.environ[WIRE_LOG_ENV] = str(directory / "wire")


def check(session: pytest.Session) -> None:
    """Validate every logged message; fail the session on violations (``pytest_sessionfinish``)."""
    if _is_xdist_worker(session.config):
        return
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

"""First-run output: scripts/bootstrap prints one line per step and shows the package installer's
output only when a step fails.

The interpreter is a stand-in (``PYTHON=fake``) whose ``-m venv`` makes a venv holding itself and
whose ``-m pip`` prints the warnings this machine's pip configuration adds — so the test checks
the script's own behaviour, quickly and without an index.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ._servers import ROOT

FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; exit 0; fi
if [ "$1 $2" = "-m pip" ]; then
  echo "WARNING: Location 'file:///opt/pypi-more/simple/pip/' is ignored: it is neither a file"
  echo "Collecting msgspec"
  echo "pip: something went wrong" >&2
  exit "${FAKE_PIP_RC:-0}"
fi
if [ "$1" = "-c" ]; then echo "Python 3.99.0"; exit 0; fi
exit 3
"""
TIMEOUT_S = 60.0


def _bootstrap(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    return subprocess.run(
        [str(ROOT / "scripts" / "bootstrap")],
        env={**os.environ, "PYTHON": str(fake), "VENV": str(tmp_path / "venv"), **env},
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip


def test_one_line_per_step_and_no_installer_noise(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    first = _bootstrap(tmp_path)
    assert first.returncode == 0, first
    assert first.stdout.splitlines() == [
        f"bootstrap: created {venv} (Python 3.99.0)",
        f"bootstrap: installed mcpkit[dev] into {venv}",
    ]
    assert first.stderr == ""
    again = _bootstrap(tmp_path)
    assert (again.returncode, again.stdout, again.stderr) == (
        0,
        f"bootstrap: {venv} is current\n",
        "",
    )


def test_a_failing_step_shows_the_installer_output(tmp_path: Path) -> None:
    failed = _bootstrap(tmp_path, FAKE_PIP_RC="1")
    assert failed.returncode != 0
    assert "is ignored" in failed.stderr and "pip: something went wrong" in failed.stderr
    assert "bootstrap: failed:" in failed.stderr
    assert "is ignored" not in failed.stdout

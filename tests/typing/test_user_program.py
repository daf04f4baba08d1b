"""``mypy --strict`` on a user's program that uses every documented entry point (see there)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


@pytest.mark.timeout(300)
def test_mypy_strict_sees_real_types() -> None:
    """Uses the repository's mypy cache: warm after ``scripts/test``'s own mypy run."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--warn-unused-ignores",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            str(HERE / "user_program.py"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=280,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr

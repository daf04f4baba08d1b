"""``mypy --strict`` on a user's program that uses every documented entry point, and on a
file of mistakes it must catch (see there): one mypy run over both."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
USER_PROGRAM = HERE / "user_program.py"
MISTAKES = HERE / "misspelt_options.py"

_REPORTED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): error: .*\[(?P<code>[a-z-]+)\]$", re.M)
_MARKED = re.compile(r"#\s*error:\s*(?P<code>[a-z-]+)\s*$")


def _marked(path: Path) -> set[tuple[str, int, str]]:
    """``(file name, line, error code)`` of every line the file marks ``# error: CODE``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = {
        (path.name, number, match["code"])
        for number, line in enumerate(lines, 1)
        if (match := _MARKED.search(line))
    }
    assert found, f"{path.name} marks no line"
    return found


@pytest.fixture(scope="module")
def mypy_report() -> subprocess.CompletedProcess[str]:
    """Uses the repository's mypy cache: warm after ``scripts/test``'s own mypy run."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--warn-unused-ignores",
            "--show-error-codes",
            "--no-pretty",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            str(USER_PROGRAM),
            str(MISTAKES),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=280,
        check=False,
    )


def _reported(report: subprocess.CompletedProcess[str]) -> set[tuple[str, int, str]]:
    return {
        (Path(match["file"]).name, int(match["line"]), match["code"])
        for match in _REPORTED.finditer(report.stdout)
    }


@pytest.mark.timeout(300)
def test_mypy_strict_sees_real_types(mypy_report: subprocess.CompletedProcess[str]) -> None:
    """The user's program type-checks: not one error in it."""
    in_program = {row for row in _reported(mypy_report) if row[0] == USER_PROGRAM.name}
    assert not in_program, mypy_report.stdout + mypy_report.stderr
    # mypy ran and judged (the mistakes file has errors), and only the mistakes file has any
    assert re.search(r"^Found \d+ errors? in 1 file", mypy_report.stdout, re.M), (
        mypy_report.stdout + mypy_report.stderr
    )


@pytest.mark.timeout(300)
def test_mypy_reports_each_misspelt_option(mypy_report: subprocess.CompletedProcess[str]) -> None:
    """Every marked mistake is reported, on its line and with its code, and nothing else is."""
    reported = {row for row in _reported(mypy_report) if row[0] == MISTAKES.name}
    assert reported == _marked(MISTAKES), mypy_report.stdout + mypy_report.stderr

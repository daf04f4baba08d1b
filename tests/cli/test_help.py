"""The command starts, documents itself, and stays light until a command needs more."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcpkit.cli import _app as app

from ._run import mcpkit

COMMANDS = (
    "run", "list", "call", "read", "prompt", "inspect", "install", "dev", "host", "watch",
    "gateway",
)  # fmt: skip


def test_help_lists_every_command_and_the_exit_codes() -> None:
    ran = mcpkit("--help")
    assert ran.code == 0, ran
    for name in COMMANDS:
        assert f"    {name} " in ran.out, name
    assert "exit codes: 0 ok, 1 the tool reported an error, 2 usage" in ran.out


def test_help_points_to_help_a_pip_user_can_reach() -> None:
    """A wheel has no docs/ folder: the first pointer is help the command itself gives."""
    epilog = " ".join(mcpkit("--help").out.split())
    assert "help: `mcpkit COMMAND --help` shows every option of a command" in epilog
    assert "docs: docs/cli.md" not in epilog
    assert "the sdist that scripts/build makes" in epilog
    assert mcpkit("call", "--help").code == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    ran = mcpkit(command, "--help")
    assert ran.code == 0, ran
    assert f"usage: mcpkit {command}" in ran.out


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "mcpkit"
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mcpkit ")


def test_help_does_not_load_asyncio_or_the_client() -> None:
    code = (
        "import sys; from mcpkit.cli._app import build_parser; build_parser().format_help(); "
        "print(sorted(m for m in ('asyncio', 'mcpkit.client', 'mcpkit.server', 'msgspec') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_usage_errors_are_one_line_and_a_hint_with_exit_2() -> None:
    ran = mcpkit("call")
    assert ran.code == 2
    lines = ran.err.strip().splitlines()
    assert lines[0].startswith("mcpkit: error: ")
    assert lines[1].startswith("hint: ")
    assert len(lines) == 2
    assert ran.out == ""


def test_no_command_is_a_usage_error() -> None:
    ran = mcpkit()
    assert ran.code == 2
    assert "mcpkit: error:" in ran.err


def test_call_help_names_the_right_switches() -> None:
    """``--json`` gives the arguments; the whole result is ``--output-json`` (the help once mixed
    them up)."""
    ran = mcpkit("call", "--help")
    assert ran.code == 0, ran
    # argparse wraps lines anywhere, even inside "--output-json": compare without whitespace.
    squashed = re.sub(r"\s+", "", ran.out.replace("``", ""))
    assert "with--output-jsonasthewholeresult" in squashed, ran.out
    assert not re.search(r"(?<![\w-])--jsonasthewholeresult", squashed), ran.out
    assert "--jsonJSONallargumentsasoneJSONobject" in squashed, ran.out


@pytest.mark.parametrize("command", app.COMMANDS)
def test_help_is_plain_text(command: str) -> None:
    """Descriptions come from docstrings; no reST markup or source pointers reach the reader."""
    ran = mcpkit(command, "--help")
    assert ran.code == 0, ran
    assert "``" not in ran.out, ran.out
    for role in (":mod:`", ":class:`", ":func:`", ":data:`", ":meth:`"):
        assert role not in ran.out, ran.out

"""Bad servers: failing to start (their stderr shown), vanishing, and Ctrl-C mid-call.

Each case is one clear error line, a hint, a documented non-zero exit, and no server process
left behind.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ._run import MCPKIT, ROOT, mcpkit, pid_alive

HANGING = "tests/cli/fixtures/hanging_server.py"
INTERRUPT_TIMEOUT = 30.0
"""Seconds the command gets to stop its server and exit after SIGINT."""


def test_a_server_that_fails_while_importing_shows_its_stderr_and_exits_3() -> None:
    ran = mcpkit("list", "tests/cli/fixtures/broken_server.py")
    assert ran.code == 3, ran
    first = ran.err.splitlines()[0]
    assert first.startswith("mcpkit: error: ")
    assert "broken_server.py" in first
    # the server's own stderr, quoted: what it wrote and its traceback
    assert "broken_server: cannot open the settings file settings.toml" in ran.err
    assert "RuntimeError: settings.toml is missing" in ran.err
    assert ran.err.rstrip().splitlines()[-1].startswith("hint: check that the server starts")


def test_a_command_that_does_not_exist_exits_3() -> None:
    ran = mcpkit("list", "definitely-not-a-program --flag")
    assert ran.code == 3, ran
    assert "could not start 'definitely-not-a-program'" in ran.err


def test_a_server_that_exits_at_once_exits_3_and_says_so() -> None:
    script = "import sys; sys.stderr.write('no API key configured\\n'); sys.exit(7)"
    ran = mcpkit("list", f'{sys.executable} -c "{script}"')
    assert ran.code == 3, ran
    assert "no API key configured" in ran.err


def test_a_file_without_a_server_is_a_usage_error() -> None:
    ran = mcpkit("run", "tests/cli/_run.py")
    assert ran.code == 2, ran
    assert "defines no mcpkit Server at module level" in ran.err


def test_a_server_that_stops_answering_hits_the_timeout_and_exits_3() -> None:
    ran = mcpkit("call", HANGING, "wait_forever", "--timeout", "1")
    assert ran.code == 3, ran
    assert "the server did not answer in time" in ran.err
    assert "hint: raise the limit with --timeout SECONDS" in ran.err


def _hanging_config(folder: Path) -> Path:
    config = folder / "hanging.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "hanging": {
                        "command": sys.executable,
                        "args": ["-m", "mcpkit.cli", "run", str(ROOT / HANGING)],
                    }
                }
            }
        )
    )
    return config


@pytest.mark.parametrize("command", ["call", "host"])
def test_ctrl_c_mid_call_exits_130_and_leaves_no_server_behind(
    command: str, tmp_path: Path
) -> None:
    target = HANGING if command == "call" else str(_hanging_config(tmp_path))
    process = subprocess.Popen(
        [*MCPKIT, command, target, "wait_forever"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # the tool's first progress names the server's pid
        found = re.search(r"server pid (\d+)", line)
        assert found, line
        server_pid = int(found.group(1))
        assert pid_alive(server_pid)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=INTERRUPT_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert err.strip().endswith("mcpkit: interrupted")
    assert "Traceback" not in err
    if command == "call":
        assert out == ""
    assert not pid_alive(server_pid), "the server outlived the command"

"""The README's promises: its two commands exist, and its 30-second server runs as shown."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcpkit.client import Client

from ._servers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMAND_TIMEOUT = 90.0


def _server_source() -> str:
    found = re.search(r"Save this as `server.py`:\n\n```python\n(.*?)```", README, re.DOTALL)
    assert found, "the README lost its server example"
    return found.group(1)


def test_the_two_commands_are_there_and_executable() -> None:
    for command in ("scripts/demo", "scripts/test"):
        assert re.search(rf"^{re.escape(command)}\b", README, re.MULTILINE), command
        assert os.access(ROOT / command, os.X_OK), command


def test_the_server_example_answers_the_call_the_readme_shows(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(_server_source(), encoding="utf-8")
    shown = re.search(r"^(mcpkit call server\.py .*?)\s+# (?:→ )?(.*)$", README, re.MULTILINE)
    assert shown, "the README lost its mcpkit call line"
    command, expected = shown.group(1).split(), shown.group(2)
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit.cli", *command[1:]],
        cwd=tmp_path, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_server_example_runs_as_a_script_in_both_eras(tmp_path: Path, mode: str) -> None:
    script = tmp_path / "server.py"
    script.write_text(_server_source(), encoding="utf-8")
    async with Client([sys.executable, str(script)], mode=mode) as client:  # type: ignore[arg-type]
        tools = await client.list_tools()
        result = await client.call_tool("greet", {"name": "Lin"})
    assert [t.name for t in tools] == ["greet"]
    assert tools[0].input_schema["required"] == ["name"]
    assert result.content[0].text == "Hello, Lin!"  # type: ignore[union-attr]

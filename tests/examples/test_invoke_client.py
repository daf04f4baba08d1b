"""The ``invoke`` client script runs as people run it, and prints what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ._servers import EXAMPLES, ROOT

SCRIPT_TIMEOUT = 90.0


def test_invoke_client_script(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "invoke_client.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT, check=False,
        env={**os.environ, "MCPKIT_EXAMPLES_DATA": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "跑步鞋 -> Nike Air Max at 899 CNY"
    assert lines[1] == (
        "caught before sending: Invalid arguments: `limit`: expected an integer, got a string"
    )
    assert lines[2] == "cities: Shanghai, London, Beijing, Madrid, Osaka"
    assert lines[3].startswith("DROP TABLE -> refused: only SELECT queries are allowed")

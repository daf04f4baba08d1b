"""The example servers as real stdio subprocesses (``python examples/X.py``), with their data in
a test's own folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
EXAMPLES: Final = ROOT / "examples"
NOTIFY_TIMEOUT: Final = 30.0
"""Seconds to wait for a change notification before the test fails."""


def example(script: str, data: Path, **env: str) -> dict[str, Any]:
    """An ``mcpServers`` entry running ``examples/<script>`` with its data under ``data``."""
    return {
        "command": sys.executable,
        "args": [str(EXAMPLES / script)],
        "env": {"MCPKIT_EXAMPLES_DATA": str(data), **env},
    }

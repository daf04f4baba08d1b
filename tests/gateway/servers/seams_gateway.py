"""The gateway of tests/gateway/test_gateway_seams.py: two instances of ``seams_backend.py``
behind it, ``one`` spoken to in 2026-07-28 and ``two`` in the handshake era, and ``tasks``
(tests/server/fixtures/tasks_server.py, whose tools run as tasks) in 2026-07-28, and the same
as ``oldtasks`` in the handshake era (2025-11-25 core tasks); a stdio child each, every client
allowed.

``python seams_gateway.py`` serves stdio; the test imports :func:`build` to serve it on HTTP.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcpkit.gateway import Gateway

BACKEND = Path(__file__).resolve().parent / "seams_backend.py"
TASKS = Path(__file__).resolve().parents[2] / "server" / "fixtures" / "tasks_server.py"


def build(**options: Any) -> Gateway:
    return Gateway(
        {
            "one": {"command": sys.executable, "args": [str(BACKEND), "one"]},
            "two": {"command": sys.executable, "args": [str(BACKEND), "two"], "mode": "legacy"},
            "tasks": {"command": sys.executable, "args": [str(TASKS)]},
            "oldtasks": {"command": sys.executable, "args": [str(TASKS)], "mode": "legacy"},
        },
        name="seams-gateway",
        **options,
    )


if __name__ == "__main__":
    build().run("stdio")

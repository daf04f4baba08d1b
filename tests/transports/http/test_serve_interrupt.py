"""Ctrl-C right after ``mcpkit: serving … at URL`` stops the server, cleanly.

The announcement is what people (and scripts, and the docs harness) wait for before using or
stopping a server. It used to be printed as soon as the socket was bound, before uvicorn had
started and taken over SIGINT: a Ctrl-C sent on seeing it could land during start-up, where it
was lost (the server went on serving) or broke out as a traceback. Now it is printed once the
server has started, under uvicorn's signal handling.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROUNDS = 5
"""Each round races a Ctrl-C against start-up once; a few make a lost interrupt likely."""
STOP_TIMEOUT_S = 15.0

SERVER = textwrap.dedent(
    """
    from mcpkit.server import Server

    server = Server("interrupted")

    @server.tool
    def echo(text: str) -> str:
        return text

    server.run("http", port=0)
    """
)


@pytest.mark.no_schema_check  # nothing is sent: the test only starts and stops servers
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_on_the_announcement_stops_the_server(tmp_path: Path, how: int) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    for _ in range(ROUNDS):
        process = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        assert process.stderr is not None
        said = []
        try:
            for line in process.stderr:
                said.append(line)
                if line.startswith("mcpkit: serving interrupted at http://"):
                    os.killpg(process.pid, how)  # at once, as a script waiting for it does
                    break
            rest = process.communicate(timeout=STOP_TIMEOUT_S)[1]
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        output = "".join(said) + rest
        assert process.returncode in (0, -how, 128 + how), output
        assert "Traceback" not in output, output

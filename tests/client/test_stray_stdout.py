"""A stdio server that prints to stdout: the client says what happened and shows the text.

``print()`` at import time runs before ``server.run()`` can protect stdout, so the line reaches
the client where only JSON-RPC may. "Parse error … (byte 0)" does not tell anyone that; the
message names the cause and quotes the line. ``mcpkit run`` (and so ``Client("server.py")``)
imports the file with stdout sent to stderr, so there the print is harmless.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Final

RUN_TIMEOUT: Final = 60.0

NOISY: Final = textwrap.dedent(
    """
    print("loading config from /etc/noisy")

    from mcpkit.server import Server

    server = Server("noisy")


    @server.tool
    def greet(name: str) -> str:
        return f"Hello, {name}!"


    if __name__ == "__main__":
        server.run()
    """
)

CLIENT: Final = textwrap.dedent(
    """
    import asyncio, sys
    from mcpkit.client import Client


    async def main():
        async with Client(sys.argv[1:] if len(sys.argv) > 2 else sys.argv[1]) as client:
            result = await client.call_tool("greet", {"name": "Ada"})
            print(result.content[0].text)


    asyncio.run(main())
    """
)


def _client(tmp_path: Path, *target: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "noisy.py").write_text(NOISY, encoding="utf-8")
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "client.py", *target],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def test_text_on_a_servers_stdout_is_named_and_shown(tmp_path: Path) -> None:
    done = _client(tmp_path, sys.executable, "noisy.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello, Ada!"
    assert "the server wrote non-protocol text to its stdout" in done.stderr
    assert "'loading config from /etc/noisy'" in done.stderr
    assert "(byte 0)" not in done.stderr


def test_mcpkit_run_sends_an_import_time_print_to_stderr(tmp_path: Path) -> None:
    done = _client(tmp_path, "noisy.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello, Ada!"
    assert "loading config from /etc/noisy" in done.stderr  # the server's stderr, shown
    assert "non-protocol" not in done.stderr and "Parse error" not in done.stderr


def test_the_mcpkit_command_shows_the_print_and_no_parse_error(tmp_path: Path) -> None:
    (tmp_path / "noisy.py").write_text(NOISY, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit.cli", "call", "noisy.py", "greet", "name=Ada"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Hello, Ada!" in done.stdout
    assert "loading config from /etc/noisy" in done.stderr
    assert "Parse error" not in done.stderr

"""A stdio server's stderr, as the Python ``Client`` shows it: on our stderr by default.

A tool that raises logs its traceback on the server's stderr; a person writing a client script
must see it without configuring logging (the official SDK passes it through too). ``"log"``
and a text file object are the alternatives. Real server processes throughout.
"""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Final

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import UsageError
from mcpkit.transports._stdio import StdioServerParameters

RUN_TIMEOUT: Final = 60.0

SERVER: Final = textwrap.dedent(
    """
    import sys
    from mcpkit.server import Server

    server = Server("loud")


    @server.tool
    def boom() -> str:
        print("about to fail", file=sys.stderr, flush=True)
        raise RuntimeError("kaboom-detail")


    if __name__ == "__main__":
        server.run()
    """
)

CLIENT: Final = textwrap.dedent(
    """
    import asyncio, sys
    from mcpkit.client import Client


    async def main():
        async with Client([sys.executable, "server.py"]) as client:
            result = await client.call_tool("boom", {})
            print("isError", result.is_error)


    asyncio.run(main())
    """
)


def _write_server(folder: Path) -> Path:
    path = folder / "server.py"
    path.write_text(SERVER, encoding="utf-8")
    return path


def test_a_client_script_shows_the_servers_traceback_on_its_stderr(tmp_path: Path) -> None:
    _write_server(tmp_path)
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "client.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "isError True" in done.stdout
    # Without any logging configuration: the server's own words, traceback included.
    assert "about to fail" in done.stderr
    assert "RuntimeError: kaboom-detail" in done.stderr
    assert "Traceback" in done.stderr


async def test_server_stderr_can_be_captured(tmp_path: Path) -> None:
    server = _write_server(tmp_path)
    captured = io.StringIO()
    async with Client([sys.executable, str(server)], server_stderr=captured) as client:
        result = await client.call_tool("boom", {})
        assert result.is_error
    assert "about to fail" in captured.getvalue()
    assert "RuntimeError: kaboom-detail" in captured.getvalue()


async def test_server_stderr_can_go_to_logging(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    server = _write_server(tmp_path)
    caplog.set_level(logging.INFO, logger="mcpkit.stdio.loud")
    params = StdioServerParameters(sys.executable, [str(server)], name="loud")
    async with Client(params, server_stderr="log") as client:
        await client.call_tool("boom", {})
    logged = [r.getMessage() for r in caplog.records if r.name == "mcpkit.stdio.loud"]
    assert "about to fail" in logged
    assert "about to fail" not in capfd.readouterr().err


async def test_the_default_writes_to_whatever_stderr_is_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _write_server(tmp_path)
    async with Client([sys.executable, str(server)]) as client:
        await client.call_tool("boom", {})
    assert "RuntimeError: kaboom-detail" in capsys.readouterr().err


def test_server_stderr_is_refused_for_a_url_and_for_a_wrong_value() -> None:
    with pytest.raises(UsageError, match="server_stderr applies to a server started as a command"):
        Client("http://127.0.0.1:9/mcp", server_stderr="log")
    with pytest.raises(UsageError, match='stderr must be "show", "log" or a text file object'):
        Client(["python", "server.py"], server_stderr="loud")  # type: ignore[arg-type]

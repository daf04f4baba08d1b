"""``Client("server.py")`` runs the file the way ``mcpkit call server.py`` does (real processes)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Final

import pytest

from mcpkit.client import Client
from mcpkit.client._connectors import CommandConnector, resolve_target
from mcpkit.protocol._errors import UsageError

SERVER: Final = textwrap.dedent(
    """
    from mcpkit.server import Server

    server = Server("hello")


    @server.tool
    def greet(name: str) -> str:
        return f"Hello, {name}!"
    """
)  # no ``__main__`` block: ``mcpkit run`` serves a module-level Server


async def test_a_python_file_is_a_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for target in ("server.py", ["server.py"], f"{tmp_path / 'server.py'}:server"):
        async with Client(target) as client:
            result = await client.call_tool("greet", {"name": "Ada"})
            assert result.content[0].text == "Hello, Ada!"  # type: ignore[union-attr]


def test_the_file_runs_with_this_interpreter(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    connector = resolve_target(str(tmp_path / "server.py"))
    assert isinstance(connector, CommandConnector)
    assert connector.command == sys.executable
    assert connector.args[:3] == ["-m", "mcpkit.cli", "run"]


def test_a_missing_python_file_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"'nothere\.py' is not a file \(looked from "):
        Client("nothere.py")


def test_a_command_line_with_a_python_file_is_still_a_command(tmp_path: Path) -> None:
    connector = resolve_target("python server.py --flag")
    assert isinstance(connector, CommandConnector)
    assert (connector.command, connector.args) == ("python", ["server.py", "--flag"])

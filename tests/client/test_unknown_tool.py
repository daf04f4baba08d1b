"""``call_tool("nope")`` raises :class:`UnknownTool` from a ``Client`` as from a ``Host``
(a real stdio server, both eras), so one ``except`` serves both."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Final

import pytest

from mcpkit.client import Client, Host
from mcpkit.errors import InvalidParams, UnknownTool

SERVER: Final = textwrap.dedent(
    """
    from mcpkit.errors import InvalidParams
    from mcpkit.server import Server

    server = Server("hello")


    @server.tool
    def greet(name: str) -> str:
        return f"Hello, {name}!"


    @server.tool
    def picky(n: int) -> int:
        raise InvalidParams("n must be even")


    if __name__ == "__main__":
        server.run()
    """
)


@pytest.fixture
def server(tmp_path: Path) -> list[str]:
    path = tmp_path / "server.py"
    path.write_text(SERVER, encoding="utf-8")
    return [sys.executable, str(path)]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_client_and_host_raise_unknown_tool(server: list[str], mode: str) -> None:
    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
        with pytest.raises(UnknownTool) as from_client:
            await client.call_tool("nope", {})
        with pytest.raises(UnknownTool):
            await client.call_tool("nope", {}, output_validation="off")
        # A tool that exists and refuses its arguments keeps the server's own error.
        with pytest.raises(InvalidParams, match="n must be even"):
            await client.call_tool("picky", {"n": 1})
    assert from_client.value.name == "nope"
    assert "greet" in str(from_client.value)
    async with Host({"hello": {"command": server[0], "args": server[1:]}},
                    client_options={"mode": mode}) as host:  # fmt: skip
        with pytest.raises(UnknownTool):
            await host.call_tool("nope", {})

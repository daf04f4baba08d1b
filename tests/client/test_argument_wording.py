"""A client's own argument check words a mistake exactly as the server does (real stdio server).

``ainvoke`` checks arguments against the tool's ``inputSchema`` before sending; the server checks
them again. The same mistake must read the same either way, so a person (or a model) learns one
wording: ``Invalid arguments: `times`: expected an integer, got a string``.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client, InputValidationError

SERVER: Final = textwrap.dedent(
    """
    from mcpkit.server import Server

    server = Server("hello")


    @server.tool
    def greet(name: str, times: int = 1) -> str:
        return " ".join([f"Hello, {name}!"] * times)


    if __name__ == "__main__":
        server.run()
    """
)

MISTAKES: Final[list[dict[str, Any]]] = [
    {"name": "Ada", "times": "x"},
    {"times": 2},
    {"name": 5},
    {"name": "Ada", "tiems": 2},
]


@pytest.mark.parametrize("arguments", MISTAKES)
async def test_the_client_and_the_server_word_a_bad_argument_alike(
    tmp_path: Path, arguments: dict[str, Any]
) -> None:
    server = tmp_path / "server.py"
    server.write_text(SERVER, encoding="utf-8")
    async with Client([sys.executable, str(server)]) as client:
        with pytest.raises(InputValidationError) as local:
            await client.ainvoke("greet", arguments)
        remote = await client.call_tool("greet", arguments)  # no local check: the server's word
    assert remote.is_error
    said = remote.content[0].text  # type: ignore[union-attr]
    assert str(local.value) == said
    assert said.startswith("Invalid arguments: `")

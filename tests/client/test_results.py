"""What ``call_tool`` hands out reads naturally: ``structured_content`` is ``None`` when the
server sent none (never ``UNSET``), ``is_error`` is always a bool — in both eras."""

from __future__ import annotations

import pytest

from mcpkit.client import Client
from mcpkit.server import Server, ToolError


def _server() -> Server:
    server = Server("results")

    @server.tool
    def plain() -> str:
        """Text only: no structured content, no isError."""
        return "hello"

    @server.tool
    def failing() -> str:
        """A tool error."""
        raise ToolError("nope")

    @server.tool
    def counted() -> dict[str, int]:
        """Structured content."""
        return {"n": 1}

    return server


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_absent_fields_read_as_none_and_false(mode: str) -> None:
    async with Client(_server(), mode=mode) as client:
        plain = await client.call_tool("plain")
        assert plain.structured_content is None
        assert plain.is_error is False
        failing = await client.call_tool("failing")
        assert failing.is_error is True
        assert failing.structured_content is None
        counted = await client.call_tool("counted")
        assert counted.structured_content == {"n": 1}
        assert counted.is_error is False

"""A message larger than the receiver's limit fails the request it is (or answers) at once, with
an error that says so, over real HTTP in both directions — never a wait for a deadline:

* a client's request body over the server's ``max_body_bytes``: the server drains it and answers
  413 with the request's id, so the client raises the server's message (not a reset);
* a client's *answer* to a server request (an elicitation result) over the limit: the server's
  waiting handler fails at once;
* a server's response over the client's limit: the client's call fails at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from _asgi_harness import bound, running

from mcpkit.client import Client
from mcpkit.protocol._errors import InvalidRequest, RemoteProtocolError
from mcpkit.server import Context, Server

LIMIT = 64 * 1024


def _server() -> Server:
    server = Server("oversized", "1.0.0")

    @server.tool
    def echo(text: str) -> int:
        """The length of ``text``."""
        return len(text)

    @server.tool
    def big(size: int) -> str:
        """``size`` characters."""
        return "x" * size

    @server.tool
    async def ask(ctx: Context) -> str:
        """Elicit a name; report how the wait ended."""
        try:
            answer = await ctx.elicit(
                "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
            )
        except InvalidRequest as exc:
            return f"failed: {exc.message}"
        return f"got {len((answer.content or {}).get('name', ''))}"

    return server


async def _huge_answer(params: Any, context: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "n" * (2 * LIMIT)}}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_request_over_the_servers_body_limit_fails_at_once_with_its_message(
    mode: str,
) -> None:
    app = _server().http_app(max_body_bytes=LIMIT)
    async with running(app) as url, Client(f"{url}/mcp", mode=mode, timeout=60) as client:  # type: ignore[arg-type]
        with pytest.raises(InvalidRequest, match="max_body_bytes"):
            await bound(client.call_tool("echo", {"text": "y" * (2 * LIMIT)}))
        small = await bound(client.call_tool("echo", {"text": "ok"}))  # still serving
        assert small.structured_content == {"result": 2}


async def test_an_answer_over_the_servers_limit_fails_the_waiting_handler_at_once() -> None:
    app = _server().http_app(max_body_bytes=LIMIT)
    async with (
        running(app) as url,
        Client(f"{url}/mcp", mode="legacy", timeout=60, elicitation_handler=_huge_answer) as client,
    ):
        result = await bound(client.call_tool("ask", {}))
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith("failed: the client's answer was dropped"), text
        assert "max_body_bytes" in text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_response_over_the_clients_limit_fails_the_call_at_once(mode: str) -> None:
    from mcpkit.protocol._framing import MAX_LINE_BYTES

    app = _server().http_app()
    async with running(app) as url, Client(f"{url}/mcp", mode=mode, timeout=60) as client:  # type: ignore[arg-type]
        with pytest.raises(RemoteProtocolError, match="limit"):
            await bound(client.call_tool("big", {"size": MAX_LINE_BYTES + 1024}), 30)
        small = await bound(client.call_tool("big", {"size": 3}))
        assert small.content[0].text == "xxx"  # type: ignore[union-attr]

"""A 2026 retry whose ``requestState`` the server refuses (expired while the user answered, or
signed by a restarted server's new key) is made again from the start: the questions are asked
again and the call completes, instead of failing every later attempt the same way.

Over HTTP on loopback; the state's lifetime is set tiny for the first round only, so "expired"
happens without waiting 15 minutes.
"""

from __future__ import annotations

from typing import Any

from _loopback import serving
from mcpkit.client import Client
from mcpkit.server import Context, Server
from mcpkit.server._request_state import DEFAULT_STATE_TTL, RequestStateSealer

KEY = b"k" * 32


def build(starts: list[str]) -> Server:
    server = Server("stale", "1.0.0")
    server.state_sealer = RequestStateSealer([KEY], ttl_seconds=1e-9)  # first round: expired

    @server.tool
    async def greet(name: str, ctx: Context) -> str:
        starts.append(name)
        answer = await ctx.elicit(
            "Title?", {"type": "object", "properties": {"t": {"type": "string"}}}
        )
        title = (answer.content or {}).get("t", "") if answer.accepted else "?"
        return f"Hello {title} {name}"

    return server


async def test_an_expired_request_state_restarts_the_call_and_asks_again() -> None:
    starts: list[str] = []
    server = build(starts)
    asked: list[str] = []

    async def answer(params: Any, ctx: Any) -> dict[str, Any]:
        asked.append(params.message)
        server.state_sealer.ttl_seconds = DEFAULT_STATE_TTL  # later rounds live normally
        return {"action": "accept", "content": {"t": f"Dr{len(asked)}"}}

    async with (
        serving(server.http_app()) as base,
        Client(f"{base}/mcp", mode="2026-07-28", elicitation_handler=answer) as client,
    ):
        result = await client.call_tool("greet", {"name": "Ada"})
    assert result.content[0].text == "Hello Dr2 Ada"  # type: ignore[union-attr]
    assert asked == ["Title?", "Title?"]  # asked again after the refusal
    # first round, the refused retry (the tool body does not run), the fresh call, its retry
    assert starts == ["Ada"] * 3


async def test_a_second_refusal_is_raised_not_looped() -> None:
    server = build([])

    async def answer(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"t": "Dr"}}  # the state stays short-lived

    async with (
        serving(server.http_app()) as base,
        Client(f"{base}/mcp", mode="2026-07-28", elicitation_handler=answer) as client,
    ):
        try:
            await client.call_tool("greet", {"name": "Ada"})
        except Exception as exc:
            from mcpkit.protocol._errors import InvalidParams

            assert isinstance(exc, InvalidParams)
            assert "expired" in str(exc)
        else:
            raise AssertionError("a state refused twice must be raised")

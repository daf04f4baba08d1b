"""The wire side of a tool asking the client: InputRequiredResult round trips with a sealed
requestState (2026-07-28) that cannot be forged, replayed or kept past its expiry, and log
levels in ``_meta``.

The same questions asked through mcpkit's client (legacy server→client requests and 2026
rounds, in order, typed answers, URL mode, capability refusals) run over every transport in
tests/interaction/test_kit_questions.py; log levels through a client in
tests/interaction/test_every_transport.py."""

from __future__ import annotations

from typing import Any

import pytest
from _server_harness import RawPeer, connect

from mcpkit.protocol._errors import InvalidParams
from mcpkit.server import Context, Server
from mcpkit.types import TextContent

ALL_CAPS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def build() -> Server:
    server = Server("questions")

    @server.tool
    async def interview(ctx: Context) -> str:
        """Ask everything the client can answer, in order."""
        name = await ctx.elicit(
            "Who are you?",
            {"type": "object", "properties": {"name": {"type": "string", "default": "anon"}}},
        )
        poem = await ctx.sample(f"Write a haiku for {name.content}", max_tokens=50)
        roots = await ctx.list_roots()
        text = poem.content.text if isinstance(poem.content, TextContent) else "?"
        return f"{name.action}:{name.content['name'] if name.content else '-'}|" + (
            f"{text}|{','.join(r['uri'] for r in roots)}"
        )

    @server.tool
    async def visit(ctx: Context) -> str:
        answer = await ctx.elicit_url("Authorize the wallet", "https://example.com/auth")
        return answer.action

    @server.tool
    async def chatty(ctx: Context) -> str:
        for level in ("debug", "info", "warning"):
            await ctx.log(level, f"{level} message")
        return "ok"

    return server


async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "elicitation/create":
        return {"action": "accept", "content": {"name": "Ada"}}
    if method == "sampling/createMessage":
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "autumn moon"},
            "model": "test-model",
        }
    if method == "roots/list":
        return {"roots": [{"uri": "file:///work", "name": "work"}]}
    raise AssertionError(method)


async def run_mrtr(peer: RawPeer, name: str, capabilities: dict[str, Any]) -> dict[str, Any]:
    """The client's MRTR loop: answer input requests, echo requestState, retry (fresh id)."""
    params: dict[str, Any] = {"name": name, "arguments": {}}
    for _ in range(10):
        result = await peer.modern("tools/call", params, capabilities=capabilities)
        if result.get("resultType") != "input_required":
            return result
        responses = {
            key: await answer(req["method"], req.get("params", {}))
            for key, req in result["inputRequests"].items()
        }
        params = {
            "name": name,
            "arguments": {},
            "inputResponses": responses,
            "requestState": result["requestState"],
        }
    raise AssertionError("too many rounds")


async def test_modern_requests_use_input_required_rounds() -> None:
    async with connect(build()) as peer:
        first = await peer.modern("tools/call", {"name": "interview"}, capabilities=ALL_CAPS)
        assert first["resultType"] == "input_required"
        ((_key, request),) = first["inputRequests"].items()
        assert request["method"] == "elicitation/create"
        assert request["params"]["requestedSchema"]["properties"]["name"]["default"] == "anon"
        assert isinstance(first["requestState"], str)
        result = await run_mrtr(peer, "interview", ALL_CAPS)
    assert result["content"][0]["text"] == "accept:Ada|autumn moon|file:///work"
    assert peer.requests_seen == []  # never a server→client request in 2026


async def test_tampered_request_state_is_rejected_and_the_server_keeps_serving() -> None:
    async with connect(build()) as peer:
        first = await peer.modern("tools/call", {"name": "interview"}, capabilities=ALL_CAPS)
        state = first["requestState"]
        forged = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
        with pytest.raises(InvalidParams):
            await peer.modern(
                "tools/call",
                {"name": "interview", "requestState": forged, "inputResponses": {}},
                capabilities=ALL_CAPS,
            )
        # replaying a valid state onto another request is refused too
        with pytest.raises(InvalidParams):
            await peer.modern(
                "tools/call",
                {"name": "visit", "requestState": state, "inputResponses": {}},
                capabilities=ALL_CAPS,
            )
        assert (await peer.modern("server/discover"))["resultType"] == "complete"


async def test_expired_request_state_is_rejected() -> None:
    server = build()
    server.state_sealer = type(server.state_sealer)(None, ttl_seconds=1e-6)
    async with connect(server) as peer:
        first = await peer.modern("tools/call", {"name": "interview"}, capabilities=ALL_CAPS)
        with pytest.raises(InvalidParams, match="expired"):
            await peer.modern(
                "tools/call",
                {"name": "interview", "requestState": first["requestState"]},
                capabilities=ALL_CAPS,
            )


async def test_logging_in_2026_only_when_the_request_asks() -> None:
    async with connect(build()) as peer:
        await peer.modern("tools/call", {"name": "chatty"})
        assert peer.of("notifications/message") == []
        await peer.modern(
            "tools/call",
            {"name": "chatty", "_meta": {"io.modelcontextprotocol/logLevel": "warning"}},
        )
        logs = await peer.wait_for("notifications/message", 1)
    assert [entry["level"] for entry in logs] == ["warning"]


@pytest.mark.no_schema_check  # the test peer sends an invalid level on purpose
async def test_bad_log_level_is_invalid_params() -> None:
    async with connect(build()) as peer:
        await peer.initialize()
        with pytest.raises(InvalidParams):
            await peer.legacy("logging/setLevel", {"level": "loud"})
        with pytest.raises(InvalidParams):
            await peer.modern("tools/list", {"_meta": {"io.modelcontextprotocol/logLevel": "loud"}})

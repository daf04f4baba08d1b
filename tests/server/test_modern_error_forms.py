"""Error codes 2026-07-28 forbids never reach a 2026 client, whatever the user's code raises.

-32002 (resource not found) and -32042 (URL elicitation required) are legacy codes; raised from
a tool, a resource or a template in a 2026 request they take their 2026 forms: -32602 with
``data.uri``, and an input-required round asking for each URL elicitation. Legacy sessions keep
the legacy codes. (What mcpkit's client makes of both forms, and the nested-form refusal, run
over every transport in tests/interaction/test_kit_tools.py and test_kit_questions.py.)
"""

from __future__ import annotations

import pytest
from _server_harness import connect

from mcpkit.protocol._errors import InvalidParams, InvalidRequest, ResourceNotFound
from mcpkit.protocol._errors import URLElicitationRequired as URLRequired
from mcpkit.server import Context, Server

URL_CAPS = {"elicitation": {"url": {}}}


def _server() -> Server:
    server = Server("forms")

    @server.tool
    def lookup(uri: str) -> str:
        raise ResourceNotFound(f"no such thing: {uri}", {"uri": uri})

    @server.tool
    def connect_account() -> str:
        raise URLRequired(
            "Sign in to the calendar first",
            {
                "elicitations": [
                    {
                        "mode": "url",
                        "message": "Sign in to the calendar",
                        "url": "https://calendar.example.com/connect",
                        "elicitationId": "cal-1",
                    }
                ]
            },
        )

    @server.resource("docs://{name}")
    def doc(name: str) -> str:
        raise ResourceNotFound(f"no doc {name}", {"uri": f"docs://{name}"})

    return server


async def test_resource_not_found_from_user_code_is_32602_with_uri_in_2026() -> None:
    async with connect(_server()) as peer:
        with pytest.raises(InvalidParams) as from_template:
            await peer.modern("resources/read", {"uri": "docs://missing"})
        with pytest.raises(InvalidParams) as from_tool:
            await peer.modern("tools/call", {"name": "lookup", "arguments": {"uri": "x://y"}})
    assert from_template.value.code == -32602
    assert from_template.value.data == {"uri": "docs://missing"}
    assert from_tool.value.data == {"uri": "x://y"}


async def test_resource_not_found_keeps_32002_in_a_legacy_session() -> None:
    async with connect(_server()) as peer:
        await peer.initialize()
        with pytest.raises(ResourceNotFound) as raised:
            await peer.legacy("resources/read", {"uri": "docs://missing"})
    assert raised.value.code == -32002


async def test_url_elicitation_required_becomes_an_input_required_round_in_2026() -> None:
    async with connect(_server()) as peer:
        result = await peer.modern(
            "tools/call", {"name": "connect_account", "arguments": {}}, capabilities=URL_CAPS
        )
    assert result["resultType"] == "input_required"
    assert result["inputRequests"] == {
        "cal-1": {
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "message": "Sign in to the calendar",
                "url": "https://calendar.example.com/connect",
            },
        }
    }
    assert isinstance(result["requestState"], str)


async def test_url_elicitation_required_keeps_32042_in_a_legacy_session() -> None:
    async with connect(_server()) as peer:
        await peer.initialize(URL_CAPS)
        with pytest.raises(URLRequired) as raised:
            await peer.legacy("tools/call", {"name": "connect_account", "arguments": {}})
    assert raised.value.code == -32042


async def test_outside_mrtr_methods_it_is_a_clear_invalid_request() -> None:
    server = _server()

    @server.completion(resource="docs://{name}", argument="name")
    def complete(value: str, arguments: dict[str, str]) -> list[str]:
        raise URLRequired("Sign in first", {"elicitations": []})

    async with connect(server) as peer:
        with pytest.raises(InvalidRequest) as raised:
            await peer.modern(
                "completion/complete",
                {
                    "ref": {"type": "ref/resource", "uri": "docs://{name}"},
                    "argument": {"name": "name", "value": "a"},
                },
            )
    assert "input-required round" in raised.value.message


async def test_no_request_but_ping_goes_out_before_notifications_initialized() -> None:
    """A tool called in the window between the initialize result and the client's
    notifications/initialized cannot ask the client anything yet: its author is told why."""
    form_caps = {"elicitation": {"form": {}}}
    server = Server("early")

    @server.tool
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Sure?", {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        )
        return str(answer.action)

    async with connect(server) as peer:
        result = await peer.session.send_request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": form_caps,
                "clientInfo": {"name": "early-bird", "version": "1"},
            },
        )
        peer.session.protocol_version = result["protocolVersion"]
        early = await peer.legacy("tools/call", {"name": "confirm", "arguments": {}})
        assert peer.requests_seen == []
        assert early["isError"] is True
        assert "before the client sent notifications/initialized" in early["content"][0]["text"]

        async def answer(method: str, params: dict[str, object]) -> dict[str, object]:
            return {"action": "accept", "content": {"ok": True}}

    async with connect(server, answer) as peer:
        await peer.initialize(form_caps)
        later = await peer.legacy("tools/call", {"name": "confirm", "arguments": {}})
        assert peer.requests_seen == ["elicitation/create"]
    assert later["content"][0]["text"] == "accept"

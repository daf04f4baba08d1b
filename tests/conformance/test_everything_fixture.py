"""The conformance fixture answers what the suite expects (checked in-process, both eras).

The suite itself runs against it over HTTP in scripts/test; these tests pin the fixture's
shapes so a regression shows up here with a readable diff first.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).parent))

from _server_harness import connect
from everything_server import JSON_SCHEMA_2020_12, server

from mcpkit.protocol._errors import InvalidParams, MissingRequiredClientCapability

CAPS = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}


async def test_lists_and_first_resource() -> None:
    async with connect(server) as peer:
        tools = {t["name"]: t for t in (await peer.modern("tools/list"))["tools"]}
        resources = (await peer.modern("resources/list"))["resources"]
    assert all(t.get("description") and t.get("inputSchema") for t in tools.values())
    assert tools["json_schema_2020_12_tool"]["inputSchema"] == JSON_SCHEMA_2020_12
    assert tools["test_x_mcp_header"]["inputSchema"]["properties"]["region"]["x-mcp-header"] == (
        "Region"
    )
    assert resources[0]["uri"] == "test://static-text"


async def test_mrtr_multi_round_changes_state() -> None:
    async with connect(server) as peer:
        params: dict[str, Any] = {"name": "test_input_required_result_multi_round", "arguments": {}}
        first = await peer.modern("tools/call", params, capabilities=CAPS)
        assert list(first["inputRequests"]) == ["step1"]
        second = await peer.modern(
            "tools/call",
            {
                **params,
                "inputResponses": {"step1": {"action": "accept", "content": {"name": "Alice"}}},
                "requestState": first["requestState"],
            },
            capabilities=CAPS,
        )
        assert list(second["inputRequests"]) == ["step2"]
        assert second["requestState"] != first["requestState"]
        done = await peer.modern(
            "tools/call",
            {
                **params,
                "inputResponses": {"step2": {"action": "accept", "content": {"color": "blue"}}},
                "requestState": second["requestState"],
            },
            capabilities=CAPS,
        )
    assert done["content"][0]["text"] == "Alice likes blue"


async def test_mrtr_multiple_inputs_and_capability_check() -> None:
    async with connect(server) as peer:
        many = await peer.modern(
            "tools/call", {"name": "test_input_required_result_multiple_inputs"}, capabilities=CAPS
        )
        limited = await peer.modern(
            "tools/call",
            {"name": "test_input_required_result_capabilities"},
            capabilities={"sampling": {}},
        )
    methods = {r["method"] for r in many["inputRequests"].values()}
    assert methods == {"elicitation/create", "sampling/createMessage", "roots/list"}
    assert set(many["inputRequests"]) == {"user_name", "greeting", "client_roots"}
    assert [r["method"] for r in limited["inputRequests"].values()] == ["sampling/createMessage"]


@pytest.mark.no_schema_check  # the peer sends an invalid inputResponses value on purpose
async def test_mrtr_first_round_answers_extra_keys_and_bad_answers() -> None:
    async with connect(server) as peer:
        name = "test_input_required_result_elicitation"
        extra = await peer.modern(
            "tools/call",
            {
                "name": name,
                "inputResponses": {
                    "user_name": {"action": "accept", "content": {"name": "Alice"}},
                    "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}},
                },
            },
            capabilities=CAPS,
        )
        wrong = await peer.modern(
            "tools/call",
            {"name": name, "inputResponses": {"wrong_key": {"action": "accept"}}},
            capabilities=CAPS,
        )
        with pytest.raises(InvalidParams):
            await peer.modern(
                "tools/call",
                {"name": name, "inputResponses": {"user_name": 12345}},
                capabilities=CAPS,
            )
    assert extra["content"][0]["text"] == "Hello, Alice!"
    assert wrong["resultType"] == "input_required"


async def test_prompt_mrtr_and_missing_capability() -> None:
    async with connect(server) as peer:
        first = await peer.modern(
            "prompts/get", {"name": "test_input_required_result_prompt"}, capabilities=CAPS
        )
        assert list(first["inputRequests"]) == ["user_context"]
        done = await peer.modern(
            "prompts/get",
            {
                "name": "test_input_required_result_prompt",
                "inputResponses": {
                    "user_context": {"action": "accept", "content": {"context": "test context"}}
                },
                "requestState": first["requestState"],
            },
            capabilities=CAPS,
        )
        with pytest.raises(MissingRequiredClientCapability) as info:
            await peer.modern("tools/call", {"name": "test_missing_capability"})
    assert done["messages"][0]["content"]["text"] == "Use this context: test context"
    assert info.value.required_capabilities == {"sampling": {}}


@pytest.mark.parametrize(
    ("tool", "kinds"),
    [
        ("test_simple_text", ["text"]),
        ("test_image_content", ["image"]),
        ("test_audio_content", ["audio"]),
        ("test_embedded_resource", ["resource"]),
        ("test_multiple_content_types", ["text", "image", "resource"]),
    ],
)
async def test_content_tools(tool: str, kinds: list[str]) -> None:
    async with connect(server) as peer:
        await peer.initialize()
        result = await peer.legacy("tools/call", {"name": tool})
    assert [block["type"] for block in result["content"]] == kinds
    assert "structuredContent" not in result

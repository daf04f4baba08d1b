"""Resources, templates, files, subscriptions, prompts and completion over every transport and
both eras (``kit_connect``: 8 runs each; ``stream_connect`` where a notification must arrive
while the client listens). Moved here from the in-process ``tests/server`` tests; the server
is :mod:`kit.feature_server`.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from mcpkit.protocol._errors import InvalidParams, ResourceNotFound
from mcpkit.types._notifications import ResourceUpdatedNotification

WAIT_S = 30.0

Connect = Callable[..., Any]


async def test_resources_and_templates_are_listed_and_read(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        resources = await client.list_resources()
        templates = [msgspec.to_builtins(t) for t in await client.list_resource_templates()]
        text = await client.read_resource("test://static-text")
        binary = await client.read_resource("test://static-binary")
        item = await client.read_resource("test://template/42/data")
        many = await client.read_resource("test://many")
    assert {r.uri for r in resources if r.uri.startswith("test://")} == {
        "test://static-text",
        "test://static-binary",
        "test://many",
    }
    assert [t for t in templates if t["uriTemplate"].startswith("test://")] == [
        {"uriTemplate": "test://template/{id}/data", "name": "item", "mimeType": "application/json"}
    ]
    assert [msgspec.to_builtins(c) for c in text.contents] == [
        {"uri": "test://static-text", "mimeType": "text/plain", "text": "This is static."}
    ]
    assert base64.b64decode(binary.contents[0].blob) == b"\x89PNG\r\n\x1a\n"
    assert item.contents[0].text == '{"id":"42"}'
    assert [c.uri for c in many.contents] == ["test://many/a", "test://many/b"]


async def test_not_found_is_32002_in_legacy_and_32602_with_the_uri_in_2026(
    kit_connect: Connect,
) -> None:
    async with kit_connect() as client:
        with pytest.raises(ResourceNotFound) as unknown:
            await client.read_resource("test://nope")
        with pytest.raises(ResourceNotFound) as lookup_error:
            await client.read_resource("test://template/missing/data")
        expected_code = -32602 if client.era == "modern" else -32002
    assert unknown.value.code == lookup_error.value.code == expected_code
    assert unknown.value.data == {"uri": "test://nope"}
    assert lookup_error.value.data == {"uri": "test://template/missing/data"}


async def test_file_resources_refuse_traversal(kit_connect: Connect) -> None:
    """``add_directory`` serves tests/kit/files as file:///docs/; ``..`` (plain or
    percent-encoded) must not reach the server script next to it."""
    async with kit_connect() as client:
        guide = await client.read_resource("file:///docs/api-guide.md")
        for sneaky in (
            "file:///docs/../feature_server.py",
            "file:///docs/%2e%2e/feature_server.py",
        ):
            with pytest.raises(InvalidParams) as refused:
                await client.read_resource(sneaky)
            assert refused.value.code == -32602, sneaky
    assert guide.contents[0].text == "# API guide\n"
    assert guide.contents[0].mime_type == "text/markdown"


async def test_a_subscription_gets_only_its_resources_updates(stream_connect: Connect) -> None:
    async with (
        stream_connect() as client,
        client.listen(resource_uris=["test://static-text"]) as updates,
    ):
        events = aiter(updates)
        async with asyncio.timeout(WAIT_S):
            await anext(events)  # the acknowledgement
            await client.call_tool("touch", {"uri": "test://static-binary"})  # not subscribed
            await client.call_tool("touch", {"uri": "test://static-text"})
            event = await anext(events)
    assert isinstance(event, ResourceUpdatedNotification)
    assert event.params.uri == "test://static-text"


async def test_prompts_with_arguments_and_content(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        prompts = {p.name: msgspec.to_builtins(p) for p in await client.list_prompts()}
        got = await client.get_prompt("code_review", {"language": "python", "code": "x=1"})
        image = await client.get_prompt("with_image")
        with pytest.raises(InvalidParams, match="missing required argument"):
            await client.get_prompt("code_review", {"code": "x"})
        with pytest.raises(InvalidParams, match="Unknown prompt"):
            await client.get_prompt("nope")
    assert prompts["code_review"]["title"] == "Code review"
    assert prompts["code_review"]["arguments"] == [
        {"name": "language", "description": "the programming language", "required": True},
        {"name": "code", "description": "the code to review", "required": True},
    ]
    assert got.messages[0].content.text == "Review this python code:\nx=1"
    assert got.messages[1].role == "assistant"
    assert got.messages[1].content.text == "I will look for bugs."
    assert msgspec.to_builtins(image.messages[0].content) == {
        "type": "image",
        "data": base64.b64encode(b"\x89PNG").decode(),
        "mimeType": "image/png",
    }


async def test_completion_of_prompt_and_template_arguments(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        languages = await client.complete(
            {"type": "ref/prompt", "name": "code_review"}, "language", "p"
        )
        none = await client.complete(
            {"type": "ref/resource", "uri": "test://template/{id}/data"}, "id", ""
        )
    assert languages.completion.values == ["python", "pascal"]
    assert none.completion.values == []

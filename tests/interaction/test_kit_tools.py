"""Tools over every transport and both eras: the server's identity, schemas made from
signatures, structured output, the ways a tool fails, content blocks, middleware, and tools
added and removed while clients listen.

Moved here from the in-process ``tests/server`` tests, so each runs 8 times (``kit_connect``:
memory, stdio, ``http-json``, ``http-sse`` by ``legacy``, ``2026-07-28``) or 6 times where a
notification must arrive during a request (``stream_connect``). The server is
:mod:`kit.feature_server`.
"""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from kit.feature_server import INSTRUCTIONS, PAGE_SIZE, SERVER_NAME, SERVER_VERSION
from mcpkit.protocol._errors import InvalidParams, ResourceNotFound
from mcpkit.types._notifications import ToolListChangedNotification

WAIT_S = 30.0
VERSION_OF_ERA = {"legacy": "2025-11-25", "modern": "2026-07-28"}

Connect = Callable[..., Any]


def _text(result: Any, index: int = 0) -> str:
    text: str = result.content[index].text
    return text


async def test_the_server_says_who_it_is(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        assert client.protocol_version == VERSION_OF_ERA[client.era]
        assert client.server_info["name"] == SERVER_NAME
        assert client.server_info["version"] == SERVER_VERSION
        assert client.instructions == INSTRUCTIONS
        assert client.server_capabilities["tools"] == {"listChanged": True}


async def test_auto_mode_picks_the_newest_era(auto_connect: Connect) -> None:
    async with auto_connect() as client:
        assert (client.era, client.protocol_version) == ("modern", "2026-07-28")
        result = await client.call_tool("add", {"a": 2, "b": 40})
        assert result.structured_content == {"result": 42}
        with pytest.raises(InvalidParams, match="Unknown tool: missing_tool"):
            await client.call_tool("missing_tool", {})


async def test_the_tool_schema_comes_from_the_signature(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        tools = {t.name: msgspec.to_builtins(t) for t in await client.list_tools()}
    add = tools["add"]
    assert add["title"] == "Adder"
    assert add["description"] == "Add two numbers."
    assert add["annotations"] == {"readOnlyHint": True}
    props = add["inputSchema"]["properties"]
    assert props["a"] == {"type": "integer", "description": "the first addend"}
    assert props["b"]["description"] == "the second addend"
    assert props["b"]["default"] == 1
    assert add["inputSchema"]["required"] == ["a"]
    assert sorted(tools["find"]["inputSchema"]["properties"]["kind"]["enum"]) == ["shirt", "shoe"]
    assert tools["find"]["outputSchema"]["properties"]["result"]["type"] == "array"


async def test_structured_output_of_numbers_and_dataclasses(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        added = await client.call_tool("add", {"a": 2, "b": 3})
        found = await client.call_tool("find", {"kind": "shoe"})
    assert added.structured_content == {"result": 5}
    assert [msgspec.to_builtins(block) for block in added.content] == [
        {"type": "text", "text": "5"}
    ]
    assert not added.is_error
    assert found.structured_content == {"result": [{"name": "shoe one", "price": 899.0}]}


async def test_tools_list_pages_with_opaque_cursors(kit_connect: Connect) -> None:
    """Page by page (the raw request, as a client that pages itself): every page but the last
    is full, the pages hold every tool once, and a made-up cursor is -32602."""
    async with kit_connect() as client:
        pages: list[list[str]] = []
        cursor: str | None = None
        while True:
            page = await client._request("tools/list", {"cursor": cursor} if cursor else {})
            pages.append([tool["name"] for tool in page["tools"]])
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        everything = [tool.name for tool in await client.list_tools()]
        with pytest.raises(InvalidParams, match="cursor") as refused:
            await client._request("tools/list", {"cursor": "not-a-cursor"})
    assert refused.value.code == -32602
    assert [len(page) for page in pages[:-1]] == [PAGE_SIZE] * (len(pages) - 1)
    assert 1 <= len(pages[-1]) <= PAGE_SIZE
    assert [name for page in pages for name in page] == everything
    assert len(everything) == len(set(everything)) > 2 * PAGE_SIZE
    assert everything[:3] == ["echo", "add", "forecast"]  # in the order they were registered


async def test_bad_arguments_are_tool_errors_naming_the_field(kit_connect: Connect) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"a": "two"}, "`a`"),
        ({}, "`a`"),
        ({"a": 1, "zzz": 2}, "zzz"),
    ]
    async with kit_connect() as client:
        for arguments, needle in cases:
            result = await client.call_tool("add", arguments)
            assert result.is_error is True, arguments
            assert needle in _text(result), (arguments, _text(result))
            again = await client.call_tool("add", {"a": 1})
            assert again.structured_content == {"result": 2}  # the server keeps serving


async def test_an_unknown_tool_is_a_protocol_error(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        with pytest.raises(InvalidParams, match="Unknown tool: nope") as raised:
            await client.call_tool("nope", {})
        assert raised.value.code == -32602
        assert _text(await client.call_tool("echo", {"text": "after"})) == "after"


async def test_exceptions_timeouts_and_tool_errors_become_is_error_results(
    kit_connect: Connect,
) -> None:
    async with kit_connect() as client:
        boom = await client.call_tool("boom", {})
        refused = await client.call_tool("fail", {"reason": "quota exceeded: try again tomorrow"})
        forever = await client.call_tool("forever", {})
        custom = await client.call_tool("custom", {})
    assert boom.is_error and "the database is down" in _text(boom)
    assert refused.is_error and _text(refused) == "quota exceeded: try again tomorrow"
    assert forever.is_error and "timed out" in _text(forever)
    assert custom.is_error is True
    assert [msgspec.to_builtins(block) for block in custom.content] == [
        {"type": "text", "text": "partial"}
    ]
    assert custom.structured_content is None


async def test_content_blocks_keep_their_type_and_data(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        result = await client.call_tool("picture", {})
    blocks = [msgspec.to_builtins(block) for block in result.content]
    assert blocks == [
        {"type": "text", "text": "a pixel"},
        {
            "type": "image",
            "data": base64.b64encode(b"\x89PNG\r\n").decode(),
            "mimeType": "image/png",
        },
    ]


async def test_the_client_sees_one_typed_not_found_error_in_both_eras(
    kit_connect: Connect,
) -> None:
    """A tool or template raising ResourceNotFound: -32002 in a legacy session, -32602 with
    ``data.uri`` in 2026-07-28; mcpkit's client raises ResourceNotFound either way."""
    async with kit_connect() as client:
        with pytest.raises(ResourceNotFound) as from_tool:
            await client.call_tool("lookup", {"uri": "x://y"})
        with pytest.raises(ResourceNotFound) as from_template:
            await client.read_resource("missing://gone")
        expected_code = -32602 if client.era == "modern" else -32002
    assert from_tool.value.data == {"uri": "x://y"}
    assert from_tool.value.code == expected_code
    assert from_template.value.data == {"uri": "missing://gone"}
    assert from_template.value.code == expected_code


async def test_middleware_reads_the_method_and_version_of_each_request(
    kit_connect: Connect,
) -> None:
    """docs/server.md's middleware example reads ``info.method`` and ``info.protocol_version``:
    a legacy session's and a stateless 2026 request's alike, on every transport."""
    label = uuid.uuid4().hex
    async with kit_connect() as client:
        result = await client.call_tool("seen_by_middleware", {"label": label})
        era = client.era
    assert result.structured_content == {
        "result": ["tools/call", VERSION_OF_ERA[era], era],
    }


async def test_tools_added_and_removed_announce_list_changed(stream_connect: Connect) -> None:
    """``grow`` is a sync tool (a worker thread, no event loop there) that registers a tool;
    ``shrink`` removes it; a listening client hears both changes and lists accordingly."""
    name = f"grown_{uuid.uuid4().hex[:8]}"
    async with stream_connect() as client, client.listen(tools=True) as changes:
        events = aiter(changes)
        async with asyncio.timeout(WAIT_S):
            await anext(events)  # the acknowledgement
            assert _text(await client.call_tool("grow", {"name": name})) == "grew"
            assert isinstance(await anext(events), ToolListChangedNotification)
            assert name in {t.name for t in await client.list_tools()}
            assert _text(await client.call_tool(name, {})) == "grown"
            assert _text(await client.call_tool("shrink", {"name": name})) == "shrank"
            assert isinstance(await anext(events), ToolListChangedNotification)
            assert name not in {t.name for t in await client.list_tools()}

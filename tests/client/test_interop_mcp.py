"""The client against the official SDK's server (mcp 2.3.0) over real stdio, in both eras."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from mcpkit.client import Client, QuestionContext, UnsupportedInEra
from mcpkit.protocol._errors import (
    MissingRequiredClientCapability,
    MissingServerCapability,
    RequestTimeout,
    ResourceNotFound,
)
from mcpkit.types._notifications import ResourceUpdatedNotification, ToolListChangedNotification
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification
from mcpkit.types._tools import CallToolResult

pytestmark = pytest.mark.peers

ERAS = [("auto", "modern", "2026-07-28"), ("legacy", "legacy", "2025-11-25")]


def text_of(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


class Recorder:
    """Handlers that answer the server's questions and remember what they were asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any, QuestionContext]] = []

    async def elicit(self, params: Any, ctx: QuestionContext) -> dict[str, Any]:
        self.asked.append(("elicit", params, ctx))
        return {"action": "accept", "content": {"name": "Bob"}}  # age and admin left out

    async def sample(self, params: Any, ctx: QuestionContext) -> dict[str, Any]:
        self.asked.append(("sample", params, ctx))
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "Paris"},
            "model": "test-model",
        }


@pytest.mark.parametrize(("mode", "era", "version"), ERAS)
async def test_tools_resources_prompts_both_eras(
    everything: list[str], mode: str, era: str, version: str
) -> None:
    async with Client(everything, mode=mode) as client:  # type: ignore[arg-type]
        assert client.era == era
        assert client.protocol_version == version
        assert client.server_info["name"] == "everything"
        assert client.server_info["version"] == "9.9.9"

        tools = {tool.name: tool for tool in await client.list_tools()}
        assert {"add", "fail", "whoami", "slow"} <= set(tools)
        assert tools["add"].input_schema["required"] == ["a", "b"]

        result = await client.call_tool("add", {"a": 2, "b": 40})
        assert result.structured_content == {"result": 42}
        assert text_of(result) == "42"
        assert not result.is_error

        failed = await client.call_tool("fail")
        assert failed.is_error is True  # a tool error is a result, not an exception

        read = await client.read_resource("test://static")
        assert read.contents[0].text == "static text"
        templated = await client.read_resource("test://item/7")
        assert templated.contents[0].text == "item 7"
        with pytest.raises(ResourceNotFound) as missing:
            await client.read_resource("test://nope")
        assert missing.value.remote
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates] == ["test://item/{item_id}"]
        assert [r.uri for r in await client.list_resources()] == ["test://static"]

        prompts = await client.list_prompts()
        assert [p.name for p in prompts] == ["greet"]
        prompt = await client.get_prompt("greet", {"name": "Ada"})
        assert prompt.messages[0].content.text == "Hello, Ada!"  # type: ignore[union-attr]

        completed = await client.complete({"type": "ref/prompt", "name": "greet"}, "name", "A")
        assert completed.completion.values == ["Ada", "Alan"]

        await client.ping()


@pytest.mark.parametrize(("mode", "era", "version"), ERAS)
async def test_server_questions_both_eras(
    everything: list[str], mode: str, era: str, version: str
) -> None:
    recorder = Recorder()
    async with Client(
        everything,
        mode=mode,  # type: ignore[arg-type]
        elicitation_handler=recorder.elicit,
        sampling_handler=recorder.sample,
        roots=[{"uri": "file:///work/project", "name": "project"}],
    ) as client:
        # Elicitation: defaults from the schema fill what the handler left out.
        who = await client.call_tool("whoami")
        assert text_of(who) == "Bob/36/False"
        kind, params, ctx = recorder.asked[0]
        assert kind == "elicit"
        assert params.message == "Who are you?"
        assert ctx.defaults == {"name": "Ada", "age": 36, "admin": False}
        assert ctx.era == era
        assert ctx.asked_during == ("tools/call" if era == "modern" else None)

        sampled = await client.call_tool("sample", {"prompt": "Capital of France?"})
        assert text_of(sampled) == "test-model: Paris"
        assert recorder.asked[1][1].max_tokens == 50

        roots = await client.call_tool("roots")
        assert roots.structured_content == {"result": ["file:///work/project"]}


@pytest.mark.parametrize(("mode", "era", "version"), ERAS)
async def test_questions_need_declared_capabilities(
    everything: list[str], mode: str, era: str, version: str
) -> None:
    """A client without handlers declares nothing; the server refuses with -32021 and the
    client raises the typed error naming the missing capability."""
    async with Client(everything, mode=mode) as client:  # type: ignore[arg-type]
        assert client.client_capabilities == {}
        with pytest.raises(MissingRequiredClientCapability) as refused:
            await client.call_tool("roots")
        assert refused.value.remote


@pytest.mark.parametrize(("mode", "era", "version"), ERAS)
async def test_progress_cancellation_timeout(
    everything: list[str], mode: str, era: str, version: str
) -> None:
    async with Client(everything, mode=mode) as client:  # type: ignore[arg-type]
        seen: list[tuple[float, float | None, str | None]] = []
        done = await client.call_tool(
            "progress",
            {"steps": 3},
            progress_callback=lambda p, t, m: seen.append((p, t, m)),
        )
        assert text_of(done) == "done"
        assert seen == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]

        # Cancelling the awaiting task cancels the call on the server.
        call = asyncio.create_task(client.call_tool("slow", {"seconds": 30}))
        await asyncio.sleep(0.3)  # let the request reach the server (no event exists for it)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        confirmed = await client.call_tool("was_cancelled", {"wait": 10})
        assert confirmed.structured_content == {"result": True}

        # A per-call timeout is a local error, never a remote one.
        with pytest.raises(RequestTimeout) as timed_out:
            await client.call_tool("slow", {"seconds": 30}, timeout=0.3)
        assert timed_out.value.method == "tools/call"
        assert not hasattr(timed_out.value, "remote")


async def test_logging_modern_is_per_request(everything: list[str]) -> None:
    lines: list[Any] = []
    async with Client(everything, logging_handler=lines.append) as client:
        assert client.era == "modern"
        await client.call_tool("chatty")
        assert lines == []  # without logLevel in _meta the server must not log
        await client.set_logging_level("info")
        await client.call_tool("chatty")
        assert [(line.level, line.data) for line in lines] == [
            ("info", "info line"),
            ("warning", "warning line"),
        ]


async def test_logging_legacy(everything: list[str], caplog: pytest.LogCaptureFixture) -> None:
    async with Client(everything, mode="legacy") as client:
        # This server does not declare ``logging``: setLevel is refused locally.
        with pytest.raises(MissingServerCapability):
            await client.set_logging_level("debug")
        with caplog.at_level(logging.INFO, logger="mcpkit.client.server"):
            await client.call_tool("chatty")
        assert "warning line" in caplog.text


async def test_listen_modern_and_cache(everything: list[str]) -> None:
    resyncs: list[int] = []
    async with Client(everything) as client:
        assert client.era == "modern"
        with pytest.raises(UnsupportedInEra):
            await client.subscribe_resource("test://static")
        before = {tool.name for tool in await client.list_tools()}
        async with client.listen(
            tools=True, resource_uris=["test://static"], on_resync=lambda: resyncs.append(1)
        ) as sub:
            ack = await anext(sub)
            assert isinstance(ack, SubscriptionsAcknowledgedNotification)
            assert ack.params.notifications.tools_list_changed is True
            assert sub.agreed == {
                "toolsListChanged": True,
                "resourceSubscriptions": ["test://static"],
            }
            await client.call_tool("change_tools")
            changed = await asyncio.wait_for(anext(sub), 10)
            assert isinstance(changed, ToolListChangedNotification)
            await client.call_tool("touch", {"uri": "test://static"})
            updated = await asyncio.wait_for(anext(sub), 10)
            assert isinstance(updated, ResourceUpdatedNotification)
            assert updated.params.uri == "test://static"
        after = {tool.name for tool in await client.list_tools()}
        assert len(after - before) == 1
        assert resyncs == []


async def test_listen_legacy(everything: list[str]) -> None:
    async with Client(everything, mode="legacy") as client:
        async with client.listen(tools=True) as sub:
            ack = await anext(sub)
            assert isinstance(ack, SubscriptionsAcknowledgedNotification)
            await client.call_tool("change_tools")
            changed = await asyncio.wait_for(anext(sub), 10)
            assert isinstance(changed, ToolListChangedNotification)
        assert len(await client.list_tools()) > 0


async def test_saved_discover_result_skips_the_probe(everything: list[str]) -> None:
    async with Client(everything) as first:
        saved = first.discover_result
        assert saved is not None
        assert saved["supportedVersions"] == ["2026-07-28"]
    sent: list[str] = []

    from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer

    def observe(message: Any, version: str | None, method: str | None) -> None:
        sent.append(getattr(message, "method", ""))

    add_outbound_observer(observe)
    try:
        async with Client(everything, discover_result=json.loads(json.dumps(saved))) as second:
            assert second.era == "modern"
            assert (await second.call_tool("add", {"a": 1, "b": 1})).structured_content == {
                "result": 2
            }
    finally:
        remove_outbound_observer(observe)
    assert "server/discover" not in sent
    assert sent[0] == "tools/list"  # fetched to know the tool's outputSchema

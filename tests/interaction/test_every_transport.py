"""Server features over every transport and both eras, from one parametrised fixture.

Each test runs 8 times: memory, a real stdio subprocess, and a real loopback HTTP server
answering in JSON or in SSE, each in the legacy era (2025-11-25 handshake) and in 2026-07-28.
Features that need server messages during a request (progress, logging, change notifications,
cancellation observed through progress) run 6 times: not over ``http-json``, whose POSTs get a
single JSON answer. Questions to the client run 7 times (``ask_connect``): ``http-json`` carries
them in 2026-07-28, where they are ``input_required`` results. More feature tests over the same
fixtures: ``test_kit_tools.py``, ``test_kit_resources_prompts.py``, ``test_kit_questions.py``.
The server is :mod:`kit.feature_server`; ``kit_connect`` / ``stream_connect`` / ``ask_connect``
(``conftest.py``) open the client.
Waits are bounded (``asyncio.timeout``) and driven by events the client receives, never sleeps.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from kit.conformance import check_core_rules
from mcpkit.client import Client
from mcpkit.errors import UsageError

WAIT_S = 30.0

Connect = Callable[..., Any]


async def test_conformance_kit(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        await check_core_rules(client)


async def test_tools_text_structured_and_errors(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        echoed = await client.call_tool("echo", {"text": "héllo"})
        assert [block.text for block in echoed.content] == ["héllo"]
        assert not echoed.is_error

        forecast = await client.call_tool("forecast", {"city": "Oslo"})
        assert forecast.structured_content == {"city": "Oslo", "degrees": 21}

        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert added.structured_content == {"result": 5}
        assert added.content[0].text == "5"

        failed = await client.call_tool("fail", {"reason": "no luck"})
        assert failed.is_error and "no luck" in failed.content[0].text

        bad = await client.call_tool("add", {"a": "two", "b": 3}, output_validation="off")
        assert bad.is_error and "a" in bad.content[0].text


async def test_resources_and_templates(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        listed = {r.uri for r in await client.list_resources()}
        assert "kit://readme" in listed
        templates = {t.uri_template for t in await client.list_resource_templates()}
        assert "kit://notes/{name}" in templates
        static = await client.read_resource("kit://readme")
        assert static.contents[0].text == "read me"
        note = await client.read_resource("kit://notes/today")
        assert note.contents[0].text == "note today"


async def test_prompts_and_completion(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        prompts = {p.name: p for p in await client.list_prompts()}
        assert "review" in prompts
        got = await client.get_prompt("review", {"language": "python", "code": "x = 1"})
        assert "Review this python code: x = 1" in got.messages[0].content.text
        completed = await client.complete({"type": "ref/prompt", "name": "review"}, "language", "p")
        assert completed.completion.values == ["python", "pascal"]


async def test_logging_respects_the_level(stream_connect: Connect) -> None:
    received: list[Any] = []
    arrived = asyncio.Event()

    def on_log(message: Any) -> None:
        received.append(message)
        arrived.set()

    async with stream_connect(logging_handler=on_log) as client:
        await client.set_logging_level("info")
        await client.call_tool("chatty", {"text": "hi"})
        async with asyncio.timeout(WAIT_S):  # debug, info, warning are sent in that order
            while not any(m.data == "warning: hi" for m in received):
                arrived.clear()
                await arrived.wait()
    assert [(m.level, m.data) for m in received] == [
        ("info", "info: hi"),
        ("warning", "warning: hi"),
    ]


async def test_the_clients_log_level_option_filters_from_the_first_call(
    stream_connect: Connect,
) -> None:
    """``Client(log_level=...)`` holds in both eras: 2026 sends it in ``_meta``, a legacy session
    gets ``logging/setLevel`` right after the handshake (it used to get nothing: debug leaked)."""
    received: list[Any] = []
    arrived = asyncio.Event()

    def on_log(message: Any) -> None:
        received.append(message)
        arrived.set()

    async with stream_connect(logging_handler=on_log, log_level="warning") as client:
        await client.call_tool("chatty", {"text": "hi"})
        async with asyncio.timeout(WAIT_S):
            while not any(m.data == "warning: hi" for m in received):
                arrived.clear()
                await arrived.wait()
    assert [(m.level, m.data) for m in received] == [("warning", "warning: hi")]


def test_an_unknown_log_level_is_refused_when_the_client_is_made() -> None:
    with pytest.raises(UsageError, match="unknown log level 'loud'"):
        Client("http://127.0.0.1:1/mcp", log_level="loud")


async def test_progress_events_are_delivered_in_order(stream_connect: Connect) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async with stream_connect() as client:
        result = await client.call_tool(
            "count", {"steps": 3}, progress_callback=lambda p, t, m: seen.append((p, t, m))
        )
    assert result.content[0].text == "counted 3"
    assert seen == [(0, 3, "step 0"), (1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_cancelling_a_call_cancels_it_on_the_server(stream_connect: Connect) -> None:
    label = uuid.uuid4().hex
    started = asyncio.Event()
    async with stream_connect() as client:
        call = asyncio.create_task(
            client.call_tool("hang", {"label": label}, progress_callback=lambda *_: started.set())
        )
        async with asyncio.timeout(WAIT_S):
            await started.wait()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        async with asyncio.timeout(WAIT_S):  # the server's handler sees the cancellation
            while True:
                done = await client.call_tool("cancellations", {})
                if label in done.structured_content["result"]:
                    break


async def test_elicitation_sampling_and_roots(ask_connect: Connect) -> None:
    async def elicit(params: Any, context: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async def sample(params: Any, context: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}

    async with ask_connect(
        elicitation_handler=elicit, sampling_handler=sample, roots=[{"uri": "file:///srv"}]
    ) as client:
        result = await client.call_tool("ask", {"question": "Who?"})
    assert result.content[0].text == "Ada|hi|file:///srv", result


async def test_pagination_walks_every_page(kit_connect: Connect) -> None:
    async with kit_connect() as client:
        tools = [t.name for t in await client.list_tools()]
    assert len(tools) > 4  # more than one page of PAGE_SIZE
    assert len(tools) == len(set(tools))
    assert {f"extra_{i}" for i in range(6)} <= set(tools)

"""The client against mcpkit's own server: in-process and over real stdio, both eras."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from mcpkit.client import Client, OutputValidationError
from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types._notifications import ResourceUpdatedNotification, ToolListChangedNotification
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification

from .conftest import PEERS_DIR
from .peers.mcpkit_everything import PAGE_SIZE, build

KIT_STDIO = [sys.executable, str(PEERS_DIR / "mcpkit_everything.py")]
ALL_TOOLS = {
    "add",
    "echo",
    "shout",
    "book",
    "slow",
    "was_cancelled",
    "progress",
    "change_tools",
    "touch",
}


class Sent:
    """Records the methods of every message mcpkit sends."""

    def __init__(self) -> None:
        self.methods: list[str] = []

    def __call__(self, message: Any, version: str | None, method: str | None) -> None:
        self.methods.append(getattr(message, "method", "") or "")

    def __enter__(self) -> Sent:
        add_outbound_observer(self)
        return self

    def __exit__(self, *exc: object) -> None:
        remove_outbound_observer(self)


async def nights(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept"}  # no content: the default (2) must be filled in


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_in_memory_both_eras(mode: str) -> None:
    async with Client(build(), mode=mode, elicitation_handler=nights) as client:  # type: ignore[arg-type]
        assert client.era == ("modern" if mode == "auto" else "legacy")
        assert client.server_info["name"] == "kit-everything"
        assert client.instructions == "mcpkit's own fixture for the client tests."
        with Sent() as sent:
            tools = await client.list_tools()
        assert {t.name for t in tools} == ALL_TOOLS
        # page_size=2: every page was followed
        assert sent.methods.count("tools/list") == -(-len(ALL_TOOLS) // PAGE_SIZE)
        assert (await client.call_tool("add", {"a": 3, "b": 4})).structured_content == {"result": 7}
        booked = await client.call_tool("book", {"city": "Oslo"})
        assert booked.content[0].text == "2 nights in Oslo"  # type: ignore[union-attr]
        with pytest.raises(ResourceNotFound) as missing:
            await client.read_resource("test://missing")
        assert missing.value.data == {"uri": "test://missing"}
        assert missing.value.code == (-32602 if mode == "auto" else -32002)
        prompt = await client.get_prompt("greet", {"name": "Kit"})
        assert prompt.messages[0].content.text == "Hello, Kit!"  # type: ignore[union-attr]


async def test_modern_cache_honours_ttl_and_list_changed() -> None:
    async with Client(build()) as client:
        assert client.era == "modern"
        with Sent() as sent:
            await client.list_tools()
            first = sent.methods.count("tools/list")
            await client.list_tools()  # ttlMs=60000: every page comes from the cache
            assert sent.methods.count("tools/list") == first
        async with client.listen(tools=True) as sub:
            assert isinstance(await anext(sub), SubscriptionsAcknowledgedNotification)
            await client.call_tool("change_tools")
            assert isinstance(await asyncio.wait_for(anext(sub), 10), ToolListChangedNotification)
            with Sent() as sent:
                await client.list_tools()  # invalidated by the notification
            assert sent.methods.count("tools/list") == first


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_both_eras(mode: str) -> None:
    async with Client(KIT_STDIO, mode=mode, elicitation_handler=nights) as client:  # type: ignore[arg-type]
        assert client.era == ("modern" if mode == "auto" else "legacy")
        assert client.server_info["version"] == "2.0.0"
        seen: list[float] = []
        result = await client.call_tool(
            "progress", {"steps": 2}, progress_callback=lambda p, t, m: seen.append(p)
        )
        assert result.content[0].text == "done"  # type: ignore[union-attr]
        assert seen == [1.0, 2.0]
        booked = await client.call_tool("book", {"city": "Rome"})
        assert booked.content[0].text == "2 nights in Rome"  # type: ignore[union-attr]
        call = asyncio.create_task(client.call_tool("slow", {"seconds": 30}))
        await asyncio.sleep(0.2)  # let the request reach the server
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        confirmed = await client.call_tool("was_cancelled", {"wait": 10})
        assert confirmed.structured_content == {"result": True}
        async with client.listen(resource_uris=["test://static"]) as sub:
            assert isinstance(await anext(sub), SubscriptionsAcknowledgedNotification)
            await client.call_tool("touch", {"uri": "test://static"})
            updated = await asyncio.wait_for(anext(sub), 10)
            assert isinstance(updated, ResourceUpdatedNotification)
            assert updated.params.uri == "test://static"


async def test_invoke_checks_inputs_locally_and_outputs_strictly() -> None:
    from mcpkit.client import InputValidationError, UnknownTool

    async with Client(build()) as client:
        with Sent() as sent:
            with pytest.raises(InputValidationError) as bad:
                await client.ainvoke("add", {"a": 1, "b": "two"})
            assert bad.value.path == "$.b"
            assert str(bad.value) == "Invalid arguments: `b`: expected an integer, got a string"
            with pytest.raises(InputValidationError) as missing:
                await client.ainvoke("add", {"a": 1})
            assert missing.value.path == "$.b"
            assert "required" in str(missing.value)
        assert "tools/call" not in sent.methods
        with pytest.raises(UnknownTool):
            await client.ainvoke("nope", {})
        assert (await client.ainvoke("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
        # A tool whose output schema the server itself would break is caught client-side.
        client._tools["add"] = {
            **client._tools["add"],
            "outputSchema": {"type": "object", "properties": {"result": {"type": "string"}}},
        }
        with pytest.raises(OutputValidationError):
            await client.ainvoke("add", {"a": 1, "b": 2})


async def test_closed_by_us_is_never_mistaken_for_a_remote_error() -> None:
    from mcpkit.protocol._errors import ConnectionClosed, JSONRPCError

    client = Client(build())
    await client.connect()
    pending = asyncio.create_task(client.call_tool("slow", {"seconds": 30}))
    await asyncio.sleep(0.05)  # let the call go out
    await asyncio.create_task(client.aclose())  # closed from another task
    with pytest.raises(ConnectionClosed) as in_flight:
        await pending
    assert not isinstance(in_flight.value, JSONRPCError)
    with pytest.raises(ConnectionClosed, match="closed"):
        await client.call_tool("add", {"a": 1, "b": 1})
    assert not client.connected
    await client.aclose()  # idempotent

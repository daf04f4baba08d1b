"""mcpkit end to end over real HTTP: ``mcpkit.client.Client`` against the mcpkit server app, in
both eras (auto-detected modern, forced legacy) and against a legacy-only server (fallback)."""

from __future__ import annotations

from typing import Any

import pytest
from _asgi_harness import bound, running
from _asgi_servers import build_server

from mcpkit.client import Client
from mcpkit.protocol._errors import MissingServerCapability
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.server import Server
from mcpkit.types._jsonrpc import JSONObject, Request
from mcpkit.types._versions import LEGACY_VERSIONS


async def _name(params: Any, context: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Lin"}}


@pytest.mark.parametrize(
    ("mode", "legacy_only", "era"),
    [("auto", False, "modern"), ("legacy", False, "legacy"), ("auto", True, "legacy")],
    ids=["auto-modern", "forced-legacy", "auto-fallback"],
)
async def test_client_and_server_over_http(mode: str, legacy_only: bool, era: str) -> None:
    options: dict[str, Any] = {"supported_versions": LEGACY_VERSIONS} if legacy_only else {}
    app = build_server(**options).http_app()
    async with running(app) as url:
        async with Client(f"{url}/mcp", mode=mode, elicitation_handler=_name, timeout=30) as client:  # type: ignore[arg-type]
            assert client.era == era
            progress: list[float] = []
            stepped = await client.call_tool(
                "progress", {"steps": 3}, progress_callback=lambda p, t, m: progress.append(p)
            )
            assert stepped.content[0].text == "3 steps"  # type: ignore[union-attr]
            assert progress == [1.0, 2.0, 3.0]
            asked = await client.call_tool("ask", {})
            assert asked.content[0].text == "hello Lin"  # type: ignore[union-attr]
            region = await client.call_tool("region", {"region": "ap-south"})
            assert region.content[0].text == "ap-south/1"  # type: ignore[union-attr]
            async with client.listen(tools=True) as changes:
                ack = await bound(anext(changes))
                assert ack is not None
                await client.call_tool("change", {})
                change = await bound(anext(changes))
                assert type(change).__name__ == "ToolListChangedNotification"
        assert app.session_count == 0  # legacy: the client's DELETE ended the session
        await bound(app.wait_idle())


class ToolsOnly(Server):
    """A server that declares tools only (as a server with nothing else to offer would)."""

    def capabilities(self, *, modern: bool, version: str | None = None) -> JSONObject:
        return {"tools": {"listChanged": True}}


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["modern", "legacy"])
async def test_a_capability_the_server_lacks_is_refused_before_sending(mode: str) -> None:
    """Over real HTTP in both eras (the stateless 2026 exchanges too), the client's
    ``ClientConnection`` refuses a request the server declared no capability for: nothing is
    sent, and the error names the capability."""
    sent: list[str | None] = []

    def observe(message: Any, version: str | None, method: str | None) -> None:
        if isinstance(message, Request):
            sent.append(message.method)

    server = ToolsOnly("tools-only", "1.0.0")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    app = server.http_app()
    async with running(app) as url:
        async with Client(f"{url}/mcp", mode=mode, timeout=30) as client:  # type: ignore[arg-type]
            assert client.era == ("modern" if mode == "auto" else "legacy")
            assert "prompts" not in client.server_capabilities
            assert "completions" not in client.server_capabilities
            add_outbound_observer(observe)
            try:
                with pytest.raises(MissingServerCapability, match="prompts"):
                    await client.get_prompt("p")
                with pytest.raises(MissingServerCapability, match="prompts"):
                    await client.list_prompts()
                with pytest.raises(MissingServerCapability, match="completions"):
                    await client.complete({"type": "ref/prompt", "name": "p"}, "a", "v")
                assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content
            finally:
                remove_outbound_observer(observe)
            assert "prompts/get" not in sent and "prompts/list" not in sent
            assert "completion/complete" not in sent and "tools/call" in sent
        await bound(app.wait_idle())

"""The host: configuration files, aggregation, filters, routing, supervision of bad servers."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import (
    Host,
    InputValidationError,
    ServerUnavailable,
    SyncClient,
    SyncHost,
    ToolCollision,
    ToolFilter,
    UnknownTool,
)
from mcpkit.client._connectors import CommandConnector, UrlConnector, resolve_target
from mcpkit.client.host import load_servers, parse_servers
from mcpkit.protocol._errors import RequestTimeout, UsageError

from .conftest import PEERS_DIR, raw_server
from .peers.mcpkit_everything import build

KIT_STDIO = [sys.executable, str(PEERS_DIR / "mcpkit_everything.py")]


# -- configuration files ------------------------------------------------------------------------


def test_claude_desktop_and_cursor_files(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "npx", "args": ["-y", "fs", "${env:HOME_DIR}"]},
                    "remote": {"url": "https://example.com/mcp", "headers": {"X": "1"}},
                    "off": {"command": "nothing", "disabled": True},
                }
            }
        )
    )
    entries = load_servers(path, environ={"HOME_DIR": "/home/ada"})
    assert [e.name for e in entries] == ["files", "remote"]
    files = resolve_target(entries[0].target)
    assert isinstance(files, CommandConnector) and files.args == ["-y", "fs", "/home/ada"]
    remote = resolve_target(entries[1].target)
    assert isinstance(remote, UrlConnector) and remote.headers == {"X": "1"}


def test_vscode_file_with_inputs_and_variables(tmp_path: Path) -> None:
    config = {
        "inputs": [
            {"type": "promptString", "id": "api-key", "description": "API key", "password": True}
        ],
        "servers": {
            "gh": {
                "type": "stdio",
                "command": "${workspaceFolder}/bin/server",
                "env": {"TOKEN": "${input:api-key}", "USER": "${env:WHO}"},
            },
            "web": {"type": "http", "url": "https://h/mcp", "headers": {"K": "${input:api-key}"}},
        },
    }
    asked: list[dict[str, Any]] = []

    def ask(declaration: dict[str, Any]) -> str:
        asked.append(declaration)
        return "s3cret"

    entries = parse_servers(config, inputs=ask, environ={"WHO": "ada"}, workspace_folder="/ws")
    gh = resolve_target(entries[0].target)
    assert isinstance(gh, CommandConnector)
    assert gh.command == "/ws/bin/server"
    assert gh.env == {"TOKEN": "s3cret", "USER": "ada"}
    web = resolve_target(entries[1].target)
    assert isinstance(web, UrlConnector) and web.headers == {"K": "s3cret"}
    assert [a["id"] for a in asked] == ["api-key"]  # asked once, reused
    assert asked[0]["password"] is True

    with pytest.raises(UsageError, match="WHO is not set"):
        parse_servers(config, inputs=ask, environ={}, workspace_folder="/ws")
    with pytest.raises(UsageError, match=r"input:api-key"):
        parse_servers(config, environ={"WHO": "x"}, workspace_folder="/ws")
    with pytest.raises(UsageError, match="unknown variable"):
        parse_servers({"servers": {"x": {"command": "${nope}"}}})


# -- hosts of real servers ----------------------------------------------------------------------


async def test_aggregation_namespacing_filters_and_routing(everything: list[str]) -> None:
    servers = {"kit": build(), "ref": everything}
    async with Host(servers, filters={"kit": ToolFilter(deny=["shout"])}) as host:
        assert {name: row["state"] for name, row in host.status().items()} == {
            "kit": "ready",
            "ref": "ready",
        }
        tools = {t.name: t for t in await host.list_tools()}
        # both servers offer add/slow/progress/...: those are prefixed, the rest are not
        assert "kit__add" in tools and "ref__add" in tools and "add" not in tools
        assert tools["kit__add"].server == "kit" and tools["kit__add"].tool.name == "add"
        assert "whoami" in tools and tools["whoami"].server == "ref"
        assert "echo" in tools and "shout" not in tools  # filtered out
        assert (await host.call_tool("kit__add", {"a": 1, "b": 2})).structured_content == {
            "result": 3
        }
        assert (await host.call_tool("ref__add", {"a": 2, "b": 2})).structured_content == {
            "result": 4
        }
        with pytest.raises(UnknownTool):
            await host.call_tool("shout", {"text": "x"})
        with pytest.raises(InputValidationError):
            await host.ainvoke("echo", {"text": 5})
        prompts = {p.name: p.server for p in await host.list_prompts()}
        assert prompts == {"kit__greet": "kit", "ref__greet": "ref"}
        greeting = await host.get_prompt("ref__greet", {"name": "H"})
        assert greeting.messages[0].content.text == "Hello, H!"  # type: ignore[union-attr]
        read = await host.read_resource("test://static", server="kit")
        assert read.contents[0].text == "static text"


async def test_read_only_filter_and_always_prefix_and_collision_errors() -> None:
    async with Host(
        {"kit": build()}, filters={"kit": ToolFilter.read_only()}, namespacing="always"
    ) as host:
        assert [t.name for t in await host.list_tools()] == ["kit__echo"]
    async with Host(
        {"a": build(), "b": build()}, namespacing="never", on_collision="error"
    ) as host:
        with pytest.raises(ToolCollision):
            await host.list_tools()
    async with Host({"a": build(), "b": build()}, namespacing="never") as host:
        tools = await host.list_tools()
        assert {t.server for t in tools} == {"a"}  # the first server wins each clash


async def test_bad_servers_do_not_affect_the_others() -> None:
    servers = {
        "good": build(),
        "crashy": raw_server("--call", "crash"),
        "hangs": raw_server("--call", "hang"),
        "garbage": raw_server("--call", "garbage"),
        "missing": ["/nonexistent/mcp-server-binary"],
    }
    async with Host(
        servers,
        client_options={"timeout": 1.0, "probe_timeout": 2.0},
        server_options={"missing": {}},
        restart=True,
    ) as host:
        status = host.status()
        assert status["good"]["state"] == "ready"
        assert status["missing"]["state"] in ("restarting", "failed")
        assert "ServerStartError" in status["missing"]["error"]

        with pytest.raises(ServerUnavailable):
            host.client("missing")
        tools = {t.name: t.server for t in await host.list_tools()}
        assert tools["kit__add" if "kit__add" in tools else "add"] == "good"

        # hang: a local timeout; the good server answers meanwhile
        hang = asyncio.create_task(host.call_tool("hangs__t"))
        assert (await host.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}
        with pytest.raises(RequestTimeout):
            await hang

        # garbage on the wire is survived
        assert (await host.call_tool("garbage__t", {"x": 1})).content

        # crash: the call fails, the supervisor restarts the server, the others never notice
        crashy = host.servers["crashy"]
        with pytest.raises(Exception) as crashed:
            await host.call_tool("crashy__t")
        assert type(crashed.value).__name__ in ("ConnectionBroken", "ServerStartError")
        assert await crashy.wait_for(lambda s: s.connections >= 2 and s.state == "ready", 20)
        assert (await host.call_tool("add", {"a": 2, "b": 3})).structured_content == {"result": 5}
        assert host.client("crashy").connected


async def test_a_server_that_hangs_when_listing_is_skipped() -> None:
    async with Host(
        {"good": build(), "stuck": raw_server("--list", "hang")}, list_timeout=0.5
    ) as host:
        assert host.status()["stuck"]["state"] == "ready"
        tools = await host.list_tools()
        assert {t.server for t in tools} == {"good"}
        assert "add" in {t.name for t in tools}
        assert host.client("stuck").connected  # skipped for listing, still connected


async def test_list_changed_reaches_the_host(everything: list[str]) -> None:
    """A server's list_changed (a 2026 listen stream here) refreshes the host's catalogue."""
    changed = asyncio.Event()
    seen: list[str] = []

    def on_change(server: str) -> None:
        seen.append(server)
        changed.set()

    async with Host({"ref": everything, "kit": build()}, on_change=on_change) as host:
        before = {t.name for t in await host.list_tools()}
        await host.call_tool("ref__change_tools")
        await asyncio.wait_for(changed.wait(), 15)
        assert seen == ["ref"]
        added = {t.name for t in await host.list_tools()} - before
        assert len(added) == 1 and next(iter(added)).startswith("extra_")


async def test_close_from_another_task(everything: list[str]) -> None:
    host = Host({"kit": build(), "ref": everything})
    await host.start()
    assert host.client("ref").connected
    closer = asyncio.create_task(host.aclose())
    await closer
    assert {row["state"] for row in host.status().values()} == {"stopped"}
    with pytest.raises(ServerUnavailable):
        host.client("ref")
    await host.aclose()  # idempotent


# -- the sync facade ----------------------------------------------------------------------------


def test_sync_client_invoke() -> None:
    with SyncClient(KIT_STDIO) as client:
        assert client.invoke("add", {"a": 20, "b": 22}).structured_content == {"result": 42}
        with pytest.raises(InputValidationError) as bad:
            client.invoke("add", {"a": 1})
        assert bad.value.path == "$.b"
        assert client.read_resource("test://static").contents[0].text == "static text"  # type: ignore[union-attr]


def test_sync_host() -> None:
    with SyncHost({"kit": KIT_STDIO}) as host:
        assert [t.name for t in host.list_tools()][:1] == ["add"]
        assert host.invoke("echo", {"text": "hi"}).content[0].text == "hi"  # type: ignore[union-attr]
        assert host.status()["kit"]["state"] == "ready"


async def test_from_file_expands_a_home_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Host.from_file("~/…")`` — the way docs/client.md and the hosts' own docs give paths."""
    monkeypatch.setenv("HOME", str(tmp_path))
    config = tmp_path / ".config" / "Claude" / "claude_desktop_config.json"
    config.parent.mkdir(parents=True)
    config.write_text(
        json.dumps({"mcpServers": {"kit": {"command": KIT_STDIO[0], "args": KIT_STDIO[1:]}}})
    )
    async with Host.from_file("~/.config/Claude/claude_desktop_config.json") as host:
        tools = await host.list_tools()
    assert tools and {tool.server for tool in tools} == {"kit"}

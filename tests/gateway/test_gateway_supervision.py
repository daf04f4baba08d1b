"""A failing backend stays isolated: killed mid-call, crashing, hanging past its timeout, or
never starting, its tools answer clear errors while the other backends keep serving; a backend
that comes back is served again."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from _gateway_harness import CRM, CRM_TOKEN, NOTES

from mcpkit.client import Client
from mcpkit.errors import JSONRPCError
from mcpkit.gateway import BACKEND_UNAVAILABLE, Gateway
from mcpkit.types._notifications import ToolListChangedNotification
from transports.http_client._harness import peer

CRM_ARGV = [sys.executable, str(CRM), "--require-token", CRM_TOKEN]


def _texts(result: Any) -> list[str]:
    return [c.text for c in result.content if hasattr(c, "text")]


def _backends(crm_url: str, **notes: Any) -> dict[str, Any]:
    return {
        "notes": {"command": sys.executable, "args": [str(NOTES)], **notes},
        "crm": {"url": crm_url, "headers": {"Authorization": f"Bearer {CRM_TOKEN}"}},
    }


async def test_a_backend_killed_mid_call(tmp_path: Path) -> None:
    async with peer(
        [sys.executable, str(CRM), "--require-token", CRM_TOKEN], tmp_path / "crm.log"
    ) as crm:
        gateway = Gateway(_backends(crm.url()))
        async with gateway, Client(gateway.server.connect_in_memory()) as client:
            started: asyncio.Future[str] = asyncio.get_running_loop().create_future()

            async def progress(value: float, total: float | None, message: str | None) -> None:
                if message and not started.done():
                    started.set_result(message)

            call = asyncio.ensure_future(
                client.call_tool("notes__hang", {}, progress_callback=progress)
            )
            pid = int((await asyncio.wait_for(started, 15)).split()[1])
            # another backend serves while the call is open
            found = await client.call_tool("crm__search_customers", {"query": "grace"})
            assert found.structured_content == {"result": ["Grace Hopper"]}
            os.kill(pid, signal.SIGKILL)
            result = await asyncio.wait_for(call, 15)
            assert result.is_error
            assert "backend 'notes'" in _texts(result)[0]
            # the other backend is unaffected ...
            found = await client.call_tool("crm__search_customers", {"query": "alan"})
            assert found.structured_content == {"result": ["Alan Turing"]}
            # ... and the killed one is restarted (with backoff) and served again
            supervisor = gateway.host.servers["notes"]
            assert await supervisor.wait_for(
                lambda s: s.state == "ready" and s.connections >= 2, timeout=20
            ), gateway.host.status()
            again = await client.call_tool("notes__read_note", {"name": "todo"})
            assert _texts(again) == ["Ship the gateway."]


async def test_a_backend_that_exits_during_the_call_and_one_that_never_starts(
    tmp_path: Path,
) -> None:
    async with peer(
        [sys.executable, str(CRM), "--require-token", CRM_TOKEN], tmp_path / "crm.log"
    ) as crm:
        backends = _backends(crm.url())
        backends["broken"] = {"command": sys.executable, "args": ["-c", "raise SystemExit(4)"]}
        gateway = Gateway(backends, host_options={"connect_timeout": 15})
        async with gateway, Client(gateway.server.connect_in_memory()) as client:
            names = {t.name for t in await client.list_tools()}
            assert "crm__search_customers" in names and "notes__crash" in names
            assert not any(name.startswith("broken__") for name in names)
            crashed = await client.call_tool("notes__crash", {})
            assert crashed.is_error and "backend 'notes'" in _texts(crashed)[0]
            found = await client.call_tool("crm__search_customers", {"query": "ada"})
            assert found.structured_content == {"result": ["Ada Lovelace"]}


async def test_a_per_call_timeout_answers_a_clear_error(tmp_path: Path) -> None:
    async with peer(
        [sys.executable, str(CRM), "--require-token", CRM_TOKEN], tmp_path / "crm.log"
    ) as crm:
        gateway = Gateway(_backends(crm.url(), timeout=1.0))
        async with gateway, Client(gateway.server.connect_in_memory()) as client:
            result = await asyncio.wait_for(client.call_tool("notes__hang", {}), 20)
            assert result.is_error
            assert "did not answer in time" in _texts(result)[0]
            # the backend itself is fine: the next call is served
            assert _texts(await client.call_tool("notes__read_note", {"name": "readme"}))


async def test_resources_of_an_unavailable_backend_answer_backend_unavailable(
    tmp_path: Path,
) -> None:
    gateway = Gateway(
        {"notes": {"command": sys.executable, "args": [str(NOTES)]}},
        host_options={"restart": False},
    )
    async with gateway, Client(gateway.server.connect_in_memory()) as client:
        assert (await client.read_resource("notes://readme")).contents
        crashed = await client.call_tool("notes__crash", {})
        assert crashed.is_error
        supervisor = gateway.host.servers["notes"]
        assert await supervisor.wait_for(lambda s: s.state == "failed", timeout=15)
        with pytest.raises(JSONRPCError) as refused:
            await client.read_resource("notes://readme")
        assert refused.value.code == BACKEND_UNAVAILABLE
        assert "backend 'notes' is unavailable" in refused.value.message
        # its tools stay listed and say why they cannot run
        assert "notes__read_note" in {t.name for t in await client.list_tools()}
        down = await client.call_tool("notes__read_note", {"name": "readme"})
        assert down.is_error and "backend 'notes' is unavailable" in _texts(down)[0]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_cancelling_a_call_cancels_it_on_the_backend(mode: str) -> None:
    gateway = Gateway({"notes": {"command": sys.executable, "args": [str(NOTES)]}})
    async with (
        gateway,
        Client(gateway.server.connect_in_memory(), mode=mode) as client,
        client.listen(resource_uris=["notes://cancelled"]) as updates,
    ):
        await asyncio.wait_for(updates.__anext__(), 15)  # the acknowledgement
        waiting: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if not waiting.done():
                waiting.set_result(None)

        call = asyncio.ensure_future(
            client.call_tool("notes__wait_for_cancel", {}, progress_callback=progress)
        )
        await asyncio.wait_for(waiting, 15)  # the backend's progress came through the gateway
        call.cancel()
        note = await asyncio.wait_for(updates.__anext__(), 15)
        assert note.params.uri == "notes://cancelled"  # the backend saw the cancellation
        assert call.cancelled()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_backend_list_change_reaches_clients(mode: str) -> None:
    """A backend adds a tool: the gateway tells its clients (a legacy notification or a 2026
    listen stream) and lists the new tool, namespaced, callable."""
    gateway = Gateway({"notes": {"command": sys.executable, "args": [str(NOTES)]}})
    async with (
        gateway,
        Client(gateway.server.connect_in_memory(), mode=mode) as client,
        client.listen(tools=True) as changes,
    ):
        await asyncio.wait_for(changes.__anext__(), 15)  # the acknowledgement
        assert "notes__sprout" not in {t.name for t in await client.list_tools()}
        await client.call_tool("notes__grow", {"name": "sprout"})
        note = await asyncio.wait_for(changes.__anext__(), 15)
        assert isinstance(note, ToolListChangedNotification)
        assert "notes__sprout" in {t.name for t in await client.list_tools()}
        assert _texts(await client.call_tool("notes__sprout", {})) == ["I am sprout"]


async def test_a_legacy_backend_question_is_never_sent_to_the_wrong_caller() -> None:
    """A handshake-era backend asks on its session, not inside a request: with two calls open on
    it, the gateway cannot tell whose question it is and refuses it instead of guessing."""
    gateway = Gateway(
        {"notes": {"command": sys.executable, "args": [str(NOTES)], "mode": "legacy"}}
    )
    asked: list[str] = []

    async def elicit(params: Any, context: Any) -> dict[str, Any]:
        asked.append(params.message)
        return {"action": "accept", "content": {"name": "Eve"}}

    async with (
        gateway,
        Client(gateway.server.connect_in_memory(), elicitation_handler=elicit) as first,
        Client(gateway.server.connect_in_memory(), elicitation_handler=elicit) as second,
    ):
        assert gateway.host.client("notes").era == "legacy"
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if not started.done():
                started.set_result(None)

        hanging = asyncio.ensure_future(
            first.call_tool("notes__hang", {}, progress_callback=progress)
        )
        await asyncio.wait_for(started, 15)
        with pytest.raises(JSONRPCError, match="ambiguous"):
            await second.call_tool("notes__ask_name", {})
        assert asked == []  # nobody was asked
        hanging.cancel()

"""The gateway over three real backends (mcpkit stdio, the official SDK over HTTP in the handshake
era, mcpkit over HTTP behind its own token), served on real HTTP to clients with different
policies, driven by mcpkit's client in both eras and by the official SDK's client in both eras."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from _gateway_harness import SDK_CLIENT, TOKENS, Stack, stack

from mcpkit.client import Client
from mcpkit.errors import InvalidParams, JSONRPCError, ResourceNotFound
from mcpkit.types._notifications import ResourceUpdatedNotification
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification
from transports.http_client._harness import sdk_python

pytestmark = pytest.mark.peers

MODES = ("legacy", "2026-07-28")


def _texts(result: Any) -> list[str]:
    return [c.text for c in result.content if hasattr(c, "text")]


def _audit(stack_: Stack) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stack_.audit.read_text().splitlines()]


def _digest(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@pytest.mark.parametrize("mode", MODES)
async def test_two_clients_see_and_call_only_what_their_policy_allows(
    tmp_path: Path, mode: str
) -> None:
    async with stack(tmp_path) as gw:
        async with Client(gw.target("alice"), mode=mode) as alice:
            assert alice.era == ("legacy" if mode == "legacy" else "modern")
            names = {t.name for t in await alice.list_tools()}
            assert {"notes__read_note", "weather__forecast", "crm__search_customers"} <= names
            assert "notes__delete_note" not in names  # denied by pattern
            # one call per backend: stdio mcpkit, SDK over HTTP (legacy), mcpkit over HTTP
            read = await alice.call_tool("notes__read_note", {"name": "readme"})
            assert _texts(read) == ["Read me first."]
            forecast = await alice.call_tool("weather__forecast", {"city": "Oslo"})
            assert _texts(forecast) == ["sunny in Oslo"]
            found = await alice.call_tool("crm__search_customers", {"query": "ada"})
            assert found.structured_content == {"result": ["Ada Lovelace"]}
            # crm demands the gateway's own token (alice's would be refused) and sees the gateway
            who = await alice.call_tool("crm__whoami", {})
            assert _texts(who) == ["mcpkit-gateway"]
            # denied everywhere, not only in listings
            with pytest.raises(InvalidParams, match="Unknown tool: notes__delete_note"):
                await alice.call_tool("notes__delete_note", {"name": "readme"})
            text = (await alice.read_resource("notes://readme")).contents[0].text
            assert text == "Read me first."
            with pytest.raises(ResourceNotFound):
                await alice.read_resource("notes://todo")
            uris = {r.uri for r in await alice.list_resources()}
            assert {"notes://readme", "weather://today"} <= uris
            prompt = await alice.get_prompt("notes__review", {"topic": "the gateway"})
            assert prompt.messages[0].content.text == "Please review the gateway."
            done = await alice.complete(
                {"type": "ref/prompt", "name": "notes__review"}, "topic", "ga"
            )
            assert done.completion.values == ["gateway", "gardening"]

        async with Client(gw.target("bob"), mode=mode) as bob:
            names = {t.name for t in await bob.list_tools()}
            assert names == {
                "weather__forecast", "weather__steps", "weather__whoami", "crm__search_customers"
            }  # fmt: skip
            assert {p.name for p in await bob.list_prompts()} == {"crm__greeting"}
            assert {r.uri for r in await bob.list_resources()} == {"weather://today"}
            with pytest.raises(InvalidParams, match="Unknown tool: notes__read_note"):
                await bob.call_tool("notes__read_note", {"name": "readme"})
            with pytest.raises(ResourceNotFound):
                await bob.read_resource("notes://readme")
            with pytest.raises(InvalidParams, match="Unknown prompt"):
                await bob.get_prompt("notes__review", {"topic": "x"})
            steps: list[float] = []

            async def progress(value: float, total: float | None, message: str | None) -> None:
                steps.append(value)

            counted = await bob.call_tool("weather__steps", {"n": 3}, progress_callback=progress)
            assert _texts(counted) == ["3 steps"]
            assert steps == [1, 2, 3]  # the SDK backend's progress, carried through

    records = _audit(gw)
    calls = [(r["client"], r["method"], r["backend"], r["target"], r["outcome"]) for r in records]
    assert ("alice", "tools/call", "notes", "notes__read_note", "ok") in calls
    assert ("alice", "tools/call", "weather", "weather__forecast", "ok") in calls
    assert ("alice", "tools/call", None, "notes__delete_note", "denied") in calls
    assert ("alice", "resources/read", None, "notes://todo", "denied") in calls
    assert ("bob", "tools/call", None, "notes__read_note", "denied") in calls
    assert ("bob", "prompts/get", None, "notes__review", "denied") in calls
    forecast_record = next(r for r in records if r["target"] == "weather__forecast")
    assert forecast_record["arguments_digest"] == _digest({"city": "Oslo"})
    assert "Oslo" not in json.dumps(records)  # digests, never the arguments themselves
    assert all(r["duration_ms"] >= 0 and r["era"] for r in records)


@pytest.mark.parametrize("mode", MODES)
async def test_backend_questions_reach_the_client_in_its_era(tmp_path: Path, mode: str) -> None:
    """The SDK backend (legacy) and the notes backend (2026 over stdio) ask questions; the front
    client answers them in its own era (legacy requests, or 2026 input-required rounds)."""
    asked: list[str] = []

    async def elicit(params: Any, context: Any) -> dict[str, Any]:
        asked.append(params.message)
        return {"action": "accept", "content": {"name": "Ada"}}

    async def sample(params: Any, context: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m"}

    async with (
        stack(tmp_path) as gw,
        Client(
            gw.target("alice"),
            mode=mode,
            elicitation_handler=elicit,
            sampling_handler=sample,
            roots=[{"uri": "file:///srv/project"}],
        ) as alice,
    ):
        assert _texts(await alice.call_tool("weather__whoami", {})) == ["hello Ada"]
        assert _texts(await alice.call_tool("notes__ask_name", {})) == ["hello Ada"]
        summary = await alice.call_tool("notes__summarize", {"text": "long"})
        assert _texts(summary) == ["model said: short"]
        roots = await alice.call_tool("notes__count_roots", {})
        assert _texts(roots) == ["1 roots: file:///srv/project"]
    assert asked == ["Who are you?", "Your name?"]
    outcomes = [r["outcome"] for r in _audit(gw) if r["target"] == "weather__whoami"]
    assert outcomes[-1] == "ok"
    if mode != "legacy":  # each round of a 2026 call is a request of its own, and recorded
        assert outcomes[:-1] == ["input_required"]


@pytest.mark.parametrize("mode", MODES)
async def test_the_official_sdk_client_through_the_gateway(tmp_path: Path, mode: str) -> None:
    async with stack(tmp_path) as gw:
        process = await asyncio.create_subprocess_exec(
            sdk_python(), str(SDK_CLIENT), gw.url, TOKENS["sdk"], mode,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()[-3000:]
    summary = json.loads(out.decode().strip().splitlines()[-1])
    assert summary["tools"] == [
        "crm__search_customers", "weather__forecast", "weather__steps", "weather__whoami"
    ]  # fmt: skip
    assert summary["forecast"] == ["sunny in Oslo"]
    assert summary["search"] == {"result": ["Ada Lovelace"]}
    assert summary["whoami"] == ["hello Grace"]
    denied = summary["denied"]
    assert denied.get("code") == -32602 or denied.get("isError") is True, denied
    assert "Unknown tool" in json.dumps(denied)


@pytest.mark.parametrize("mode", MODES)
async def test_resource_updates_reach_subscribers(tmp_path: Path, mode: str) -> None:
    async with (
        stack(tmp_path) as gw,
        Client(gw.target("alice"), mode=mode) as alice,
        alice.listen(resource_uris=["notes://readme"]) as updates,
    ):
        ack = await asyncio.wait_for(updates.__anext__(), 15)
        assert isinstance(ack, SubscriptionsAcknowledgedNotification)
        await alice.call_tool("notes__touch", {"name": "readme"})
        note = await asyncio.wait_for(updates.__anext__(), 15)
        assert isinstance(note, ResourceUpdatedNotification)
        assert note.params.uri == "notes://readme"


async def test_a_denied_resource_is_left_out_of_a_listen_filter(tmp_path: Path) -> None:
    async with (
        stack(tmp_path) as gw,
        Client(gw.target("bob"), mode="2026-07-28") as bob,
        bob.listen(resource_uris=["notes://readme", "weather://today"]) as sub,
    ):
        ack = await asyncio.wait_for(sub.__anext__(), 15)
        agreed = ack.params.notifications.resource_subscriptions
        assert agreed == ["weather://today"]


async def test_requests_without_a_known_token_are_refused(tmp_path: Path) -> None:
    async with stack(tmp_path) as gw:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        async with httpx.AsyncClient() as http:
            bare = await http.post(gw.url, json=body)
            wrong = await http.post(gw.url, json=body, headers={"Authorization": "Bearer nope"})
            health = await http.get(gw.url.replace("/mcp", "/healthz"))
        assert bare.status_code == 401 and bare.headers["www-authenticate"].startswith("Bearer")
        assert wrong.status_code == 401 and "invalid_token" in wrong.headers["www-authenticate"]
        assert health.status_code == 200


async def test_rate_limits_are_per_client(tmp_path: Path) -> None:
    async with (
        stack(tmp_path) as gw,
        Client(gw.target("carol")) as carol,
        Client(gw.target("bob")) as bob,
    ):
        for _ in range(2):  # the burst
            await carol.call_tool("crm__search_customers", {"query": "a"})
        with pytest.raises(JSONRPCError) as refused:
            await carol.call_tool("crm__search_customers", {"query": "a"})
        assert refused.value.code == -32029
        assert refused.value.data["retryAfterMs"] > 0
        # another client is not affected, and carol's connection still serves
        assert _texts(await bob.call_tool("weather__forecast", {"city": "Rome"}))
        assert await carol.list_tools()
    assert [r["outcome"] for r in _audit(gw) if r["client"] == "carol"][-1] == "rate_limited"

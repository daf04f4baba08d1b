"""The gateway's consent holds against URI spellings a backend resolves differently (issue 28).

A real backend over stdio resolves resource paths with ``posixpath.normpath`` (and decodes them),
as many do; the gateway runs on real uvicorn; clients are mcpkit's, in both eras.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client
from mcpkit.errors import InvalidParams, JSONRPCError, ResourceNotFound
from mcpkit.gateway import (
    RATE_LIMITED,
    ClientRule,
    Gateway,
    Policy,
    RateLimit,
    parse_gateway_config,
)
from mcpkit.gateway._gateway import LIST_BURST_FLOOR, MAX_LISTEN_URIS
from transports.http_client._harness import running

KB: Final = Path(__file__).resolve().parent / "servers" / "kb_server.py"
MODES: Final = ("legacy", "2026-07-28")
ESCAPES: Final = (
    "kb://public/../private/salaries",
    "kb://public/%2e%2e/private/salaries",
    "kb://public/%2E%2e/private/salaries",
    "kb://public/./../private/salaries",
    "kb://public/..%2Fprivate/salaries",
    "kb://public/..%5Cprivate/salaries",
    "kb://public/%252e%252e/private/salaries",
)


@contextlib.asynccontextmanager
async def _gateway() -> AsyncIterator[str]:
    gateway = Gateway(
        {"kb": {"command": sys.executable, "args": [str(KB)]}},
        anonymous=Policy(["resources:kb/kb://public/*"]),
    )
    async with running(gateway.http_app(), lifespan="on") as base:
        yield f"{base}/mcp"


@pytest.mark.parametrize("mode", MODES)
async def test_dot_segments_cannot_reach_what_the_policy_denies(mode: str) -> None:
    async with _gateway() as url, Client({"url": url}, mode=mode) as client:
        allowed = await client.read_resource("kb://public/guide")
        assert allowed.contents[0].text == "How to use the shop."
        spelled = await client.read_resource("kb://%70ublic/guide")  # unreserved, decoded
        assert spelled.contents[0].text == "How to use the shop."
        with pytest.raises(ResourceNotFound):
            await client.read_resource("kb://private/salaries")
        for uri in ESCAPES:
            with pytest.raises(ResourceNotFound):
                await client.read_resource(uri)


async def test_dot_segments_are_left_out_of_a_listen_filter() -> None:
    async with (
        _gateway() as url,
        Client({"url": url}, mode="2026-07-28") as client,
        client.listen(resource_uris=["kb://public/guide", *ESCAPES]) as sub,
    ):
        ack = await asyncio.wait_for(sub.__anext__(), 15)
        assert ack.params.notifications.resource_subscriptions == ["kb://public/guide"]


TOKENS: Final = {"alice-token-0123456789abcdef": "alice", "bob-token-0123456789abcdef": "bob"}


@contextlib.asynccontextmanager
async def _shared(audit: Path) -> AsyncIterator[tuple[Gateway, str]]:
    """The kb backend behind a gateway with two token clients: alice (unlimited), bob (one call
    per 100 s)."""
    gateway = Gateway(
        {"kb": {"command": sys.executable, "args": [str(KB)]}},
        clients={
            "alice": ClientRule(Policy(["kb/*"])),
            "bob": ClientRule(Policy(["kb/*"]), RateLimit(rate=0.01, burst=1)),
        },
        tokens=TOKENS,
        audit=audit,
    )
    async with running(gateway.http_app(), lifespan="on") as base:
        yield gateway, f"{base}/mcp"


def _as(url: str, name: str) -> dict[str, Any]:
    token = next(t for t, n in TOKENS.items() if n == name)
    return {"url": url, "headers": {"Authorization": f"Bearer {token}"}}


async def _listening(client: Client) -> int:
    result = await client.call_tool("kb__listening", {})
    count: int = result.structured_content["result"]
    return count


async def test_listens_share_one_backend_stream_and_let_go_when_they_end(tmp_path: Path) -> None:
    """Issue 28: a listen naming many URIs opened a backend stream per URI and never ended them."""
    async with (
        _shared(tmp_path / "audit.jsonl") as (gateway, url),
        Client(_as(url, "alice"), mode="2026-07-28") as alice,
    ):
        too_many = [f"kb://public/doc{i}" for i in range(MAX_LISTEN_URIS + 1)]
        with pytest.raises(InvalidParams):
            async with alice.listen(resource_uris=too_many):
                pass
        baseline = await _listening(alice)  # the gateway's own (list changes), if any
        first = [f"kb://public/doc{i}" for i in range(60)]
        second = [f"kb://public/doc{i}" for i in range(30, 64)]
        async with (
            alice.listen(resource_uris=first) as one,
            alice.listen(resource_uris=second) as two,
        ):
            for sub in (one, two):
                await asyncio.wait_for(sub.__anext__(), 15)  # acknowledged
            assert len(gateway._watches.following("kb")) == 64
            assert gateway._watches.tasks == 1
            # one stream for both listens' URIs: the stream the first listen opened is replaced
            # by one for the union, and the old one's end reaches the backend a moment later
            settled = await asyncio.wait_for(
                alice.call_tool("kb__wait_listening", {"count": baseline + 1}), 15
            )
            assert settled.structured_content["result"] == baseline + 1
            assert gateway._watches.tasks == 1
            read = await alice.read_resource("kb://public/guide")  # the backend still answers
            assert read.contents[0].text == "How to use the shop."
            await alice.call_tool("kb__touch", {"path": "public/doc40"})
            for sub in (one, two):  # both listens name doc40: both are told
                note = await asyncio.wait_for(sub.__anext__(), 15)
                assert note.params.uri == "kb://public/doc40"
        # the streams' ends reach the gateway, which lets go before it closes the backend's
        waited = await asyncio.wait_for(
            alice.call_tool("kb__wait_listening", {"count": baseline}), 15
        )
        assert waited.structured_content["result"] == baseline
        assert gateway._watches.following("kb") == [] and gateway._watches.tasks == 0


async def test_listen_is_rate_limited_and_audited(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    async with (
        _shared(audit) as (_, url),
        Client(_as(url, "bob"), mode="2026-07-28") as bob,
    ):
        async with bob.listen(resource_uris=["kb://public/guide"]) as sub:
            await asyncio.wait_for(sub.__anext__(), 15)
        with pytest.raises(JSONRPCError) as refused:
            async with bob.listen(resource_uris=["kb://public/guide"]):
                pass
        assert refused.value.code == RATE_LIMITED
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    listens = [
        (r["client"], r["outcome"]) for r in records if r["method"] == "subscriptions/listen"
    ]
    assert ("bob", "rate_limited") in listens and len(listens) == 2, listens


async def test_audit_records_are_bounded_and_one_line_each(tmp_path: Path) -> None:
    """Issue 28: a 2 MiB tool name added 4 MB to the audit log; U+2028 / U+0085 in a name split
    a record for line readers (``str.splitlines``, many log shippers)."""
    audit = tmp_path / "audit.jsonl"
    gateway = Gateway(
        {"kb": {"command": sys.executable, "args": [str(KB)]}},
        anonymous=Policy(["kb/*"]),
        audit=audit,
    )
    names = ["x" * (2 * 1024 * 1024), 'evil\u2028{"client":"admin"}', "a\u0085b\u2029c"]
    async with (
        running(gateway.http_app(), lifespan="on") as base,
        Client({"url": f"{base}/mcp"}, mode="legacy") as client,
    ):
        for name in names:
            with pytest.raises(InvalidParams):  # unknown tool
                await client.call_tool(name, {})
    text = audit.read_text(encoding="utf-8")
    lines = text.splitlines()  # splits on U+2028, U+0085 and U+2029 too
    assert len(lines) == len(names), lines[:5]
    records = [json.loads(line) for line in lines]
    assert [r["method"] for r in records] == ["tools/call"] * len(names)
    assert len(text.encode()) < 8 * 1024  # not megabytes
    assert records[0]["target"].endswith(f"…(+{2 * 1024 * 1024 - 1024} chars)")
    assert records[1]["target"] == names[1] and records[1]["client"] == "anonymous"


async def test_anonymous_callers_have_a_configurable_rate_limit_lists_included() -> None:
    """Issue 28: unauthenticated callers could not be rate limited, and no caller's listings
    were (each may make the gateway list slow backends)."""
    entries, settings = parse_gateway_config(
        {
            "mcpServers": {"kb": {"command": sys.executable, "args": [str(KB)]}},
            "gateway": {"anonymous": {"allow": ["kb/*"], "rateLimit": {"rate": 0.01, "burst": 1}}},
        }
    )
    gateway = Gateway.from_settings(entries, settings)
    async with (
        running(gateway.http_app(), lifespan="on") as base,
        Client({"url": f"{base}/mcp"}, mode="2026-07-28", cache=False) as client,
    ):
        read = await client.read_resource("kb://public/guide")
        assert read.contents[0].text == "How to use the shop."
        with pytest.raises(JSONRPCError) as refused:
            await client.read_resource("kb://public/guide")
        assert refused.value.code == RATE_LIMITED
        listed = 0
        with pytest.raises(JSONRPCError) as refused:
            for _ in range(LIST_BURST_FLOOR + 5):
                await client.list_tools()
                listed += 1
        assert refused.value.code == RATE_LIMITED
        assert 1 <= listed <= LIST_BURST_FLOOR  # the listing bucket: more generous, bounded


NOISY: Final = Path(__file__).resolve().parent / "servers" / "noisy_server.py"


async def test_a_slow_noisy_backend_does_not_stall_the_others() -> None:
    """Issue 28: a backend whose listings take long and which announces list changes many times
    a second made every call through the gateway wait for a full re-listing. Here its listings
    never end at all: calls to the other backend still go through, and the gateway re-lists it
    once (one rebuild at a time), not once per announcement."""
    gateway = Gateway(
        {
            "kb": {"command": sys.executable, "args": [str(KB)]},
            "noisy": {"command": sys.executable, "args": [str(NOISY)]},
        },
        list_timeout=60.0,  # longer than any wait below: a call that waits for it fails
    )
    async with (
        running(gateway.http_app(), lifespan="on") as base,
        Client({"url": f"{base}/mcp"}, mode="2026-07-28", cache=False) as client,
    ):
        await client.call_tool("noisy__start_noise", {})
        for _ in range(20):
            read = await asyncio.wait_for(client.read_resource("kb://public/guide"), 10)
            assert read.contents[0].text == "How to use the shop."
            listening = await asyncio.wait_for(client.call_tool("kb__listening", {}), 10)
            assert not listening.is_error
        noise = (
            await asyncio.wait_for(client.call_tool("noisy__noise", {}), 10)
        ).structured_content
        assert noise["notes"] >= 1, noise
        assert noise["lists"] <= 2, noise  # coalesced: the first hung rebuild, maybe one more

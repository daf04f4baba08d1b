"""The gateway's consent holds against URI spellings a backend resolves differently (issue 28).

A real backend over stdio resolves resource paths with ``posixpath.normpath`` (and decodes them),
as many do; the gateway runs on real uvicorn; clients are mcpkit's, in both eras.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

import pytest

from mcpkit.client import Client
from mcpkit.errors import ResourceNotFound
from mcpkit.gateway import Gateway, Policy
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

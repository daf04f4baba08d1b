"""The core rules every transport must keep, checked through a connected client.

:func:`check_core_rules` takes a client connected to :mod:`kit.feature_server` (any transport,
either era) and fails with an assertion naming the rule it broke. A new transport passes the kit
by connecting a client and calling it (``test_conformance_kit`` in
``tests/interaction/test_every_transport.py`` does so
for memory, stdio and HTTP in JSON and SSE mode).
"""

from __future__ import annotations

import asyncio

from kit.feature_server import EXTRA_TOOLS, SERVER_NAME
from mcpkit.client import Client
from mcpkit.protocol._errors import JSONRPCError

__all__ = ["check_core_rules"]

METHOD_NOT_FOUND = -32601


async def check_core_rules(client: Client) -> None:
    """Every rule in turn; each assertion message says which one failed."""
    # The negotiated identity: the server says who it is in either era.
    assert client.server_info.get("name") == SERVER_NAME, "server identity after negotiation"
    assert "tools" in client.server_capabilities, "tools capability advertised"

    # ping answers with an empty result.
    await client.ping()

    # Requests are answered by id: concurrent calls get their own results back.
    texts = [f"message {i}" for i in range(8)]
    results = await asyncio.gather(*(client.call_tool("echo", {"text": t}) for t in texts))
    got = [r.content[0].text for r in results]  # type: ignore[union-attr]
    assert got == texts, "concurrent requests answered by id, each with its own result"

    # A pagination cursor walks the whole list exactly once.
    names = [tool.name for tool in await client.list_tools()]
    assert len(names) == len(set(names)), "no tool listed twice across pages"
    assert {"echo", "add", *(f"extra_{i}" for i in range(EXTRA_TOOLS))} <= set(names), (
        "every tool listed across pages"
    )

    # A tool's own failure is a result with isError, not a protocol error.
    failed = await client.call_tool("fail", {"reason": "on purpose"})
    assert failed.is_error, "a tool failure is an isError result"

    # An unknown method is -32601, and the connection keeps serving afterwards.
    try:
        await client._request("no/such/method", {})  # the raw request path
    except JSONRPCError as exc:
        assert exc.code == METHOD_NOT_FOUND, f"unknown method gives -32601, got {exc.code}"
    else:
        raise AssertionError("an unknown method must be an error")
    after = await client.call_tool("echo", {"text": "still here"})
    assert after.content[0].text == "still here", "the connection serves after an error"  # type: ignore[union-attr]

"""The client reads 400 + -32020 (HeaderMismatch) as a 2026 server speaking (issue #11).

A 2026 server answers a request whose ``MCP-Protocol-Version`` header and body
``_meta.protocolVersion`` disagree with 400 and -32020. Whatever provoked it, that answer comes
from a modern server: era detection must not take it for a legacy server's refusal and fall
back (to ``initialize``, or to the 2024-11-05 HTTP+SSE transport). Scripted servers on real
loopback HTTP play the server.
"""

from __future__ import annotations

import pytest

from mcpkit.client import Client
from mcpkit.client._errors import IncompatibleServer
from mcpkit.protocol._errors import HeaderMismatch

from ._harness import running
from ._scripted import Scripted, error, status
from .test_scripted_legacy import legacy_routes

MISMATCH = error(None, -32020, "Header mismatch", {"header": "MCP-Protocol-Version"})


async def test_a_probe_answered_with_header_mismatch_is_a_modern_server_not_a_fallback() -> None:
    app = Scripted(legacy_routes(**{"server/discover": status(400, MISMATCH, "application/json")}))
    async with running(app) as base:
        with pytest.raises(IncompatibleServer, match="2026 server"):
            async with Client(base + "/mcp"):
                pass
    assert [s.method for s in app.seen] == ["server/discover"]  # no initialize fallback


async def test_initialize_answered_with_header_mismatch_is_not_an_http_sse_fallback() -> None:
    app = Scripted(legacy_routes(initialize=status(400, MISMATCH, "application/json")))
    async with running(app) as base:
        with pytest.raises(HeaderMismatch):
            async with Client(base + "/mcp", mode="legacy"):
                pass
    assert not app.of("GET")  # a modern server: no HTTP+SSE attempt

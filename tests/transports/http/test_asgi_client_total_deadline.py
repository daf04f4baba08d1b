"""A hostile server that reports progress forever cannot hold an mcpkit client's call open: the
default total cap ends it with a clear error, in both eras over real HTTP.

The cap's default (10 min) is lowered to 1 s for the test by patching the named constant in the
two places that apply it (the runtime session for legacy requests, the client's 2026 channel).
"""

from __future__ import annotations

import asyncio

import pytest
from _asgi_harness import bound, running

from mcpkit.client import Client
from mcpkit.protocol._errors import RequestTimeout
from mcpkit.server import Context, Server

CAP = 1.0


def _hostile() -> Server:
    server = Server("hostile", "1.0.0")

    @server.tool
    async def forever(ctx: Context) -> str:
        """Report progress every 0.1 s and never answer."""
        step = 0
        while True:
            step += 1
            await ctx.report_progress(step)
            await asyncio.sleep(0.1)

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_cannot_hold_a_call_open_forever(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mcpkit._runtime.pending as pending
    import mcpkit.client._channel as channel

    monkeypatch.setattr(pending, "DEFAULT_MAX_TOTAL_TIMEOUT", CAP)
    monkeypatch.setattr(channel, "DEFAULT_MAX_TOTAL_TIMEOUT", CAP)
    app = _hostile().http_app(sse_after=0.0)
    async with running(app) as url, Client(f"{url}/mcp", mode=mode, timeout=0.5) as client:  # type: ignore[arg-type]
        seen: list[float] = []
        with pytest.raises(RequestTimeout) as caught:
            await bound(
                client.call_tool("forever", {}, progress_callback=lambda p, t, m: seen.append(p))
            )
        assert caught.value.total and caught.value.timeout == CAP
        assert len(seen) >= 6  # progress did arrive (and reset the 0.5 s deadline) until the cap
    await bound(app.wait_idle())  # the server's handler was cancelled (2026: stream closed;
    # legacy: notifications/cancelled, then the session's DELETE)

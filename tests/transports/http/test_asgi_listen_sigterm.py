"""SIGTERM to a real HTTP server process (``server.run("http")``, uvicorn) with an open 2026
``subscriptions/listen``: the listen stream gets its final result, then the process exits.

Before, uvicorn waited for the (never-ending) listen response until its graceful-shutdown
timeout, then cut it off without a final result.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from pathlib import Path

import httpx
import pytest
from _asgi_harness import modern_body, modern_headers

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._sse import SSEDecoder

WAIT_S = 10.0
SERVER = """
from mcpkit.server import Server

server = Server("listen-sigterm", "1.0.0")


@server.tool
def add(a: int, b: int) -> int:
    return a + b


server.run("http", port=0, log_level="warning")
"""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


async def test_sigterm_ends_an_open_listen_with_its_final_result(tmp_path: Path) -> None:
    script = tmp_path / "listen_server.py"
    script.write_text(SERVER)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stderr=asyncio.subprocess.PIPE
    )
    try:
        assert proc.stderr is not None
        line = (await asyncio.wait_for(proc.stderr.readline(), WAIT_S)).decode()
        found = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)$", line.strip())
        assert found, line
        body = modern_body(7, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        messages = []
        async with (
            httpx.AsyncClient(timeout=WAIT_S) as http,
            http.stream("POST", found.group(1), json=body, headers=modern_headers(body)) as r,
        ):
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            decoder = SSEDecoder()
            async with asyncio.timeout(WAIT_S):
                async for chunk in r.aiter_bytes():
                    for event in decoder.feed(chunk):
                        if not event.data:
                            continue
                        message = decode_json(event.data)
                        messages.append(message)
                        if message.get("method") == "notifications/subscriptions/acknowledged":
                            proc.send_signal(signal.SIGTERM)  # the stream is open: stop now
        assert [m.get("method") for m in messages] == [
            "notifications/subscriptions/acknowledged",
            None,
        ], messages
        final = messages[-1]
        assert final["id"] == 7 and final["result"]["resultType"] == "complete", final
        # uvicorn re-raises the signal it handled once it has shut down: ended by SIGTERM
        assert await asyncio.wait_for(proc.wait(), WAIT_S) in (0, -signal.SIGTERM)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

"""The official SDK's client (``mcp`` 2.3.0) driving an mcpkit HTTP server; run with the peer venv.

``python mcp_client.py URL MODE`` (MODE: ``legacy``, ``2026-07-28`` or ``auto`` over Streamable
HTTP; ``sse`` for the 2024-11-05 HTTP+SSE transport, URL being the SSE endpoint) exercises tools,
progress, a question to the user (a server→client request in legacy, MRTR in 2026), resources and
an ``x-mcp-header`` tool, then prints one JSON object summarising what it saw, for the test.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import mcp_types as types
from mcp import Client


async def answer(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Grace"})


async def main(url: str, mode: str) -> None:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    target: Any = url
    if mode == "sse":
        from mcp.client.sse import sse_client

        target, mode = sse_client(url), "legacy"
    async with Client(target, mode=mode, elicitation_callback=answer) as client:
        tools = await client.list_tools()
        added = await client.call_tool("add", {"a": 20, "b": 22})
        stepped = await client.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
        asked = await client.call_tool("ask", {})
        region = await client.call_tool("region", {"region": "eu-west", "size": 2})
        read = await client.read_resource("test://static")
        summary = {
            "tools": sorted(t.name for t in tools.tools),
            "add": added.content[0].text,  # type: ignore[union-attr]
            "progress": progress,
            "progress_text": stepped.content[0].text,  # type: ignore[union-attr]
            "ask": asked.content[0].text,  # type: ignore[union-attr]
            "region": region.content[0].text,  # type: ignore[union-attr]
            "resource": read.contents[0].text,  # type: ignore[union-attr]
        }
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))

"""The official SDK's client (mcp 2.3.0) driving the gateway over Streamable HTTP.

``python sdk_client.py URL TOKEN MODE`` (run with the peer venv; MODE is ``legacy`` or
``2026-07-28``): lists the tools, calls an allowed one, one that needs an answer to an
elicitation (asked by a backend behind the gateway), and one the policy denies; prints one JSON
summary line.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def answer(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Grace"})


async def main(url: str, token: str, mode: str) -> None:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    summary: dict[str, Any] = {}
    async with Client(
        streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=answer
    ) as client:
        tools = (await client.list_tools()).tools
        summary["tools"] = sorted(t.name for t in tools)
        result = await client.call_tool("weather__forecast", {"city": "Oslo"})
        summary["forecast"] = [c.text for c in result.content if c.type == "text"]
        result = await client.call_tool("crm__search_customers", {"query": "ada"})
        summary["search"] = result.structured_content
        result = await client.call_tool("weather__whoami", {})
        summary["whoami"] = [c.text for c in result.content if c.type == "text"]
        try:
            denied = await client.call_tool("notes__delete_note", {"name": "readme"})
            summary["denied"] = {"isError": denied.is_error, "content": str(denied.content)}
        except Exception as exc:  # the SDK raises the JSON-RPC error
            summary["denied"] = {
                "error": str(exc),
                "code": getattr(getattr(exc, "error", None), "code", None),
            }
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))

"""The official SDK's client (``mcp`` 2.3.0) against the deployment; run with the peer venv.

``python sdk_client.py URL MODE CALLS`` calls ``whoami`` CALLS times and ``ask`` once (the
elicitation is answered "Grace"), then prints one JSON line:
``{"whoami": [pid, ...], "ask": text}``.
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


async def main(url: str, mode: str, calls: int) -> None:
    async with Client(url, mode=mode, elicitation_callback=answer) as client:
        pids = []
        for _ in range(calls):
            result = await client.call_tool("whoami", {})
            pids.append(int(result.content[0].text))  # type: ignore[union-attr]
        asked = await client.call_tool("ask", {})
    print(json.dumps({"whoami": pids, "ask": asked.content[0].text}))  # type: ignore[union-attr]


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))

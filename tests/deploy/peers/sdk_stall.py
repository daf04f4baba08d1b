"""The official SDK's client (``mcp`` 2.3.0) in a legacy session, calling a tool whose worker is
about to be killed; run with the peer venv.

``python sdk_stall.py URL`` calls ``stall``, prints ``{"running_on": pid}`` when the tool's progress
notification arrives, then ``{"error": {"code": c, "message": m}}`` (or ``{"result": ...}``) once
the call ends. The SDK resumes the call's stream with ``Last-Event-ID`` by itself when the
connection drops.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import Client
from mcp.shared.exceptions import MCPError


async def main(url: str) -> None:
    async with Client(url, mode="legacy") as client:

        async def progress(value: float, total: float | None, message: str | None) -> None:
            print(json.dumps({"running_on": int(message or 0)}), flush=True)

        try:
            result = await client.call_tool("stall", {}, progress_callback=progress)
        except MCPError as exc:
            error = getattr(exc, "error", None)
            code = getattr(error, "code", None)
            print(json.dumps({"error": {"code": code, "message": str(exc)}}), flush=True)
        else:
            print(json.dumps({"result": result.model_dump(mode="json")}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

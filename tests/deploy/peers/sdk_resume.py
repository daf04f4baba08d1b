"""The official SDK's client (``mcp`` 2.3.0) in a legacy session, printing every resource update
its ``GET`` stream delivers; run with the peer venv.

``python sdk_resume.py URL URI,URI,...`` subscribes to each URI, prints ``{"subscribed": n}``,
then ``{"updated": uri}`` per ``notifications/resources/updated`` until it is killed. The SDK
reconnects its ``GET`` stream with ``Last-Event-ID`` by itself when the connection drops.
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings
from typing import Any

from mcp import Client


async def show(message: Any) -> None:
    note = getattr(message, "root", message)
    if getattr(note, "method", None) == "notifications/resources/updated":
        print(json.dumps({"updated": note.params.uri}), flush=True)


async def main(url: str, uris: list[str]) -> None:
    warnings.simplefilter("ignore")  # resources/subscribe is deprecated in 2026, not in legacy
    async with Client(url, mode="legacy", message_handler=show) as client:
        for uri in uris:
            await client.subscribe_resource(uri)
        print(json.dumps({"subscribed": len(uris)}), flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2].split(",")))

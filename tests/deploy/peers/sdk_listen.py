"""The official SDK's client (``mcp`` 2.3.0) listening for one resource update; run with the peer
venv.

``python sdk_listen.py URL URI`` opens a 2026-07-28 ``subscriptions/listen`` for URI, prints
``{"acknowledged": [...]}`` once the server acknowledged it, then ``{"updated": uri}`` for the
first update, and exits.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import Client
from mcp.shared.subscriptions import ResourceUpdated


async def main(url: str, uri: str) -> None:
    async with (
        Client(url, mode="2026-07-28") as client,
        client.listen(resource_subscriptions=[uri]) as subscription,
    ):
        honored = sorted(subscription.honored.resource_subscriptions or [])
        print(json.dumps({"acknowledged": honored}), flush=True)
        async for event in subscription:
            if isinstance(event, ResourceUpdated):
                print(json.dumps({"updated": event.uri}), flush=True)
                return


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))

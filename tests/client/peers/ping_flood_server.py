"""A stdlib stdio MCP server (2025-11-25) that answers the first ``tools/call`` only after
sending the client 20 000 ``ping`` requests in one go, without reading meanwhile (so the
client's answers back up). The text of each answer says how many pongs it had read by then."""

from __future__ import annotations

import json
import sys

PINGS = 20_000


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")


def main() -> None:
    pongs = 0
    flooded = False
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "ping-flood", "version": "1"}}})  # fmt: skip
        elif method == "server/discover":
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": "Method not found"}})  # fmt: skip
        elif method == "tools/list":
            tool = {"name": "t", "inputSchema": {"type": "object"}}
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [tool]}})
        elif method == "tools/call":
            if not flooded:
                flooded = True
                for n in range(PINGS):
                    send({"jsonrpc": "2.0", "id": f"ping-{n}", "method": "ping"})
            send({"jsonrpc": "2.0", "id": message["id"],
                  "result": {"content": [{"type": "text", "text": f"pongs {pongs}"}]}})  # fmt: skip
        elif "result" in message or "error" in message:
            pongs += 1
        sys.stdout.flush()


if __name__ == "__main__":
    main()

"""The raw floor: a bare stdlib JSON-RPC loop on stdio, with no MCP library at all.

It answers just enough of MCP for the benchmark driver (initialize, server/discover, ping,
tools/list, tools/call for the tools of toolset.py) so that every other server's numbers can be
read as a multiple of "the least any Python process could do here": one json.loads and one
json.dumps per message, line-buffered I/O. It validates nothing, which is exactly why it is a
floor and not a server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from httpserve import ServerArgs
from toolset import (
    ADD_DESCRIPTION,
    BLOB_CHAR,
    BLOB_DESCRIPTION,
    ECHO_DESCRIPTION,
    raw_definition,
)

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
SERVER_INFO = {"name": "raw-stdio-floor", "version": "0.0.0"}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": ECHO_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "add",
        "description": ADD_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
    {
        "name": "blob",
        "description": BLOB_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {"size": {"type": "integer"}},
            "required": ["size"],
        },
    },
    {
        "name": "sync_echo",
        "description": "Echo on a worker thread.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
]


def _is_modern(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta


def _call_tool(params: dict[str, Any]) -> dict[str, Any]:
    name = params.get("name")
    args = params.get("arguments") or {}
    if name == "echo" or name == "sync_echo":
        return {"content": [{"type": "text", "text": str(args.get("text", ""))}]}
    if name == "blob":
        return {"content": [{"type": "text", "text": BLOB_CHAR * int(args["size"])}]}
    if name == "add":
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
    return {"content": [{"type": "text", "text": f"unknown tool {name!r}"}], "isError": True}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one message, or None for a notification."""
    if "id" not in message:
        return None
    method = message.get("method")
    params = message.get("params") or {}
    modern = _is_modern(params)
    result: dict[str, Any]
    if method == "initialize":
        result = {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": SERVER_INFO,
        }
    elif method == "server/discover":
        result = {
            "supportedVersions": [MODERN_VERSION],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
        if modern:
            result.update(ttlMs=0, cacheScope="public")
    elif method == "tools/call":
        result = _call_tool(params)
    elif method == "ping":
        result = {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": f"Method not found: {method}"},
        }
    if modern:
        result["resultType"] = "complete"
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    TOOLS.extend(raw_definition(i) for i in range(ServerArgs(sys.argv).tools))
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        response = answer(json.loads(line))
        if response is not None:
            out.write(json.dumps(response, separators=(",", ":")) + "\n")
            out.flush()


if __name__ == "__main__":
    main()

"""The raw HTTP floor: a bare ASGI app under the same uvicorn (h11, asyncio) as everyone else.

It answers MCP's Streamable HTTP just enough for the benchmark driver, with the raw stdio
floor's `answer()` for the JSON-RPC part: POST /mcp with one message, a JSON (`--json`) or a
one-event SSE answer, `Mcp-Session-Id` minted on `initialize` and checked afterwards (404 for
an unknown one), 202 for notifications, DELETE ends a session. It validates nothing else, which
is why it is a floor: what any Python server on this HTTP stack costs at least.

    python benchmarks/raw_asgi_server.py --http --port 8000 [--json] [--tools N]
"""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from httpserve import PATH, ServerArgs, run_uvicorn
from raw_stdio_server import TOOLS, answer
from toolset import raw_definition

SESSION_HEADER = b"mcp-session-id"

Scope = dict[str, Any]
Receive = Any
Send = Any


class RawApp:
    """The ASGI app; ``sessions`` maps a session id to its negotiated version."""

    def __init__(self, json_response: bool) -> None:
        self.json_response = json_response
        self.sessions: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = await receive()
                if event["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif event["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if scope["path"] != PATH:
            await _respond(send, 404, b"")
            return
        headers = dict(scope["headers"])
        session = headers.get(SESSION_HEADER, b"").decode()
        method = scope["method"]
        if method == "DELETE":
            await _respond(send, 200 if self.sessions.pop(session, None) else 404, b"")
            return
        if method != "POST":
            await _respond(send, 405, b"")
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        message = json.loads(body)
        if session and session not in self.sessions:
            await _respond(send, 404, b"")
            return
        response = answer(message)
        if response is None:
            await _respond(send, 202, b"")
            return
        extra: list[tuple[bytes, bytes]] = []
        if message.get("method") == "initialize":
            session = secrets.token_hex(16)
            self.sessions[session] = response["result"]["protocolVersion"]
            extra.append((SESSION_HEADER, session.encode()))
        payload = json.dumps(response, separators=(",", ":")).encode()
        if self.json_response:
            await _respond(send, 200, payload, b"application/json", extra)
        else:
            event_bytes = b"event: message\ndata: " + payload + b"\n\n"
            await _respond(send, 200, event_bytes, b"text/event-stream", extra)


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes = b"text/plain",
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send(
        {"type": "http.response.start", "status": status, "headers": headers + (extra or [])}
    )
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    args = ServerArgs(sys.argv)
    TOOLS.extend(raw_definition(i) for i in range(args.tools))
    run_uvicorn(RawApp(args.json), args.port)


if __name__ == "__main__":
    main()

"""What mcpkit's own code does for one HTTP request: Python calls and bytecodes per function.

The instruction counts (http_instructions.py) say how much a request costs in all; this says where
mcpkit's share goes. It serves the benchmark's ``tools/call`` echo in-process through the same
ASGI app as ``mcpkit_server.py --http`` (no uvicorn, no socket: uvicorn and h11 are the floor's
too), warms it up, then traces one request with ``sys.settrace`` counting executed bytecodes per
function (``f_trace_opcodes``) and the calls into each.

Usage: python benchmarks/http_request_trace.py [--mode modern|legacy-json] [--top N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from driver import ECHO_TEXT, LEGACY_VERSION, MODERN_VERSION, opening_request, request
from toolset import BASIC_TOOLS

from mcpkit.server import Server
from mcpkit.server._http_entry import asgi_app

WARM_UP_CALLS = 50


def _scope(headers: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


class _Exchange:
    """One request's ASGI receive/send, as uvicorn would drive them (a body in one message)."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        return {"type": "http.request", "body": self.body, "more_body": False}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


class _Counts:
    def __init__(self) -> None:
        self.opcodes: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    def tracer(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "call":
            self.calls[_where(frame)] += 1
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            return self._local
        return None

    def _local(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "opcode":
            self.opcodes[_where(frame)] += 1
        return self._local


def _where(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    marker = "/mcpkit/"
    short = path[path.rfind(marker) + len(marker) :] if marker in path else Path(path).name
    return f"{short}:{code.co_firstlineno} {code.co_qualname}"


async def _main(mode: str, top: int) -> None:
    server = Server("trace", version="0.1.0")
    for fn, description in BASIC_TOOLS:
        server.tool(fn, description=description)
    app = asgi_app(server, json_response=True)
    lifespan: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started = asyncio.Event()

    async def lifespan_send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    await lifespan.put({"type": "lifespan.startup"})
    runner = asyncio.create_task(app({"type": "lifespan"}, lifespan.get, lifespan_send))
    await asyncio.wait_for(started.wait(), 10)

    headers = {
        "Host": "127.0.0.1:8000",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    era = "modern" if mode == "modern" else "legacy"
    if era == "modern":
        headers |= {"MCP-Protocol-Version": MODERN_VERSION, "Mcp-Method": "tools/call"}
        headers["Mcp-Name"] = "echo"
    else:
        exchange = _Exchange(json.dumps(opening_request(era)).encode())
        await app(_scope(headers), exchange.receive, exchange.send)
        session = dict(exchange.sent[0]["headers"])[b"mcp-session-id"].decode()
        headers |= {"MCP-Protocol-Version": LEGACY_VERSION, "Mcp-Session-Id": session}
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        await app(_scope(headers), _Exchange(note).receive, _Exchange(note).send)
    params = {"name": "echo", "arguments": {"text": ECHO_TEXT}}

    async def one_call(call_id: int, counts: _Counts | None) -> bytes:
        body = json.dumps(request(call_id, "tools/call", params, era)).encode()
        exchange = _Exchange(body)
        scope = _scope(headers)
        if counts is not None:
            sys.settrace(counts.tracer)
        try:
            await app(scope, exchange.receive, exchange.send)
        finally:
            sys.settrace(None)
        return b"".join(m.get("body", b"") for m in exchange.sent)

    for call_id in range(1, WARM_UP_CALLS + 1):
        await one_call(call_id, None)
    counts = _Counts()
    answer = await one_call(WARM_UP_CALLS + 1, counts)
    assert ECHO_TEXT.encode() in answer, answer

    own = {k: v for k, v in counts.opcodes.items() if not k.startswith(("http_request_trace",))}
    print(f"mode {mode}: {sum(own.values())} bytecodes in {sum(counts.calls.values())} calls")
    print(f"{'bytecodes':>9} {'calls':>5}  function")
    for where, n in Counter(own).most_common(top):
        print(f"{n:>9} {counts.calls[where]:>5}  {where}")
    lifespan.put_nowait({"type": "lifespan.shutdown"})
    await asyncio.wait_for(runner, 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("modern", "legacy-json"), default="modern")
    parser.add_argument("--top", type=int, default=80)
    args = parser.parse_args()
    asyncio.run(_main(args.mode, args.top))


if __name__ == "__main__":
    main()

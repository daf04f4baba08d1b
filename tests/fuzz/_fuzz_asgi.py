"""The Streamable HTTP ASGI app as a fuzz target: random methods, paths, headers and bodies.

:class:`AsgiTarget` holds one running :class:`~mcpkit.transports.http.McpHttpApp` (lifespan
entered, reaper running) and drives it directly through the ASGI interface, one request at a
time, so thousands of requests fit in a CI budget. :meth:`AsgiTarget.check` sends one request
and asserts the contract every answer must keep:

* the app never raises and always finishes (a streamed answer ends once the client leaves);
* exactly one ``http.response.start``, with a 2xx or 4xx status (a 5xx is a server bug: the
  app is started, so "misconfigured" cannot happen) — 404 off the endpoint, 405 for other HTTP
  methods on it, 400 for an unparseable JSON POST;
* a JSON body parses, and a JSON-RPC body is a well-formed response (``result`` object, or an
  ``error`` with an integer code and a message); an SSE body carries only such messages;
* afterwards the app still serves: a plain 2026 ``server/discover`` gets 200 and a result.

Shared by ``test_fuzz_asgi.py`` (hypothesis) and ``scripts/fuzz asgi`` (atheris).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Final

from mcpkit.protocol._http_headers import request_headers
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.server import Context, Header, Server
from mcpkit.transports.http import McpHttpApp

__all__ = ["HOST", "MODERN", "AsgiTarget", "Outcome", "discover_request", "modern_request"]

HOST: Final = "127.0.0.1:8000"
MODERN: Final = "2026-07-28"
LEGACY: Final = "2025-11-25"
ENDPOINT: Final = "/mcp"
STREAM_GRACE_S: Final = 0.5
"""How long the fake client reads a streamed answer before it hangs up."""
BOUND_S: Final = 15.0
"""Bound on one request, hang-up included: past it the app is hung, a failure."""
BASE_HEADERS: Final = (
    ("host", HOST),
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
)


def build_server() -> Server:
    """Small but varied: tools with and without header params, a resource template, a prompt."""
    server = Server("fuzz", "1.0.0")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    def region(region: Annotated[str, Header("Region")], size: int = 1) -> str:
        """Mirror ``region`` into a header."""
        return f"{region}/{size}"

    @server.tool
    async def chatty(ctx: Context, steps: int = 2) -> str:
        """Send progress and a log line (an SSE answer), then finish."""
        for step in range(1, min(max(steps, 0), 5) + 1):
            await ctx.report_progress(step, steps)
        await ctx.info("done")
        return "ok"

    @server.resource("fuzz://item/{name}")
    def item(name: str) -> str:
        """One item by name."""
        return f"item {name}"

    @server.prompt
    def greet(who: str) -> str:
        """A greeting prompt."""
        return f"Hello {who}"

    return server


def modern_request(
    request_id: Any, method: str, params: Mapping[str, Any] | None = None
) -> tuple[list[tuple[str, str]], bytes]:
    """A conforming 2026 POST (headers mirrored from the body) for ``method``."""
    body_params = dict(params or {})
    meta = (
        dict(body_params.get("_meta") or {}) if isinstance(body_params.get("_meta"), dict) else {}
    )
    meta.setdefault("io.modelcontextprotocol/protocolVersion", MODERN)
    meta.setdefault("io.modelcontextprotocol/clientCapabilities", {})
    body_params["_meta"] = meta
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}
    headers = list(BASE_HEADERS)
    try:
        mirrored = request_headers(body, protocol_version=MODERN)
    except Exception:  # a deliberately odd body (non-string name): send what we have
        mirrored = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    headers += [(k.lower(), v) for k, v in mirrored.items()]
    return headers, json.dumps(body).encode()


def discover_request() -> tuple[list[tuple[str, str]], bytes]:
    return modern_request("alive", "server/discover")


@dataclass
class Outcome:
    """What the app sent back for one request."""

    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    starts: int = 0
    complete: bool = False

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def _check_jsonrpc(message: Any, where: str) -> None:
    assert isinstance(message, dict), f"{where}: not a JSON object: {message!r}"[:300]
    assert message.get("jsonrpc") == "2.0", f"{where}: {message!r}"[:300]
    if "method" in message:  # a server->client request or notification on a stream
        assert isinstance(message["method"], str)
        return
    if "error" in message:
        error = message["error"]
        assert isinstance(error, dict) and isinstance(error.get("code"), int), message
        assert isinstance(error.get("message"), str) and error["message"], message
        return
    assert isinstance(message.get("result"), dict), f"{where}: {message!r}"[:300]


class AsgiTarget:
    """One started app; use as ``async with AsgiTarget() as target``."""

    def __init__(self, **options: Any) -> None:
        self.app: McpHttpApp = build_server().http_app(**options)
        self._stack = contextlib.AsyncExitStack()
        self.requests = 0
        self.hung_up = 0
        """Requests still running after the grace period, ended by the client hanging up."""
        self.statuses: dict[int, int] = {}
        """How many answers had each status (what the fuzzer reached, for the report)."""

    async def __aenter__(self) -> AsgiTarget:
        await self._stack.enter_async_context(self.app.lifespan())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def send(
        self,
        method: str,
        path: str,
        headers: Sequence[tuple[str | bytes, str | bytes]],
        chunks: Sequence[bytes],
        *,
        client: tuple[str, int] = ("127.0.0.1", 50000),
    ) -> Outcome:
        """One request through the ASGI interface; the client hangs up once the answer ends."""
        self.requests += 1
        outcome = Outcome()
        done = asyncio.Event()
        pending = list(chunks) or [b""]
        raw_headers = [
            (k if isinstance(k, bytes) else k.encode("latin-1", "replace"),
             v if isinstance(v, bytes) else v.encode("latin-1", "replace"))
            for k, v in headers
        ]  # fmt: skip
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode("utf-8", "surrogateescape"),
            "query_string": b"",
            "root_path": "",
            "headers": raw_headers,
            "client": client,
            "server": ("127.0.0.1", 8000),
        }

        async def receive() -> dict[str, Any]:
            if pending:
                chunk = pending.pop(0)
                return {"type": "http.request", "body": chunk, "more_body": bool(pending)}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: Mapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                outcome.starts += 1
                outcome.status = message["status"]
                outcome.headers = {
                    bytes(k).decode("latin-1").lower(): bytes(v).decode("latin-1")
                    for k, v in message.get("headers", [])
                }
            elif message["type"] == "http.response.body":
                outcome.body += message.get("body", b"")
                if not message.get("more_body", False):
                    outcome.complete = True
                    done.set()

        call = asyncio.ensure_future(self.app(scope, receive, send))
        try:
            try:
                await asyncio.wait_for(asyncio.shield(call), STREAM_GRACE_S)
            except TimeoutError:
                self.hung_up += 1
            done.set()  # the client hangs up (or has read everything)
            await asyncio.wait_for(call, BOUND_S)
        finally:
            if not call.done():
                call.cancel()
        return outcome

    async def check(
        self,
        method: str,
        path: str,
        headers: Sequence[tuple[str | bytes, str | bytes]],
        chunks: Sequence[bytes],
    ) -> Outcome:
        """Send one request and assert the invariants in the module docstring."""
        outcome = await self.send(method, path, headers, chunks)
        if outcome.status is not None:
            self.statuses[outcome.status] = self.statuses.get(outcome.status, 0) + 1
        assert outcome.starts == 1, f"{outcome.starts} response starts for {method} {path}"
        status = outcome.status
        assert status is not None and (200 <= status < 300 or 400 <= status < 500), (
            status,
            outcome.body[:300],
        )
        names = [(_text(k).lower(), _text(v)) for k, v in headers]
        clean_host = [v for k, v in names if k == "host"] == [HOST] and not any(
            k == "origin" for k, _ in names
        )
        if clean_host and path not in (ENDPOINT, ENDPOINT + "/", "/healthz"):
            assert status == 404, (status, method, path)
        if clean_host and path == ENDPOINT and method not in ("GET", "POST", "DELETE"):
            assert status == 405, (status, method)
        if outcome.content_type == "application/json" and outcome.body:
            value = json.loads(outcome.body)
            if isinstance(value, dict) and "jsonrpc" in value:
                _check_jsonrpc(value, "JSON body")
        elif outcome.content_type == "text/event-stream":
            decoder = SSEDecoder()
            for event in decoder.feed(outcome.body):
                if event.data:
                    _check_jsonrpc(json.loads(event.data), "SSE event")
        return outcome

    async def legacy_session(self) -> str:
        """Open a legacy session the well-behaved way; returns its id."""
        body = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "1"},
            },
        }
        outcome = await self.send("POST", ENDPOINT, BASE_HEADERS, [json.dumps(body).encode()])
        assert outcome.status == 200, (outcome.status, outcome.body[:300])
        session = outcome.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        headers = [*BASE_HEADERS, ("mcp-session-id", session), ("mcp-protocol-version", LEGACY)]
        done = await self.send("POST", ENDPOINT, headers, [json.dumps(note).encode()])
        assert done.status == 202, (done.status, done.body[:300])
        return session

    async def assert_alive(self) -> None:
        """The app still answers a plain, valid request."""
        headers, body = discover_request()
        outcome = await self.send("POST", ENDPOINT, headers, [body])
        assert outcome.status == 200, (outcome.status, outcome.body[:300])
        assert "result" in json.loads(outcome.body), outcome.body[:300]

    async def assert_idle(self) -> None:
        """No handler or stream task is left behind (bounded wait)."""
        await asyncio.wait_for(self.app.wait_idle(), BOUND_S)
        assert self.app.task_count == 0

"""A raw HTTP/1.1 benchmark driver for Streamable HTTP MCP servers, with no MCP SDK in the loop.

Like driver.py for stdio, one small client measures every server: asyncio streams and a
hand-written HTTP/1.1 exchange (keep-alive, Content-Length or chunked bodies, JSON or SSE
answers), so the driver costs little next to any server and is the same for all of them.
Modes:

- ``legacy-sse``: 2025-11-25 sessions (`initialize`, `Mcp-Session-Id`), answers as SSE streams;
- ``legacy-json``: the same with `application/json` answers (server started with `--json`);
- ``modern``: 2026-07-28 stateless POSTs (`_meta` in the body, `MCP-Protocol-Version`,
  `Mcp-Method`, `Mcp-Name` headers), no session.

For each: sequential `tools/call` on one connection (calls/s, p50/p99, server CPU per call) and
CONCURRENT_CLIENTS clients on their own connections at once. :func:`measure_sessions` measures
the server memory one idle legacy session costs.

Usage: python benchmarks/http_driver.py --mode legacy-json -- CMD... (CMD gets --http --port N)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from driver import (
    ECHO_TEXT,
    LEGACY_VERSION,
    MODERN_VERSION,
    PeerError,
    expect_result,
    opening_request,
    percentile,
    request,
)
from procstats import CpuClock, rss_bytes

HOST = "127.0.0.1"
PATH = "/mcp"
MODES = ("legacy-sse", "legacy-json", "modern")
CONCURRENT_CLIENTS = 32
READY_TIMEOUT_S = 60.0
"""A server that does not accept connections within this long has failed to start."""
READY_POLL_S = 0.05
RESPONSE_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 5.0
MIN_TIMED_CALLS = 100


def mode_flags(mode: str) -> list[str]:
    """The server flags a mode needs (see httpserve.ServerArgs)."""
    if mode == "legacy-sse":
        return []
    if mode == "legacy-json":
        return ["--json"]
    return ["--json", "--stateless"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class HttpResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def message(self, request_id: int) -> dict[str, Any]:
        """The JSON-RPC response to `request_id` in this body (JSON, or SSE events)."""
        if self.status != 200:
            raise PeerError(f"HTTP {self.status}: {self.body[:300]!r}")
        kind = self.headers.get("content-type", "")
        if kind.startswith("application/json"):
            found: dict[str, Any] = json.loads(self.body)
            return found
        if kind.startswith("text/event-stream"):
            for event in self.body.replace(b"\r\n", b"\n").split(b"\n\n"):
                data = b"\n".join(
                    line[5:].lstrip(b" ")
                    for line in event.split(b"\n")
                    if line.startswith(b"data:")
                )
                if not data.strip():
                    continue  # a priming event, or a comment
                message: dict[str, Any] = json.loads(data)
                if message.get("id") == request_id:
                    return message
            raise PeerError(f"no response to id {request_id} in the SSE stream")
        raise PeerError(f"unexpected content type {kind!r}")


class HttpConnection:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(HOST, self.port)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass

    async def send(self, method: str, body: bytes, headers: dict[str, str]) -> HttpResponse:
        assert self._reader is not None and self._writer is not None
        lines = [
            f"{method} {PATH} HTTP/1.1",
            f"Host: {HOST}:{self.port}",
            f"Content-Length: {len(body)}",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return await asyncio.wait_for(self._read_response(), RESPONSE_TIMEOUT_S)

    async def _read_response(self) -> HttpResponse:
        assert self._reader is not None
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self._reader.readuntil(b"\r\n")
                    break
                parts.append((await self._reader.readexactly(size + 2))[:-2])
            body = b"".join(parts)
        elif status in (202, 204) or 100 <= status < 200:
            body = b""
        else:
            body = await self._reader.read()
        return HttpResponse(status, headers, body)


class McpHttpClient:
    """One MCP client over one connection: a legacy session, or stateless 2026 requests."""

    def __init__(self, port: int, mode: str) -> None:
        self.conn = HttpConnection(port)
        self.mode = mode
        self.session_id: str | None = None
        self._next_id = 0

    @property
    def era(self) -> str:
        return "modern" if self.mode == "modern" else "legacy"

    def _headers(self, method: str, name: str | None) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.era == "modern":
            headers["MCP-Protocol-Version"] = MODERN_VERSION
            headers["Mcp-Method"] = method
            if name is not None:
                headers["Mcp-Name"] = name
        elif method != "initialize":
            headers["MCP-Protocol-Version"] = LEGACY_VERSION
            if self.session_id is not None:
                headers["Mcp-Session-Id"] = self.session_id
        return headers

    async def open(self) -> None:
        """Connect; in a legacy mode also initialize a session."""
        await self.conn.open()
        if self.era == "modern":
            return
        message = opening_request("legacy")
        response = await self.conn.send(
            "POST", json.dumps(message).encode(), self._headers("initialize", None)
        )
        expect_result(response.message(0), "initialize")
        self.session_id = response.headers.get("mcp-session-id")
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        answer = await self.conn.send(
            "POST", json.dumps(note).encode(), self._headers("notifications/initialized", None)
        )
        if answer.status not in (200, 202):
            raise PeerError(f"notifications/initialized got HTTP {answer.status}")

    async def call(self, method: str, params: dict[str, Any], name: str | None) -> dict[str, Any]:
        self._next_id += 1
        body = json.dumps(request(self._next_id, method, params, self.era)).encode()
        response = await self.conn.send("POST", body, self._headers(method, name))
        return expect_result(response.message(self._next_id), method)

    async def echo(self) -> None:
        await self.call("tools/call", {"name": "echo", "arguments": {"text": ECHO_TEXT}}, "echo")

    async def close(self) -> None:
        await self.conn.close()


class HttpServer:
    """A server process serving Streamable HTTP on a free local port."""

    def __init__(
        self,
        command: Sequence[str],
        extra: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [*command, "--http", "--port", str(self.port), *extra],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=env,
        )
        self.cpu = CpuClock(self.proc.pid)

    async def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise PeerError(f"server exited (code {self.proc.returncode}){self.log_tail()}")
            try:
                _, writer = await asyncio.open_connection(HOST, self.port)
            except OSError:
                await asyncio.sleep(READY_POLL_S)
                continue
            writer.close()
            return
        raise PeerError(f"server not listening after {READY_TIMEOUT_S:.0f} s{self.log_tail()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def log_tail(self, limit: int = 600) -> str:
        self._log.seek(0)
        text = self._log.read().decode(errors="replace").strip()
        return f"; server output: …{text[-limit:]}" if text else ""


@dataclass
class HttpMeasurement:
    """One run of one server in one HTTP mode."""

    sequential_calls_per_s: float
    sequential_p50_us: float
    sequential_p99_us: float
    sequential_server_cpu_us_per_call: float
    concurrent_calls_per_s: float
    concurrent_p50_us: float
    concurrent_p99_us: float
    concurrent_server_cpu_us_per_call: float


async def _timed_calls(
    client: McpHttpClient, calls: int, stop_at: float, latencies: list[float]
) -> None:
    for done in range(calls):
        sent = time.perf_counter()
        await client.echo()
        latencies.append(time.perf_counter() - sent)
        if sent > stop_at and done >= MIN_TIMED_CALLS // 4:
            return


async def _measure(
    command: Sequence[str], mode: str, calls: int, warmup: int, max_seconds: float
) -> HttpMeasurement:
    server = HttpServer(command, mode_flags(mode))
    clients: list[McpHttpClient] = []
    try:
        await server.wait_ready()
        first = McpHttpClient(server.port, mode)
        clients.append(first)
        await first.open()
        for _ in range(warmup):
            await first.echo()

        latencies: list[float] = []
        before = server.cpu.read()
        began = time.perf_counter()
        await _timed_calls(first, calls, began + max_seconds, latencies)
        sequential_s = time.perf_counter() - began
        sequential_cpu = CpuClock.delta(before, server.cpu.read())
        sequential = sorted(latencies)

        for _ in range(CONCURRENT_CLIENTS - 1):
            clients.append(McpHttpClient(server.port, mode))
        await asyncio.gather(*(c.open() for c in clients[1:]))
        await asyncio.gather(*(c.echo() for c in clients))  # every connection warm
        per_client = max(1, calls // CONCURRENT_CLIENTS * 2)
        latencies = []
        before = server.cpu.read()
        began = time.perf_counter()
        stop_at = began + max_seconds
        await asyncio.gather(*(_timed_calls(c, per_client, stop_at, latencies) for c in clients))
        concurrent_s = time.perf_counter() - began
        concurrent_cpu = CpuClock.delta(before, server.cpu.read())
        concurrent = sorted(latencies)
    finally:
        for client in clients:
            await client.close()
        server.stop()
    return HttpMeasurement(
        sequential_calls_per_s=len(sequential) / sequential_s,
        sequential_p50_us=percentile(sequential, 0.5) * 1e6,
        sequential_p99_us=percentile(sequential, 0.99) * 1e6,
        sequential_server_cpu_us_per_call=sequential_cpu / len(sequential) * 1e6,
        concurrent_calls_per_s=len(concurrent) / concurrent_s,
        concurrent_p50_us=percentile(concurrent, 0.5) * 1e6,
        concurrent_p99_us=percentile(concurrent, 0.99) * 1e6,
        concurrent_server_cpu_us_per_call=concurrent_cpu / len(concurrent) * 1e6,
    )


def measure_http(
    command: Sequence[str], mode: str, calls: int, warmup: int, max_seconds: float = 1e9
) -> HttpMeasurement:
    """Start `command` in `mode`, measure sequential and concurrent calls, stop it."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    return asyncio.run(_measure(command, mode, calls, warmup, max_seconds))


@dataclass
class SessionMeasurement:
    """Server memory for idle legacy sessions (JSON mode)."""

    sessions: int
    rss_one_session_bytes: int
    rss_all_sessions_bytes: int
    bytes_per_session: float


async def _sessions(command: Sequence[str], count: int) -> SessionMeasurement:
    server = HttpServer(command, mode_flags("legacy-json"))
    try:
        await server.wait_ready()
        first = McpHttpClient(server.port, "legacy-json")
        await first.open()
        await first.echo()
        rss_one = rss_bytes(server.proc.pid)
        opener = McpHttpClient(server.port, "legacy-json")
        ids: list[str | None] = []
        for _ in range(count):  # every session: initialize + initialized, then left idle
            await opener.open()
            ids.append(opener.session_id)
            await opener.close()
            opener = McpHttpClient(server.port, "legacy-json")
        rss_all = rss_bytes(server.proc.pid)
        if len(set(ids)) != count or None in ids:
            raise PeerError("the server did not mint a distinct Mcp-Session-Id per initialize")
        # The first session still works: idle sessions were kept, not dropped.
        await first.echo()
        await first.close()
    finally:
        server.stop()
    return SessionMeasurement(
        sessions=count,
        rss_one_session_bytes=rss_one,
        rss_all_sessions_bytes=rss_all,
        bytes_per_session=(rss_all - rss_one) / count,
    )


def measure_sessions(command: Sequence[str], count: int) -> SessionMeasurement:
    """Open 1 then `count` more idle legacy sessions; server RSS growth per session."""
    return asyncio.run(_sessions(command, count))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=MODES, default="legacy-json")
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--sessions", type=int, help="measure N idle sessions instead")
    parser.add_argument("command", nargs="+", help="server command (after --)")
    args = parser.parse_args(argv)
    try:
        result: Any
        if args.sessions:
            result = measure_sessions(args.command, args.sessions)
        else:
            result = measure_http(args.command, args.mode, args.calls, args.warmup)
    except PeerError as exc:
        print(f"http driver: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(asdict(result), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

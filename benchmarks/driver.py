"""A raw JSON-RPC benchmark driver for MCP servers on stdio, with no MCP SDK in the loop.

Every server — the raw floor, mcpkit, the official SDK, FastMCP — is measured by this same
client, so differences are the servers' own. The driver speaks newline-delimited JSON over the
child's pipes with one `selectors` loop (non-blocking both ways, so pipelined writes can never
deadlock against unread responses). For one server command and one protocol era it measures:

- start → first answer: from just before spawning the process to the first response
  (`initialize` in the legacy era, `server/discover` in the 2026-07-28 era), and the CPU the
  server spent to get there;
- sequential `tools/call echo`: one call in flight at a time; calls/s, p50 and p99 latency and
  server CPU per call (from /proc, nanosecond precision: see procstats.py);
- pipelined `tools/call echo`: up to PIPELINE_WINDOW requests in flight; calls/s, CPU per call;
- a sync tool (`def`, run on a worker thread by every library): server CPU per call;
- `tools/list` (:func:`measure_list`, on a server started with `--tools N`);
- large results (:func:`measure_large`): latency, CPU and peak memory per result size.

Usage: python benchmarks/driver.py [--era legacy|modern] [--calls N] [--pipelined N] -- CMD...
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from procstats import CpuClock, peak_rss_bytes, reset_peak, rss_bytes

ERA_LEGACY = "legacy"
ERA_MODERN = "modern"
ERAS = (ERA_LEGACY, ERA_MODERN)
LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "mcpkit-bench-driver", "version": "0.1.0"}

READ_CHUNK_BYTES = 1 << 16
RESPONSE_TIMEOUT_S = 60.0  # a server that answers nothing for this long has failed the run
STOP_TIMEOUT_S = 5.0  # after closing stdin, wait this long before killing the server
PIPELINE_WINDOW = 1000
"""Requests in flight at once when pipelining: far beyond any latency, and below every
server's own queue bound (mcpkit refuses beyond 4,160 queued requests with -32603)."""
MIN_TIMED_CALLS = 200
"""A time-capped phase still makes at least this many calls."""
ECHO_TEXT = "hello, benchmark"


class PeerError(RuntimeError):
    """The server under test misbehaved: died, timed out, or answered with an error."""


def _meta(era: str) -> dict[str, Any]:
    if era == ERA_LEGACY:
        return {}
    return {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    }


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def request(request_id: int, method: str, params: dict[str, Any], era: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, **_meta(era)},
    }


def tool_call(request_id: int, era: str, name: str = "echo", **arguments: Any) -> bytes:
    arguments = arguments or {"text": ECHO_TEXT}
    return encode(request(request_id, "tools/call", {"name": name, "arguments": arguments}, era))


def opening_request(era: str) -> dict[str, Any]:
    """`initialize` (legacy) or `server/discover` (2026-07-28), id 0."""
    if era == ERA_LEGACY:
        return {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY_VERSION,
                "capabilities": {},
                "clientInfo": CLIENT_INFO,
            },
        }
    return request(0, "server/discover", {}, era)


def expect_result(response: dict[str, Any], what: str) -> dict[str, Any]:
    if "error" in response:
        raise PeerError(f"{what} failed: {response['error']}")
    result: dict[str, Any] = response["result"]
    if result.get("isError"):
        raise PeerError(f"{what} returned a tool error: {result.get('content')}")
    return result


class StdioPeer:
    """One server process and a non-blocking line-oriented exchange with it."""

    def __init__(self, command: Sequence[str]) -> None:
        # Kept open for the peer's lifetime (closed in close()), so no `with` block.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.cpu = CpuClock(self.proc.pid)
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._rbuf = bytearray()
        self.raw_bytes_read = 0

    def exchange(self, payload: bytes, responses: int) -> list[dict[str, Any]]:
        """Write `payload` and return the next `responses` responses (notifications skipped)."""
        return self.pipeline([payload] if payload else [], responses, window=0)

    def pipeline(
        self, requests: Sequence[bytes], responses: int, window: int
    ) -> list[dict[str, Any]]:
        """Write `requests` keeping at most `window` unanswered (0: no limit), return
        `responses` responses."""
        got: list[dict[str, Any]] = []
        pending = memoryview(b"")
        next_request = 0
        registered = False
        deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        while len(got) < responses or pending or next_request < len(requests):
            if not pending and next_request < len(requests):
                room = len(requests) - next_request
                if window:
                    room = min(room, window - (next_request - len(got)))
                if room > 0:
                    pending = memoryview(b"".join(requests[next_request : next_request + room]))
                    next_request += room
            if pending and not registered:
                self._selector.register(self._in, selectors.EVENT_WRITE)
                registered = True
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                raise PeerError(f"no answer within {RESPONSE_TIMEOUT_S:.0f} s{self._stderr_tail()}")
            for key, _ in self._selector.select(timeout):
                if key.fd == self._in:
                    try:
                        written = os.write(self._in, pending[:READ_CHUNK_BYTES])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError as exc:
                        raise PeerError(f"server closed its stdin{self._stderr_tail()}") from exc
                    pending = pending[written:]
                    if not pending:
                        self._selector.unregister(self._in)
                        registered = False
                else:
                    chunk = os.read(self._out, 4 * READ_CHUNK_BYTES)
                    if not chunk:
                        raise PeerError(
                            f"server exited (code {self.proc.poll()}){self._stderr_tail()}"
                        )
                    self.raw_bytes_read += len(chunk)
                    self._rbuf += chunk
                    got.extend(self._take_responses())
                    deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        return got

    def _take_responses(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        start = 0
        while True:
            end = self._rbuf.find(b"\n", start)
            if end < 0:
                break
            line = self._rbuf[start:end]
            start = end + 1
            if not line.strip():
                continue
            message = json.loads(line)
            if "id" in message and ("result" in message or "error" in message):
                found.append(message)
        del self._rbuf[:start]
        return found

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._selector.unregister(self._out)
            except (KeyError, ValueError):
                pass
            self.proc.stdin.close()  # type: ignore[union-attr]
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._selector.close()
        self._stderr.close()

    def _stderr_tail(self, limit: int = 600) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace").strip()
        return f"; server stderr: …{text[-limit:]}" if text else ""


def open_session(peer: StdioPeer, era: str) -> tuple[float, float]:
    """Do the era's opening exchange; return (start → first answer ms, server CPU ms so far)."""
    (response,) = peer.exchange(encode(opening_request(era)), 1)
    elapsed_ms = (time.perf_counter() - peer.started_at) * 1000
    cpu_ms = peer.cpu.read()[0] * 1000
    expect_result(response, "the opening request")
    if era == ERA_LEGACY:
        peer.exchange(encode({"jsonrpc": "2.0", "method": "notifications/initialized"}), 0)
    return elapsed_ms, cpu_ms


@dataclass
class Measurement:
    """One run of one server in one era (stdio)."""

    start_to_first_answer_ms: float
    startup_cpu_ms: float
    sequential_calls_per_s: float
    sequential_p50_us: float
    sequential_p99_us: float
    sequential_server_cpu_us_per_call: float
    pipelined_calls_per_s: float
    pipelined_server_cpu_us_per_call: float
    sync_tool_server_cpu_us_per_call: float


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    index = max(0, min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


class _Ids:
    def __init__(self) -> None:
        self.value = 0

    def next(self) -> int:
        self.value += 1
        return self.value


def _sequential(
    peer: StdioPeer, era: str, ids: _Ids, calls: int, max_seconds: float, name: str = "echo"
) -> tuple[list[float], float, float]:
    """(sorted latencies, wall seconds, server CPU seconds) of up to `calls` sequential calls."""
    latencies: list[float] = []
    before = peer.cpu.read()
    began = time.perf_counter()
    stop_at = began + max_seconds
    response: dict[str, Any] = {}
    for done in range(calls):
        sent = time.perf_counter()
        (response,) = peer.exchange(tool_call(ids.next(), era, name), 1)
        latencies.append(time.perf_counter() - sent)
        if sent > stop_at and done >= MIN_TIMED_CALLS:
            break
    elapsed = time.perf_counter() - began
    cpu = CpuClock.delta(before, peer.cpu.read())
    expect_result(response, f"tools/call {name}")
    latencies.sort()
    return latencies, elapsed, cpu


def measure(
    command: Sequence[str],
    era: str,
    calls: int,
    pipelined: int,
    warmup: int,
    max_seconds: float = 1e9,
    extra_starts: int = 0,
) -> Measurement:
    """Spawn `command`, run the stdio call measurements once in `era`, stop it.

    Each phase makes its number of calls, or stops after `max_seconds` (with at least
    MIN_TIMED_CALLS calls), so slow servers keep a run bounded. `extra_starts` more spawns
    (start → first answer → stop) make the startup figures medians of several starts: one
    start on a shared machine is too easily hit by someone else's burst.
    """
    peer = StdioPeer(command)
    try:
        first_answer_ms, startup_cpu_ms = open_session(peer, era)
        ids = _Ids()
        for _ in range(warmup):
            (response,) = peer.exchange(tool_call(ids.next(), era), 1)
            expect_result(response, "tools/call")

        latencies, sequential_s, sequential_cpu = _sequential(peer, era, ids, calls, max_seconds)

        count = pipelined
        if sequential_s > 0 and len(latencies) < calls:  # time-capped: scale the batch down
            count = max(MIN_TIMED_CALLS, min(pipelined, len(latencies)))
        batch = [tool_call(ids.next(), era) for _ in range(count)]
        before = peer.cpu.read()
        began = time.perf_counter()
        answers = peer.pipeline(batch, count, PIPELINE_WINDOW)
        pipelined_s = time.perf_counter() - began
        pipelined_cpu = CpuClock.delta(before, peer.cpu.read())
        errors = [a for a in answers if "error" in a]
        if errors:
            raise PeerError(f"{len(errors)} pipelined calls failed, first: {errors[0]['error']}")

        sync_calls = max(MIN_TIMED_CALLS, len(latencies) // 4)
        for _ in range(warmup // 4):
            peer.exchange(tool_call(ids.next(), era, "sync_echo", text=ECHO_TEXT), 1)
        sync_latencies, _, sync_cpu = _sequential(
            peer, era, ids, sync_calls, max_seconds / 4, "sync_echo"
        )
    finally:
        peer.close()
    starts = [(first_answer_ms, startup_cpu_ms)]
    for _ in range(extra_starts):
        again = StdioPeer(command)
        try:
            starts.append(open_session(again, era))
        finally:
            again.close()

    return Measurement(
        start_to_first_answer_ms=statistics.median(s[0] for s in starts),
        startup_cpu_ms=statistics.median(s[1] for s in starts),
        sequential_calls_per_s=len(latencies) / sequential_s,
        sequential_p50_us=percentile(latencies, 0.50) * 1e6,
        sequential_p99_us=percentile(latencies, 0.99) * 1e6,
        sequential_server_cpu_us_per_call=sequential_cpu / len(latencies) * 1e6,
        pipelined_calls_per_s=count / pipelined_s,
        pipelined_server_cpu_us_per_call=pipelined_cpu / count * 1e6,
        sync_tool_server_cpu_us_per_call=sync_cpu / len(sync_latencies) * 1e6,
    )


@dataclass
class ListMeasurement:
    """`tools/list` on a server with many tools (stdio)."""

    start_to_first_answer_ms: float
    tools: int
    p50_ms: float
    server_cpu_ms_per_list: float
    response_bytes: int


def measure_list(
    command: Sequence[str], era: str, calls: int, expected_tools: int
) -> ListMeasurement:
    """Spawn `command` (with its generated tools) and call `tools/list` `calls` times."""
    peer = StdioPeer(command)
    try:
        first_answer_ms, _ = open_session(peer, era)
        ids = _Ids()
        listing = encode(request(ids.next(), "tools/list", {}, era))
        (warm,) = peer.exchange(listing, 1)  # the first listing may build caches: not counted
        tools = len(expect_result(warm, "tools/list")["tools"])
        if tools < expected_tools:
            raise PeerError(f"tools/list gave {tools} tools, expected {expected_tools}")
        latencies: list[float] = []
        before = peer.cpu.read()
        read_before = peer.raw_bytes_read
        for _ in range(calls):
            sent = time.perf_counter()
            (response,) = peer.exchange(encode(request(ids.next(), "tools/list", {}, era)), 1)
            latencies.append(time.perf_counter() - sent)
        cpu = CpuClock.delta(before, peer.cpu.read())
        size = (peer.raw_bytes_read - read_before) // calls
        expect_result(response, "tools/list")
    finally:
        peer.close()
    latencies.sort()
    return ListMeasurement(
        start_to_first_answer_ms=first_answer_ms,
        tools=tools,
        p50_ms=percentile(latencies, 0.5) * 1e3,
        server_cpu_ms_per_list=cpu / calls * 1e3,
        response_bytes=size,
    )


@dataclass
class LargeMeasurement:
    """One tool result of `size` bytes of text (stdio)."""

    size: int
    latency_ms: float
    server_cpu_ms: float
    peak_extra_bytes: int
    """Peak RSS during the call minus RSS just before it."""
    payload_copies: float
    """peak_extra_bytes / size: how many copies of the payload were in memory at once."""


def measure_large(
    command: Sequence[str], era: str, sizes: Sequence[int], repeats: int
) -> list[LargeMeasurement]:
    """Spawn `command`; for each size, call `blob(size)` `repeats` times (median of each)."""
    peer = StdioPeer(command)
    results: list[LargeMeasurement] = []
    try:
        open_session(peer, era)
        ids = _Ids()
        peer.exchange(tool_call(ids.next(), era, "blob", size=1000), 1)  # warm the tool path
        for size in sizes:
            runs: list[tuple[float, float, int]] = []
            for _ in range(repeats):
                pid = peer.proc.pid
                can_reset = reset_peak(pid)
                base = rss_bytes(pid)
                before = peer.cpu.read()
                sent = time.perf_counter()
                (response,) = peer.exchange(tool_call(ids.next(), era, "blob", size=size), 1)
                latency = time.perf_counter() - sent
                cpu = CpuClock.delta(before, peer.cpu.read())
                peak = peak_rss_bytes(pid) - base if can_reset else -1
                text = expect_result(response, "tools/call blob")["content"][0]["text"]
                if len(text) != size:
                    raise PeerError(f"blob({size}) returned {len(text)} characters")
                runs.append((latency, cpu, peak))
            latency_s = sorted(r[0] for r in runs)[len(runs) // 2]
            cpu_s = sorted(r[1] for r in runs)[len(runs) // 2]
            peak_b = sorted(r[2] for r in runs)[len(runs) // 2]
            results.append(
                LargeMeasurement(
                    size=size,
                    latency_ms=latency_s * 1e3,
                    server_cpu_ms=cpu_s * 1e3,
                    peak_extra_bytes=peak_b,
                    payload_copies=peak_b / size if peak_b >= 0 else -1.0,
                )
            )
    finally:
        peer.close()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--era", choices=ERAS, default=ERA_LEGACY)
    parser.add_argument("--calls", type=int, default=1000, help="sequential tools/call count")
    parser.add_argument("--pipelined", type=int, default=5000, help="pipelined tools/call count")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--list", type=int, metavar="N", help="tools/list N times instead")
    parser.add_argument("--large", type=int, nargs="+", metavar="BYTES", help="blob sizes")
    parser.add_argument("command", nargs="+", help="server command (after --)")
    args = parser.parse_args(argv)
    try:
        result: Any
        if args.list:
            result = asdict(measure_list(args.command, args.era, args.list, 0))
        elif args.large:
            result = [asdict(m) for m in measure_large(args.command, args.era, args.large, 3)]
        else:
            result = asdict(
                measure(args.command, args.era, args.calls, args.pipelined, args.warmup)
            )
    except PeerError as exc:
        print(f"driver: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A raw JSON-RPC benchmark driver for MCP servers on stdio, with no MCP SDK in the loop.

Every server — the raw floor, mcpkit, the official SDK, FastMCP — is measured by this same
client, so differences are the servers' own. The driver speaks newline-delimited JSON over the
child's pipes with one `selectors` loop (non-blocking both ways, so pipelined writes can never
deadlock against unread responses) and measures, for one server command and one protocol era:

- start → first answer: from just before spawning the process to the first response
  (`initialize` in the legacy era, `server/discover` in the 2026-07-28 era);
- sequential `tools/call`: one call in flight at a time; calls/s, p50 and p99 latency;
- server CPU per call: the child's utime+stime from /proc/<pid>/stat, delta over the calls;
- pipelined `tools/call`: all requests written as fast as the pipe takes them while responses
  are read; calls/s and server CPU per call.

Usage: python benchmarks/driver.py [--era legacy|modern] [--calls N] [--pipelined N] -- CMD...
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

ERA_LEGACY = "legacy"
ERA_MODERN = "modern"
ERAS = (ERA_LEGACY, ERA_MODERN)
LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "mcpkit-bench-driver", "version": "0.1.0"}

READ_CHUNK_BYTES = 1 << 16
RESPONSE_TIMEOUT_S = 30.0  # a server that answers nothing for this long has failed the run
STOP_TIMEOUT_S = 5.0  # after closing stdin, wait this long before killing the server
CLK_TCK = os.sysconf("SC_CLK_TCK")
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


def tool_call(request_id: int, era: str) -> bytes:
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": ECHO_TEXT}, **_meta(era)}
    return encode({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


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
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._rbuf = bytearray()

    def exchange(self, payload: bytes, responses: int) -> list[dict[str, Any]]:
        """Write `payload` and return the next `responses` responses (notifications skipped)."""
        pending = memoryview(payload)
        got: list[dict[str, Any]] = []
        writing = False
        deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        while len(got) < responses or pending:
            if pending and not writing:
                self._selector.register(self._in, selectors.EVENT_WRITE)
                writing = True
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
                        writing = False
                else:
                    chunk = os.read(self._out, READ_CHUNK_BYTES)
                    if not chunk:
                        raise PeerError(
                            f"server exited (code {self.proc.poll()}){self._stderr_tail()}"
                        )
                    self._rbuf += chunk
                    got.extend(self._take_responses())
                    deadline = time.monotonic() + RESPONSE_TIMEOUT_S
        return got

    def _take_responses(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        while True:
            end = self._rbuf.find(b"\n")
            if end < 0:
                return found
            line = bytes(self._rbuf[:end])
            del self._rbuf[: end + 1]
            if not line.strip():
                continue
            message = json.loads(line)
            if "id" in message and ("result" in message or "error" in message):
                found.append(message)

    def cpu_seconds(self) -> float:
        """The server's user+system CPU time so far (its own, not its children's)."""
        with open(f"/proc/{self.proc.pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        # After the ")" closing the command name, field 3 of stat(5) is index 0: utime is
        # field 14 (index 11) and stime field 15 (index 12), in clock ticks.
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

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


@dataclass
class Measurement:
    """One run of one server in one era."""

    start_to_first_answer_ms: float
    sequential_calls_per_s: float
    sequential_p50_us: float
    sequential_p99_us: float
    sequential_server_cpu_us_per_call: float
    pipelined_calls_per_s: float
    pipelined_server_cpu_us_per_call: float


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    index = max(0, min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def _expect_result(response: dict[str, Any], what: str) -> dict[str, Any]:
    if "error" in response:
        raise PeerError(f"{what} failed: {response['error']}")
    result: dict[str, Any] = response["result"]
    return result


def open_session(peer: StdioPeer, era: str) -> float:
    """Do the era's opening exchange; return start → first answer in milliseconds."""
    if era == ERA_LEGACY:
        first = encode(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY_VERSION,
                    "capabilities": {},
                    "clientInfo": CLIENT_INFO,
                },
            }
        )
    else:
        first = encode(
            {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": _meta(era)}
        )
    (response,) = peer.exchange(first, 1)
    elapsed_ms = (time.perf_counter() - peer.started_at) * 1000
    _expect_result(response, "the opening request")
    if era == ERA_LEGACY:
        peer.exchange(encode({"jsonrpc": "2.0", "method": "notifications/initialized"}), 0)
    return elapsed_ms


def measure(
    command: Sequence[str], era: str, calls: int, pipelined: int, warmup: int
) -> Measurement:
    """Spawn `command`, run every stdio measurement once in `era`, stop it."""
    peer = StdioPeer(command)
    try:
        first_answer_ms = open_session(peer, era)
        next_id = 1
        for _ in range(warmup):
            (response,) = peer.exchange(tool_call(next_id, era), 1)
            _expect_result(response, "tools/call")
            next_id += 1

        latencies: list[float] = []
        cpu_before = peer.cpu_seconds()
        began = time.perf_counter()
        for _ in range(calls):
            sent = time.perf_counter()
            (response,) = peer.exchange(tool_call(next_id, era), 1)
            latencies.append(time.perf_counter() - sent)
            next_id += 1
        sequential_s = time.perf_counter() - began
        sequential_cpu = peer.cpu_seconds() - cpu_before
        _expect_result(response, "tools/call")

        batch = b"".join(tool_call(next_id + i, era) for i in range(pipelined))
        cpu_before = peer.cpu_seconds()
        began = time.perf_counter()
        answers = peer.exchange(batch, pipelined)
        pipelined_s = time.perf_counter() - began
        pipelined_cpu = peer.cpu_seconds() - cpu_before
        errors = [a for a in answers if "error" in a]
        if errors:
            raise PeerError(f"{len(errors)} pipelined calls failed, first: {errors[0]['error']}")
    finally:
        peer.close()

    latencies.sort()
    return Measurement(
        start_to_first_answer_ms=first_answer_ms,
        sequential_calls_per_s=calls / sequential_s,
        sequential_p50_us=percentile(latencies, 0.50) * 1e6,
        sequential_p99_us=percentile(latencies, 0.99) * 1e6,
        sequential_server_cpu_us_per_call=sequential_cpu / calls * 1e6,
        pipelined_calls_per_s=pipelined / pipelined_s,
        pipelined_server_cpu_us_per_call=pipelined_cpu / pipelined * 1e6,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--era", choices=ERAS, default=ERA_LEGACY)
    parser.add_argument("--calls", type=int, default=1000, help="sequential tools/call count")
    parser.add_argument("--pipelined", type=int, default=5000, help="pipelined tools/call count")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("command", nargs="+", help="server command (after --)")
    args = parser.parse_args(argv)
    try:
        result = measure(args.command, args.era, args.calls, args.pipelined, args.warmup)
    except PeerError as exc:
        print(f"driver: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(asdict(result), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

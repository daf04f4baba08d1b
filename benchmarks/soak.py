"""Soak: minutes of mixed good and hostile traffic, then resources must be back at baseline.

Usage: ``.venv/bin/python benchmarks/soak.py [--seconds 180] [--json]`` (CI runs ~25 s through
``tests/soak``). Exit status 0 when every check holds, 1 otherwise; prints a report either way.

What runs, round after round until the time is up (both eras, both transports):

* HTTP, against one long-lived server process on the default serve path (``soak_server.py``):
  legacy and 2026 clients that connect, call (plain JSON and SSE answers) and close; legacy
  sessions opened and *abandoned* (the reaper must free them); malformed traffic (garbage and
  batch bodies, wrong media types, foreign Host/Origin, unknown methods, bodies cut off
  mid-way by a client that vanishes);
* questions the client hangs up on (legacy sessions, a tool that elicits) and 2026 call
  streams cut while their tool runs;
* a gateway (in this process) in front of a plain backend and a noisy one (listings that never
  end, ``list_changed`` 20 times a second): calls go through, nothing is left behind;
* stdio: a legacy and a 2026 client each spawn a server process, call it, close it; garbage
  lines are written to a raw server, which must answer them and keep serving;
* kills: a stdio server and a second HTTP server are killed with SIGKILL while a call is in
  flight: the call must fail at once with an error (never hang), and a new client (the HTTP
  one on a restarted process) must work again.

Every call carries a sequence number that the tool echoes: an answer that never comes, or comes
for the wrong call, is a lost message. Calls in flight at a kill are the only ones allowed to
fail, and they must fail with an error.

Baseline (after one warm-up round) vs end (after everything is closed and idle sessions have
been reaped): the long-lived server's RSS, fds, asyncio tasks and sessions, and this driver's
fds, tasks and child processes. fds, tasks, sessions and children must return to baseline; RSS
may grow by at most ``--rss-slack-mib`` (allocator high-water marks do not shrink).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import signal
import socket
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from mcpkit.client import Client

HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, str(HERE / "soak_server.py")]
CALLS_PER_CLIENT = 20
HTTP_CALLS_PER_CLIENT = 100
"""The long-lived HTTP server gets more traffic: it is the one whose resources are compared."""
CONCURRENT = 8
"""HTTP calls in flight at once in the concurrent part of each HTTP client's turn."""
BOUND_S = 15.0
"""Bound on any single step; past it the step is reported as a hang."""
KILL_FAIL_BOUND_S = 5.0
"""A call in flight when its server is killed must fail within this many seconds."""
SETTLE_S = 20.0
"""How long the end measurement waits for sessions and tasks to drain (reaper: ~1.2 s)."""

VERBOSE = bool(os.environ.get("SOAK_VERBOSE"))
"""Set ``SOAK_VERBOSE=1`` to see the servers' stderr (each refused request logs a warning)."""

sys.path.insert(0, str(HERE))
from soak_server import fd_count  # noqa: E402


@dataclass
class Counters:
    calls_sent: int = 0
    calls_answered: int = 0
    lost: int = 0
    wrong_answers: int = 0
    kill_calls_failed_fast: int = 0
    kill_calls_hung: int = 0
    malformed_sent: int = 0
    malformed_bad_answers: int = 0
    sessions_abandoned: int = 0
    questions_abandoned: int = 0
    streams_cut: int = 0
    gateway_calls: int = 0
    server_kills: int = 0
    reconnects: int = 0
    rounds: int = 0
    problems: list[str] = field(default_factory=list)
    step_seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class Snapshot:
    server_rss: int
    server_fds: int
    server_tasks: int
    server_app_tasks: int
    server_sessions: int
    driver_fds: int
    driver_tasks: int
    driver_children: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def answer_of(result: Any) -> Any:
    """A tool result's value: its structured content, else its first text block as JSON."""
    value = result.structured_content
    if isinstance(value, dict):
        return value.get("result", value) if set(value) == {"result"} else value
    try:
        return json.loads(result.content[0].text)
    except (AttributeError, IndexError, TypeError, ValueError):
        return None


class HttpServer:
    """``soak_server.py http PORT`` as a child process; ready once it answers /soak-stats."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *SERVER,
            "http",
            str(self.port),
            stdin=asyncio.subprocess.DEVNULL,
            stderr=None if VERBOSE else asyncio.subprocess.DEVNULL,  # refusals log warnings
        )
        async with httpx.AsyncClient() as http:
            deadline = time.monotonic() + BOUND_S
            while True:  # a child process has no readiness event to wait on: poll, bounded
                try:
                    await http.get(f"http://127.0.0.1:{self.port}/soak-stats")
                    return
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("the soak HTTP server did not start") from None
                    await asyncio.sleep(0.05)

    async def stats(self) -> dict[str, int]:
        async with httpx.AsyncClient() as http:
            reply = await http.get(f"http://127.0.0.1:{self.port}/soak-stats")
            stats: dict[str, int] = reply.json()
            return stats

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), BOUND_S)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


class Soak:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.c = Counters()
        self.server = HttpServer()
        self.victim = HttpServer()
        self.seq = 0

    # -- good traffic ----------------------------------------------------------------------

    async def _call(self, client: Client, name: str) -> None:
        self.seq += 1
        seq = self.seq
        self.c.calls_sent += 1
        try:
            result = await asyncio.wait_for(client.call_tool(name, {"seq": seq}), BOUND_S)
        except Exception as exc:
            self.c.lost += 1
            self.c.problems.append(f"call {seq} ({name}) failed: {exc!r}"[:300])
            return
        got = answer_of(result)
        if isinstance(got, dict) and got.get("seq") == seq and not result.is_error:
            self.c.calls_answered += 1
        else:
            self.c.wrong_answers += 1
            self.c.problems.append(f"call {seq}: wrong answer {got!r}"[:300])

    async def _calls(
        self, client: Client, *, chatty: bool = False, count: int = CALLS_PER_CLIENT
    ) -> None:
        for i in range(count):
            await self._call(client, "chatty" if chatty and i % 4 == 0 else "echo")

    async def http_clients(self) -> None:
        for mode in ("legacy", "2026-07-28"):
            async with Client(self.server.url, mode=mode) as client:  # type: ignore[arg-type]
                await self._calls(client, chatty=True, count=HTTP_CALLS_PER_CLIENT)
                for _ in range(HTTP_CALLS_PER_CLIENT // CONCURRENT):
                    await asyncio.gather(*(self._call(client, "echo") for _ in range(CONCURRENT)))

    async def stdio_clients(self) -> None:
        for mode in ("legacy", "2026-07-28"):
            async with Client([*SERVER, "stdio"], mode=mode) as client:  # type: ignore[arg-type]
                await self._calls(client)

    async def abandoned_sessions(self) -> None:
        """Legacy sessions opened and never closed: only the reaper can free them."""
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "soak-abandon", "version": "1"},
            },
        }
        headers = {"accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient() as http:
            for _ in range(5):
                reply = await http.post(self.server.url, json=body, headers=headers)
                if reply.status_code != 200 or "mcp-session-id" not in reply.headers:
                    self.c.problems.append(f"initialize answered {reply.status_code}")
                self.c.sessions_abandoned += 1

    async def abandoned_questions(self) -> None:
        """Legacy sessions whose client calls a tool that asks a question, then hangs up on
        each call once the question arrived: the waiting handlers hold no serving slot, are
        bounded per session and peer, and end with their session (the reaper)."""
        headers = {"accept": "application/json, text/event-stream"}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "soak-questions", "version": "1"},
            },
        }
        async with httpx.AsyncClient(timeout=BOUND_S) as http:
            for _ in range(2):
                reply = await http.post(self.server.url, json=initialize, headers=headers)
                if reply.status_code != 200 or "mcp-session-id" not in reply.headers:
                    self.c.problems.append(f"initialize answered {reply.status_code}")
                    return
                session = {
                    **headers,
                    "mcp-session-id": reply.headers["mcp-session-id"],
                    "mcp-protocol-version": "2025-11-25",
                }
                note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                await http.post(self.server.url, json=note, headers=session)
                for n in range(12):  # more than a session may keep waiting (8)
                    call = {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
                            "params": {"name": "ask", "arguments": {}}}  # fmt: skip
                    async with http.stream(
                        "POST", self.server.url, json=call, headers=session
                    ) as r:
                        seen = b""
                        async for chunk in r.aiter_bytes():
                            seen += chunk
                            if b"elicitation/create" in seen:
                                break  # hang up on the question
                    if b"elicitation/create" in seen:
                        self.c.questions_abandoned += 1
                    else:
                        self.c.problems.append(f"no question on the ask stream: {seen[:200]!r}")

    async def cut_streams(self) -> None:
        """2026 calls whose stream the client closes while the tool runs: closing the stream
        cancels the call, nothing of it may stay behind."""
        async with Client(self.server.url, mode="2026-07-28") as client:  # type: ignore[arg-type]
            for _ in range(5):
                running = asyncio.Event()

                async def progressed(*_: Any, running: asyncio.Event = running) -> None:
                    running.set()

                call = asyncio.ensure_future(
                    client.call_tool("held", {}, progress_callback=progressed)
                )
                try:
                    await asyncio.wait_for(running.wait(), BOUND_S)
                except TimeoutError:
                    self.c.problems.append("a held call never reported progress")
                call.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await call
                self.c.streams_cut += 1

    async def noisy_gateway(self) -> None:
        """A gateway (in this process) in front of a plain backend and a noisy one (listings
        that never end, list_changed 20 times a second): calls to the plain one go through, and
        when the gateway closes it leaves no task, descriptor or child behind (the driver's
        own counts are compared with the baseline)."""
        from mcpkit.gateway import Gateway

        gateway = Gateway(
            {"echo": {"command": SERVER[0], "args": [*SERVER[1:], "stdio"]},
             "noisy": {"command": SERVER[0], "args": [*SERVER[1:], "noisy"]}},
            list_timeout=BOUND_S * 4,  # a call that waited for a listing would hang the step
        )  # fmt: skip
        async with gateway, Client(gateway.server) as client:  # type: ignore[arg-type]
            await asyncio.wait_for(client.call_tool("noisy__start_noise", {}), BOUND_S)
            for _ in range(CALLS_PER_CLIENT):
                self.seq += 1
                self.c.calls_sent += 1
                try:
                    result = await asyncio.wait_for(
                        client.call_tool("echo__echo", {"seq": self.seq}), BOUND_S
                    )
                except Exception as exc:
                    self.c.lost += 1
                    self.c.problems.append(f"gateway call {self.seq} failed: {exc!r}"[:300])
                    continue
                if answer_of(result) == {"seq": self.seq, "pad": ""}:
                    self.c.calls_answered += 1
                    self.c.gateway_calls += 1
                else:
                    self.c.wrong_answers += 1
                    self.c.problems.append(f"gateway call {self.seq}: {answer_of(result)!r}")

    # -- hostile traffic -------------------------------------------------------------------

    async def malformed_http(self) -> None:
        json_headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
        }
        cases: list[tuple[str, dict[str, str], bytes, tuple[int, ...]]] = [
            ("POST", json_headers, b"{not json", (400,)),
            ("POST", json_headers, b"[" * 5000, (400,)),
            ("POST", json_headers, b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', (400,)),
            ("POST", {**json_headers, "content-type": "text/plain"}, b"{}", (415,)),
            ("POST", {**json_headers, "host": "evil.example"}, b"{}", (403, 421)),
            ("POST", {**json_headers, "origin": "http://evil.example"}, b"{}", (403,)),
            ("PUT", json_headers, b"{}", (405,)),
            ("POST", {**json_headers, "mcp-session-id": "no-such-session"}, b"{}", (400, 404)),
            ("GET", {"accept": "text/event-stream"}, b"", (400, 404, 405)),
        ]
        async with httpx.AsyncClient() as http:
            for method, headers, body, expected in cases:
                self.c.malformed_sent += 1
                reply = await http.request(method, self.server.url, headers=headers, content=body)
                if reply.status_code not in expected:
                    self.c.malformed_bad_answers += 1
                    self.c.problems.append(
                        f"{method} {body[:20]!r} {headers.get('host', '')}: "
                        f"{reply.status_code}, expected {expected}"
                    )
        # a client that announces a body, sends half, and vanishes
        for _ in range(3):
            self.c.malformed_sent += 1
            _, writer = await asyncio.open_connection("127.0.0.1", self.server.port)
            writer.write(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                b"accept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n"
                b'{"jsonrpc":"2.0",'
            )
            await writer.drain()
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def malformed_stdio(self) -> None:
        """Garbage lines to a raw stdio server: each gets an error, the next call is answered."""
        proc = await asyncio.create_subprocess_exec(
            *SERVER,
            "stdio",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert proc.stdin is not None and proc.stdout is not None
        garbage = [b"{not json", b"[]", b'{"jsonrpc":"2.0","id":1}', b"\xff\xfe", b"42"]
        try:
            for line in garbage:
                self.c.malformed_sent += 1
                proc.stdin.write(line + b"\n")
                answer = json.loads(await asyncio.wait_for(proc.stdout.readline(), BOUND_S))
                if "error" not in answer:
                    self.c.malformed_bad_answers += 1
                    self.c.problems.append(f"stdio garbage {line!r} answered {answer!r}"[:200])
            self.seq += 1
            self.c.calls_sent += 1
            call = {
                "jsonrpc": "2.0",
                "id": "after-garbage",
                "method": "tools/call",
                "params": {
                    "name": "echo",
                    "arguments": {"seq": self.seq},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    },
                },
            }
            proc.stdin.write(json.dumps(call).encode() + b"\n")
            answer = json.loads(await asyncio.wait_for(proc.stdout.readline(), BOUND_S))
            try:
                got = json.loads(answer["result"]["content"][0]["text"])
            except (KeyError, IndexError, TypeError, ValueError):
                got = None
            if isinstance(got, dict) and got.get("seq") == self.seq:
                self.c.calls_answered += 1
            else:
                self.c.lost += 1
                self.c.problems.append(f"stdio call after garbage: {answer!r}"[:200])
        finally:
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), BOUND_S)
            except TimeoutError:
                self.c.problems.append("the stdio server did not exit on stdin EOF")
                proc.kill()
                await proc.wait()

    # -- kills -----------------------------------------------------------------------------

    async def _call_fails_fast(self, client: Client, kill: Any) -> None:
        blocked = asyncio.ensure_future(client.call_tool("block", {}))
        await asyncio.sleep(0.1)  # let the call reach the server (nothing to wait on here)
        await kill()
        self.c.server_kills += 1
        try:
            await asyncio.wait_for(blocked, KILL_FAIL_BOUND_S)
        except TimeoutError:
            self.c.kill_calls_hung += 1
            self.c.problems.append("a call in flight at a server kill hung")
        except Exception:
            self.c.kill_calls_failed_fast += 1
        else:
            self.c.problems.append("a call in flight at a server kill returned a result")

    async def stdio_kill(self) -> None:
        for mode in ("legacy", "2026-07-28"):
            client = Client([*SERVER, "stdio"], mode=mode)  # type: ignore[arg-type]
            async with contextlib.AsyncExitStack() as stack:
                await stack.enter_async_context(client)
                pid = int(answer_of(await client.call_tool("pid", {})))

                async def kill(pid: int = pid) -> None:
                    os.kill(pid, signal.SIGKILL)

                await self._call_fails_fast(client, kill)
            self.c.reconnects += 1
            async with Client([*SERVER, "stdio"], mode=mode) as again:  # type: ignore[arg-type]
                await self._calls(again)

    async def http_kill(self) -> None:
        for mode in ("legacy", "2026-07-28"):
            client = Client(self.victim.url, mode=mode)  # type: ignore[arg-type]
            async with contextlib.AsyncExitStack() as stack:
                await stack.enter_async_context(client)
                await self._call_fails_fast(client, self.victim.kill)
            await self.victim.start()
            self.c.reconnects += 1
            async with Client(self.victim.url, mode=mode) as again:  # type: ignore[arg-type]
                await self._calls(again)

    # -- the run ---------------------------------------------------------------------------

    async def round(self) -> None:
        for step in (
            self.http_clients,
            self.stdio_clients,
            self.abandoned_sessions,
            self.abandoned_questions,
            self.cut_streams,
            self.noisy_gateway,
            self.malformed_http,
            self.malformed_stdio,
            self.stdio_kill,
            self.http_kill,
        ):
            started = time.monotonic()
            await step()
            took = self.c.step_seconds.get(step.__name__, 0.0)
            self.c.step_seconds[step.__name__] = took + time.monotonic() - started
        self.c.rounds += 1

    async def snapshot(self) -> Snapshot:
        gc.collect()
        stats = await self.server.stats()
        return Snapshot(
            server_rss=stats["rss"],
            server_fds=stats["fds"],
            server_tasks=stats["tasks"],
            server_app_tasks=stats["app_tasks"],
            server_sessions=stats["sessions"],
            driver_fds=fd_count(),
            driver_tasks=len(asyncio.all_tasks()),
            driver_children=len(children_of(os.getpid())) - 2,  # minus the two HTTP servers
        )

    async def settled(self, base: Snapshot) -> Snapshot:
        """The end snapshot, once sessions and tasks have drained (bounded)."""
        deadline = time.monotonic() + SETTLE_S
        while True:
            end = await self.snapshot()
            drained = (
                end.server_sessions <= base.server_sessions
                and end.server_tasks <= base.server_tasks
                and end.server_fds <= base.server_fds
                and end.driver_children <= base.driver_children
            )
            if drained or time.monotonic() > deadline:
                return end
            await asyncio.sleep(0.2)  # the reaper runs on a timer: poll it, bounded

    async def run(self) -> dict[str, Any]:
        await self.server.start()
        await self.victim.start()
        try:
            await self.round()  # warm-up: imports, caches, first sessions
            self.c = Counters()
            base = await self.settled(await self.snapshot())
            started = time.monotonic()
            while time.monotonic() - started < self.seconds:
                await self.round()
            elapsed = time.monotonic() - started
            end = await self.settled(base)
        finally:
            await self.victim.stop()
            await self.server.stop()
        return {"seconds": round(elapsed, 1), "baseline": asdict(base), "end": asdict(end),
                "counters": asdict(self.c)}  # fmt: skip


def verdict(report: dict[str, Any], rss_slack_mib: float) -> list[str]:
    base, end, c = report["baseline"], report["end"], report["counters"]
    failures = []
    for key in ("server_fds", "server_tasks", "server_sessions", "driver_fds", "driver_tasks",
                "driver_children", "server_app_tasks"):  # fmt: skip
        if end[key] > base[key]:
            failures.append(f"{key}: {base[key]} at baseline, {end[key]} at the end")
    growth = (end["server_rss"] - base["server_rss"]) / 2**20
    if growth > rss_slack_mib:
        failures.append(f"server RSS grew {growth:.1f} MiB (allowed {rss_slack_mib} MiB)")
    if c["lost"] or c["wrong_answers"]:
        failures.append(f"{c['lost']} calls lost, {c['wrong_answers']} wrong answers")
    if c["kill_calls_hung"]:
        failures.append(f"{c['kill_calls_hung']} calls hung after a server kill")
    if c["malformed_bad_answers"]:
        failures.append(f"{c['malformed_bad_answers']} malformed requests got a wrong answer")
    if c["rounds"] < 1:
        failures.append("not one full round ran")
    return failures


def render(report: dict[str, Any], failures: list[str]) -> str:
    base, end, c = report["baseline"], report["end"], report["counters"]
    mib = 2**20
    lines = [
        f"soak: {report['seconds']} s, {c['rounds']} rounds (both eras; stdio and HTTP)",
        f"{'':24}{'baseline':>12}{'end':>12}",
        f"{'server RSS (MiB)':24}{base['server_rss'] / mib:12.1f}{end['server_rss'] / mib:12.1f}",
    ]
    for key, label in [
        ("server_fds", "server fds"),
        ("server_tasks", "server asyncio tasks"),
        ("server_app_tasks", "server handler tasks"),
        ("server_sessions", "server sessions"),
        ("driver_fds", "driver fds"),
        ("driver_tasks", "driver asyncio tasks"),
        ("driver_children", "driver child processes"),
    ]:
        lines.append(f"{label:24}{base[key]:12}{end[key]:12}")
    lines += [
        f"calls: {c['calls_sent']} sent, {c['calls_answered']} answered correctly, "
        f"messages lost = {c['lost'] + c['wrong_answers']}",
        f"malformed requests: {c['malformed_sent']} sent, "
        f"{c['malformed_bad_answers']} wrong answers",
        f"abandoned legacy sessions: {c['sessions_abandoned']} (freed by the reaper)",
        f"abandoned questions: {c['questions_abandoned']}; cut 2026 streams: {c['streams_cut']}",
        f"calls through a gateway with a noisy backend: {c['gateway_calls']}",
        f"server kills: {c['server_kills']} (in-flight calls failed fast: "
        f"{c['kill_calls_failed_fast']}, hung: {c['kill_calls_hung']}); reconnects: "
        f"{c['reconnects']}",
        "result: " + ("PASS" if not failures else "FAIL\n  " + "\n  ".join(failures)),
    ]
    steps = c["step_seconds"].items()
    lines.append("time per step: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps))
    lines += [f"  problem: {p}" for p in c["problems"][:10]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--rss-slack-mib", type=float, default=32.0)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    report = asyncio.run(Soak(args.seconds).run())
    failures = verdict(report, args.rss_slack_mib)
    report["failures"] = failures
    print(json.dumps(report) if args.json else render(report, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

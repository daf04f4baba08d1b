"""``mcpkit run --http --workers N``: N real processes on one port, kept at N, stopped together.

Each worker answers with its pid, so the tests see that connections really reach different
processes, that an MRTR round can finish on another worker (the supervisor shares one state key
with its children), that a ``kill -9``'d worker is replaced, and that SIGTERM stops everything.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path
from typing import Any, Final

import httpx

from ._process import MODERN_META, Running
from ._run import FIXTURES, MCPKIT, mcpkit

SERVER: Final = str(FIXTURES / "pid_server.py")
STOP_TIMEOUT: Final = 30.0
ATTEMPTS: Final = 200
"""Fresh connections tried before concluding that a worker never gets any (bounded, not timed)."""
_META: Final = {
    **MODERN_META,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
_STARTED: Final = re.compile(r"2 workers on 127\.0\.0\.1:(\d+) \(pids (\d+), (\d+)\)")


def _call(url: str, name: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One 2026 ``tools/call`` on a fresh connection (so the kernel picks a worker each time)."""
    params: dict[str, Any] = {"name": name, "arguments": {}, "_meta": _META, **(extra or {})}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    answer = httpx.post(
        url,
        content=json.dumps(body),
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": name,
            "connection": "close",
        },
        timeout=STOP_TIMEOUT,
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def _text(result: dict[str, Any]) -> str:
    text: str = result["content"][0]["text"]
    return text


def _start(*extra: str) -> tuple[Running, str, set[int]]:
    running = Running([*MCPKIT, "run", SERVER, "--http", "--port", "0", "--workers", "2", *extra])
    found = _STARTED.search(running.wait_stderr("2 workers on"))
    assert found, running.stderr_seen
    for _ in range(2):  # both children are up once each has announced its endpoint
        running.wait_stderr("mcpkit: serving pid-server at ")
    return running, f"http://127.0.0.1:{found.group(1)}/mcp", {int(found.group(i)) for i in (2, 3)}


def _stop(running: Running) -> int:
    if running.process.poll() is None:
        running.process.send_signal(signal.SIGTERM)
    return running.process.wait(STOP_TIMEOUT)


def _seen_until(url: str, wanted: set[int]) -> set[int]:
    seen: set[int] = set()
    for _ in range(ATTEMPTS):
        seen.add(int(_text(_call(url, "whoami"))))
        if wanted <= seen:
            break
    return seen


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_workers_share_one_port_and_an_mrtr_round_crosses_them() -> None:
    running, url, pids = _start()
    try:
        assert _seen_until(url, pids) == pids
        crossed = False
        for _ in range(ATTEMPTS):
            first = _call(url, "ask")
            assert first["resultType"] == "input_required", first
            key = next(iter(first["inputRequests"]))
            retry = {
                "inputResponses": {key: {"action": "accept", "content": {"n": "Ada"}}},
                "requestState": first["requestState"],
            }
            name, asked_on, finished_on = _text(_call(url, "ask", retry)).split()
            assert name == "Ada" and {int(asked_on), int(finished_on)} <= pids
            if asked_on != finished_on:
                crossed = True  # sealed on one worker, verified on the other: one shared key
                break
        assert crossed
    finally:
        code = _stop(running)
    assert code == 128 + signal.SIGTERM
    assert not any(_alive(pid) for pid in pids)  # no worker outlives the supervisor


def test_a_killed_worker_is_replaced_and_the_port_keeps_serving() -> None:
    running, url, pids = _start()
    try:
        victim = min(pids)
        os.kill(victim, signal.SIGKILL)
        line = running.wait_stderr(f"(pid {victim}) exited with code -9; started pid ")
        replacement = int(line.rsplit(" ", 1)[1])
        running.wait_stderr("mcpkit: serving pid-server at ")
        survivors = (pids - {victim}) | {replacement}
        assert _seen_until(url, survivors) == survivors
    finally:
        _stop(running)


def _listener_of(pid: int) -> str:
    """The listening socket the supervisor handed ``pid`` (``socket:[inode]``)."""
    environ = dict(
        entry.split("=", 1)
        for entry in Path(f"/proc/{pid}/environ").read_text().split("\0")
        if "=" in entry
    )
    return os.readlink(f"/proc/{pid}/fd/{environ['MCPKIT_LISTEN_FD']}")


def test_reuse_port_gives_each_worker_its_own_socket_on_the_one_port() -> None:
    """``--reuse-port``: one SO_REUSEPORT socket per worker (the kernel spreads connections
    over them); both workers serve, and a killed worker's replacement gets its socket back."""
    running, url, pids = _start("--reuse-port")
    try:
        sockets = {pid: _listener_of(pid) for pid in pids}
        assert len(set(sockets.values())) == 2, sockets  # not one shared socket
        assert _seen_until(url, pids) == pids
        victim = min(pids)
        os.kill(victim, signal.SIGKILL)
        line = running.wait_stderr(f"(pid {victim}) exited with code -9; started pid ")
        replacement = int(line.rsplit(" ", 1)[1])
        running.wait_stderr("mcpkit: serving pid-server at ")
        assert _listener_of(replacement) == sockets[victim]
        survivors = (pids - {victim}) | {replacement}
        assert _seen_until(url, survivors) == survivors
    finally:
        code = _stop(running)
    assert code == 128 + signal.SIGTERM


def test_a_worker_failing_at_startup_stops_the_supervisor() -> None:
    began = time.monotonic()
    ran = mcpkit("run", str(FIXTURES / "broken_server.py"), "--http", "--port", "0",
                 "--workers", "2")  # fmt: skip
    assert ran.code != 0, ran
    assert "failed at startup" in ran.err, ran
    assert "settings.toml is missing" in ran.err  # the child's own error is shown
    assert time.monotonic() - began < STOP_TIMEOUT  # no restart loop


def _legacy(url: str, body: dict[str, Any], session: str | None) -> httpx.Response:
    """One legacy (2025-11-25) POST on a fresh connection (the kernel picks a worker)."""
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "connection": "close",
    }
    if session is not None:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    return httpx.post(url, content=json.dumps(body), headers=headers, timeout=STOP_TIMEOUT)


def _legacy_result(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 200, answer.text
    text = answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    result: dict[str, Any] = json.loads(text)["result"]
    return result


def test_workers_sharing_redis_serve_one_legacy_session_from_every_worker() -> None:
    """``--redis``: a legacy session opened on one worker is served by the other (without it
    the other worker answers 404). Database 15 and its ``mcpkit:`` keys are this test's."""
    from deploy._deployment import require_redis

    url = require_redis().rsplit("/", 1)[0] + "/15"
    running = Running([*MCPKIT, "run", SERVER, "--http", "--port", "0", "--workers", "2",
                       "--redis", url])  # fmt: skip
    try:
        found = _STARTED.search(running.wait_stderr("2 workers on"))
        assert found, running.stderr_seen
        for _ in range(2):
            running.wait_stderr("mcpkit: serving pid-server at ")
        endpoint = f"http://127.0.0.1:{found.group(1)}/mcp"
        pids = {int(found.group(i)) for i in (2, 3)}
        opened = _legacy(endpoint, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "workers-test", "version": "0"}}}, None)  # fmt: skip
        _legacy_result(opened)
        session = opened.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert _legacy(endpoint, note, session).status_code == 202
        seen: set[int] = set()
        for n in range(ATTEMPTS):
            call = {"jsonrpc": "2.0", "id": n + 1, "method": "tools/call",
                    "params": {"name": "whoami", "arguments": {}}}  # fmt: skip
            seen.add(int(_text(_legacy_result(_legacy(endpoint, call, session)))))
            if seen == pids:
                break
        assert seen == pids
    finally:
        _stop(running)
        import redis

        client = redis.Redis.from_url(url)
        try:
            keys = list(client.scan_iter(match="mcpkit:*", count=500))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


def test_workers_without_redis_serve_legacy_requests_without_sessions() -> None:
    """No shared state: a legacy session opened on one worker would be unknown to the other,
    so the workers serve legacy requests session-less (said at start), and a legacy client's
    calls succeed whichever worker takes them, never "report it"."""
    running, endpoint, pids = _start()
    try:
        said = "\n".join(running.stderr_seen)
        assert "share no sessions" in said and "Add --redis URL" in said, said
        opened = _legacy(endpoint, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "workers-test", "version": "0"}}}, None)  # fmt: skip
        _legacy_result(opened)
        assert "mcp-session-id" not in opened.headers
        seen: set[int] = set()
        for n in range(ATTEMPTS):
            call = {"jsonrpc": "2.0", "id": n + 1, "method": "tools/call",
                    "params": {"name": "whoami", "arguments": {}}}  # fmt: skip
            seen.add(int(_text(_legacy_result(_legacy(endpoint, call, None)))))
            if seen == pids:
                break
        assert seen == pids
        # The command's own client, in the legacy era, over and over: no error.
        for _ in range(4):
            ran = mcpkit("call", endpoint, "--era", "legacy", "whoami")
            assert ran.code == 0 and int(ran.out.strip()) in pids, ran
    finally:
        _stop(running)


def test_workers_need_http_and_a_positive_count() -> None:
    ran = mcpkit("run", SERVER, "--workers", "2")
    assert ran.code == 2 and "--workers applies to --http" in ran.err, ran
    ran = mcpkit("run", SERVER, "--http", "--workers", "0")
    assert ran.code == 2 and "--workers must be at least 1" in ran.err, ran
    ran = mcpkit("run", SERVER, "--http", "--reload", "--workers", "2")
    assert ran.code == 2 and "do not combine" in ran.err, ran
    ran = mcpkit("run", SERVER, "--http", "--reuse-port")
    assert ran.code == 2 and "--reuse-port applies to --workers N" in ran.err, ran
    ran = mcpkit("run", SERVER, "--redis", "redis://127.0.0.1:6379/15")
    assert ran.code == 2 and "--redis applies to --http" in ran.err, ran
    ran = mcpkit("run", SERVER, "--stateless")
    assert ran.code == 2 and "--stateless applies to --http" in ran.err, ran

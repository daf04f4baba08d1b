"""The server side of stdio, driven through raw pipes of a real subprocess.

These tests do not use mcpkit's stdio client: they write bytes to the fixture server's stdin and
read its stdout, so what they check is the wire itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcpkit.protocol._errors import INVALID_REQUEST, PARSE_ERROR

FIXTURES = Path(__file__).parent / "fixtures"
SERVER = str(FIXTURES / "server.py")
WAIT = 20.0
"""Bound on every wait (generous: two shared cores; things normally happen in milliseconds)."""
MIB = 1024 * 1024


async def start_server(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        SERVER,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=64 * MIB,
    )


def request(id: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


async def read_message(proc: asyncio.subprocess.Process) -> dict[str, Any]:
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), WAIT)
    assert line.endswith(b"\n"), f"stdout ended: {line!r}"
    message = json.loads(line)
    assert isinstance(message, dict)
    return message


async def finish(proc: asyncio.subprocess.Process) -> tuple[bytes, str]:
    """Close stdin and collect the rest of stdout and all of stderr (bounded)."""
    assert proc.stdin is not None
    proc.stdin.close()  # asyncio's communicate() does not close it when given no input
    stdout, stderr = await asyncio.wait_for(proc.communicate(), WAIT)
    return stdout, stderr.decode()


async def test_round_trip_and_end_on_stdin_eof() -> None:
    proc = await start_server()
    assert proc.stdin is not None
    proc.stdin.write(request(1, "echo", {"text": "héllo\nworld"}))
    proc.stdin.write(request(2, "echo"))
    assert await read_message(proc) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"params": {"text": "héllo\nworld"}},
    }
    assert (await read_message(proc))["id"] == 2
    stdout, stderr = await finish(proc)  # closes stdin: the server must end by itself
    assert proc.returncode == 0
    assert "server: end of input" in stderr
    # Once the context manager exits, stdout is the real stdout again.
    assert stdout == b"server: stdout restored\n"


async def test_stray_output_goes_to_stderr_and_the_stream_stays_valid() -> None:
    proc = await start_server()
    assert proc.stdin is not None
    proc.stdin.write(request(1, "print"))
    proc.stdin.write(request(2, "echo", {"after": "print"}))
    assert await read_message(proc) == {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
    assert await read_message(proc) == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"params": {"after": "print"}},
    }
    stdout, stderr = await finish(proc)
    assert stdout == b"server: stdout restored\n"
    for stray in ("stray print()", "stray write to fd 1", "stray child output"):
        assert stray in stderr


async def test_oversized_line_is_an_error_item_and_the_next_message_arrives() -> None:
    proc = await start_server("--max-bytes", str(MIB))
    assert proc.stdin is not None
    big = request(1, "echo", {"blob": "x" * (10 * MIB)})
    proc.stdin.write(big)
    proc.stdin.write(request(2, "echo", {"n": 2}))
    error = await read_message(proc)
    assert error["id"] == 1  # read from the line's head: the request fails at once
    assert error["error"]["code"] == INVALID_REQUEST
    assert f"exceeds {MIB} bytes" in error["error"]["message"]
    assert await read_message(proc) == {"jsonrpc": "2.0", "id": 2, "result": {"params": {"n": 2}}}
    await finish(proc)
    assert proc.returncode == 0


async def test_a_10_mb_message_fits_the_default_bound() -> None:
    proc = await start_server()
    assert proc.stdin is not None
    blob = "y" * (10 * MIB)
    proc.stdin.write(request(7, "echo", {"blob": blob}))
    answer = await read_message(proc)
    assert answer["id"] == 7
    assert answer["result"]["params"]["blob"] == blob
    await finish(proc)


async def test_binary_garbage_is_a_parse_error_and_the_stream_carries_on() -> None:
    proc = await start_server()
    assert proc.stdin is not None
    proc.stdin.write(b"\xff\xfe\x00\x80 \xc3\x28 garbage\n")
    proc.stdin.write(b"\n   \n")  # blank lines carry nothing and get no answer
    proc.stdin.write(request(3, "echo"))
    error = await read_message(proc)
    assert error["id"] is None  # the id was unreadable: "id": null (JSON-RPC 2.0 §5)
    assert error["error"]["code"] == PARSE_ERROR
    assert await read_message(proc) == {"jsonrpc": "2.0", "id": 3, "result": {"params": {}}}
    await finish(proc)


async def test_last_message_without_newline_is_still_read() -> None:
    proc = await start_server()
    assert proc.stdin is not None
    proc.stdin.write(request(4, "echo").rstrip(b"\n"))
    stdout, _ = await finish(proc)
    first, rest = stdout.split(b"\n", 1)
    assert json.loads(first)["id"] == 4
    assert rest == b"server: stdout restored\n"


def test_regular_files_work_as_stdin_and_stdout(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(request(1, "echo", {"a": 1}) + request(2, "print") + b"\xff\n")
    output = tmp_path / "out.jsonl"
    with requests.open("rb") as stdin, output.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, SERVER],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=WAIT,
            check=True,
        )
    lines = output.read_bytes().splitlines()
    assert [json.loads(line) for line in lines[:2]] == [
        {"jsonrpc": "2.0", "id": 1, "result": {"params": {"a": 1}}},
        {"jsonrpc": "2.0", "id": 2, "result": {"ok": True}},
    ]
    assert json.loads(lines[2])["error"]["code"] == PARSE_ERROR
    assert lines[3:] == [b"server: stdout restored"]
    assert b"stray print()" in done.stderr


async def test_server_exits_when_its_parent_dies() -> None:
    # The test holds the write end of the server's stdin, so stdin never reaches EOF: only the
    # parent watch can end the server once the intermediate process is killed.
    stdin_read, stdin_write = os.pipe()
    try:
        middle = await asyncio.create_subprocess_exec(
            sys.executable,
            str(FIXTURES / "intermediate.py"),
            "0.1",
            stdin=stdin_read,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        os.close(stdin_read)
        stdin_read = -1
        assert middle.stdout is not None and middle.stderr is not None
        server_pid = int(await asyncio.wait_for(middle.stdout.readline(), WAIT))
        ready = await asyncio.wait_for(middle.stderr.readuntil(b"server: ready\n"), WAIT)
        assert b"server: ready" in ready

        middle.send_signal(signal.SIGKILL)
        # (Not middle.wait(): on Python 3.11 it also waits for the pipes the server still holds.)
        assert await wait_gone(middle.pid)

        # The server shares the stderr pipe; EOF on it means the server is gone.
        rest = (await asyncio.wait_for(middle.stderr.read(), WAIT)).decode()
        assert "parent process" in rest
        assert "server: end of input" in rest
        assert await wait_gone(server_pid)
        assert await asyncio.wait_for(middle.wait(), WAIT) == -signal.SIGKILL
    finally:
        for fd in (stdin_read, stdin_write):
            if fd >= 0:
                os.close(fd)


async def wait_gone(pid: int, timeout: float = WAIT) -> bool:
    """Wait (bounded) until ``pid`` has exited, whether or not it is our child (Linux pidfd)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[None] = loop.create_future()

    def on_exit() -> None:
        if not exited.done():
            exited.set_result(None)

    loop.add_reader(fd, on_exit)
    try:
        await asyncio.wait_for(exited, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def test_send_breaks_when_the_client_stops_reading() -> None:
    with subprocess.Popen(
        [sys.executable, SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdout.close()  # nobody will read the answer
        _, stderr = proc.communicate(request(1, "echo"), timeout=WAIT)
    # The fixture does not catch it: the error and its message end the process.
    assert proc.returncode == 1
    assert b"ConnectionBroken: the client stopped reading the server's stdout" in stderr

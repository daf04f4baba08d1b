"""A stdio server whose stdin is ``/dev/null``, a regular file or a terminal serves what it gets
and exits cleanly at end of input — never hangs, never prints a traceback.

The server is the real default path (``server.run()`` in ``fixtures/big_server.py``) in a child
process; the terminal is a pseudo-terminal whose master side the test types into.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit._runtime.wire_log import WIRE_LOG_ENV
from mcpkit.protocol._codec import decode_json

SERVER: Final = Path(__file__).parent / "fixtures" / "big_server.py"
EXIT_BOUND_S: Final = 20.0
"""A cold start that imports mcpkit, then the end of input (far below "hangs")."""
INITIALIZE: Final = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
CALL: Final = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "echo", "arguments": {"text": "abc"}},
}


def _lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


async def _run(stdin: Any) -> tuple[int, bytes, bytes]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(EXIT_BOUND_S):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return process.returncode, out, err


async def test_stdin_from_dev_null_ends_at_once_without_a_traceback() -> None:
    code, out, err = await _run(asyncio.subprocess.DEVNULL)  # the child's stdin is /dev/null
    assert code == 0, err
    assert out == b""
    assert b"Traceback" not in err, err.decode()


async def test_stdin_from_a_file_is_served_then_the_server_exits(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(
        _lines(INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, CALL)
    )
    fd = os.open(requests, os.O_RDONLY)
    try:
        code, out, err = await _run(fd)
    finally:
        os.close(fd)
    assert code == 0, err
    answers = [decode_json(line) for line in out.splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[1]["result"]["structuredContent"] == {"result": 3}
    assert b"Traceback" not in err, err.decode()


async def test_stdin_from_a_terminal_is_served_and_ctrl_d_ends_it() -> None:
    master, slave = pty.openpty()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SERVER),
            stdin=slave,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        os.close(slave)
        slave = -1
        assert process.stdout is not None and process.stderr is not None
        try:
            async with asyncio.timeout(EXIT_BOUND_S):
                os.write(master, _lines(INITIALIZE))
                answer = decode_json(await process.stdout.readline())
                assert answer["id"] == 1 and answer["result"]["protocolVersion"]
                os.write(master, b"\x04")  # Ctrl-D at the start of a line: end of input
                err = await process.stderr.read()
                assert await process.wait() == 0, err
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert b"Traceback" not in err, err.decode()
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)


@pytest.mark.no_schema_check  # the wire log a child opens first would take fd 0 itself
async def test_a_closed_stdin_ends_at_once_without_a_traceback() -> None:
    """Issue 28: started with fd 0 closed (``0<&-``), the server read from whatever took the
    number next — the event loop's epoll descriptor — and died with a traceback."""
    process = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", 'exec "$0" "$1" 0<&-', sys.executable, str(SERVER),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != WIRE_LOG_ENV},
    )  # fmt: skip
    try:
        async with asyncio.timeout(EXIT_BOUND_S):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    assert b"Traceback" not in err, err.decode()
    assert out == b""

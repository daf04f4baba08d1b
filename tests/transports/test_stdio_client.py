"""The client side of stdio against real server processes (the scripts in ``fixtures/``)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.protocol._errors import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ConnectionBroken,
    ConnectionClosed,
    MessageDecodeError,
)
from mcpkit.transports import (
    DEFAULT_ALLOWED_ENV,
    ServerStartError,
    StdioServerParameters,
    stdio_client,
)
from mcpkit.transports._process import child_environment, describe_exit
from mcpkit.types._jsonrpc import Notification, Request, Response

FIXTURES = Path(__file__).parent / "fixtures"
WAIT = 20.0
"""Bound on every wait (generous: two shared cores; things normally happen in milliseconds)."""
QUICK = 0.5
"""Escalation timeouts for servers that are meant to ignore them (keeps the tests short)."""
MIB = 1024 * 1024


def fixture(script: str, *args: str, **kwargs: Any) -> StdioServerParameters:
    return StdioServerParameters(sys.executable, [str(FIXTURES / script), *args], **kwargs)


async def call(stream: Any, id: int, method: str, params: dict[str, Any] | None = None) -> Any:
    await stream.send(Request(id=id, method=method, params=params))
    answer = await asyncio.wait_for(stream.receive(), WAIT)
    assert isinstance(answer, Response), answer
    assert answer.id == id
    return answer.result


async def wait_gone(pid: int, timeout: float = WAIT) -> bool:
    """Wait (bounded) until ``pid`` has exited, child of ours or not (Linux pidfd)."""
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


async def test_round_trip_and_polite_shutdown() -> None:
    async with stdio_client(fixture("server.py")) as stream:
        assert stream.returncode is None
        assert stream.pid > 0
        assert await call(stream, 1, "echo", {"text": "line\nbreak"}) == {
            "params": {"text": "line\nbreak"}
        }
        info = await call(stream, 2, "info")
        assert info["pid"] == stream.pid
        assert info["ppid"] == os.getpid()
    # Closing stdin was enough: exit code 0, not a signal.
    assert stream.returncode == 0
    assert "server: end of input" in stream.stderr_tail


async def test_ten_megabyte_messages_both_ways() -> None:
    blob = "z" * (10 * MIB)
    async with stdio_client(fixture("server.py")) as stream:
        assert await call(stream, 1, "echo", {"blob": blob}) == {"params": {"blob": blob}}
        assert await call(stream, 2, "echo") == {"params": {}}


async def test_stray_output_is_logged_from_stderr(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcpkit.stdio.strays")
    async with stdio_client(fixture("server.py", name="strays", stderr="log")) as stream:
        assert await call(stream, 1, "print") == {"ok": True}
        assert await call(stream, 2, "echo", {"still": "fine"}) == {"params": {"still": "fine"}}
        await call(stream, 3, "stderr", {"text": "a log line"})
    logged = [r.getMessage() for r in caplog.records if r.name == "mcpkit.stdio.strays"]
    for line in ("stray print()", "stray write to fd 1", "stray child output", "a log line"):
        assert line in logged
        assert line in stream.stderr_tail


async def test_garbage_and_oversized_lines_from_the_server_are_items() -> None:
    params = fixture("raw_server.py", str(10 * MIB))
    async with stdio_client(params, max_message_bytes=MIB) as stream:
        garbage = await asyncio.wait_for(stream.receive(), WAIT)
        assert isinstance(garbage, MessageDecodeError)
        assert garbage.error.code == PARSE_ERROR
        big = await asyncio.wait_for(stream.receive(), WAIT)
        assert isinstance(big, MessageDecodeError)
        assert big.error.code == INVALID_REQUEST
        assert f"exceeds {MIB} bytes" in big.error.message
        assert await stream.receive() == Notification(method="notifications/after")
        assert await stream.receive() == Notification(method="notifications/last")
        assert await asyncio.wait_for(stream.receive(), WAIT) is None


async def test_crash_fails_a_pending_send_with_exit_code_and_stderr() -> None:
    # The server reads 100 bytes and dies; a 4 MiB message cannot fit in the pipe, so the send
    # is still waiting for the pipe to drain when the process goes away.
    async with stdio_client(fixture("slow_reader.py")) as stream:
        with pytest.raises(ConnectionBroken) as caught:
            await asyncio.wait_for(
                stream.send(Request(id=1, method="echo", params={"blob": "x" * (4 * MIB)})),
                WAIT,
            )
        message = str(caught.value)
        assert "exited with code 3" in message
        assert "fatal: cannot allocate the frobnicator" in message
        assert stream.returncode == 3
        assert await asyncio.wait_for(stream.receive(), WAIT) is None


async def test_unexpected_exit_ends_receive_then_send_breaks() -> None:
    async with stdio_client(fixture("server.py")) as stream:
        await stream.send(Request(id=1, method="crash", params={"code": 7, "stderr": "boom!"}))
        assert await asyncio.wait_for(stream.receive(), WAIT) is None
        with pytest.raises(ConnectionBroken) as caught:
            await asyncio.wait_for(stream.send(Notification(method="anyone?")), WAIT)
        assert "exited with code 7" in str(caught.value)
        assert "boom!" in str(caught.value)
        assert stream.returncode == 7
        assert "boom!" in stream.stderr_tail


async def test_shutdown_escalates_to_sigkill_and_leaves_no_orphans(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="mcpkit.stdio.stubborn")
    params = fixture("stubborn.py", "--ignore-term", "--ignore-eof", name="stubborn")
    async with stdio_client(params, stdin_close_timeout=QUICK, terminate_timeout=QUICK) as stream:
        info = await call(stream, 1, "info")
    assert info["pid"] == stream.pid
    assert stream.returncode == -signal.SIGKILL
    assert await wait_gone(stream.pid)
    assert await wait_gone(info["grandchild"])
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "sending SIGTERM" in messages
    assert "killing it" in messages


async def test_sigterm_is_enough_for_a_server_that_ignores_eof() -> None:
    params = fixture("stubborn.py", "--ignore-eof")
    async with stdio_client(params, stdin_close_timeout=QUICK) as stream:
        info = await call(stream, 1, "info")
    assert stream.returncode == -signal.SIGTERM
    assert await wait_gone(info["grandchild"])


async def test_what_a_polite_server_leaves_behind_is_stopped_too() -> None:
    async with stdio_client(fixture("stubborn.py")) as stream:
        info = await call(stream, 1, "info")
    assert stream.returncode == 0  # it exited on EOF by itself ...
    assert await wait_gone(info["grandchild"])  # ... and its grandchild did not outlive it


async def test_cancelled_close_still_kills_the_group() -> None:
    params = fixture("stubborn.py", "--ignore-term", "--ignore-eof")
    stream_box: list[Any] = []
    pids: dict[str, int] = {}
    ready = asyncio.Event()

    async def run() -> None:
        async with stdio_client(params, stdin_close_timeout=WAIT, terminate_timeout=WAIT) as s:
            stream_box.append(s)
            pids.update(await call(s, 1, "info"))
            ready.set()
            await asyncio.Event().wait()  # until cancelled

    task = asyncio.create_task(run())
    await asyncio.wait_for(ready.wait(), WAIT)
    task.cancel()  # cancels the body; the context manager's close starts politely...
    await asyncio.sleep(0)
    task.cancel()  # ... and is cancelled itself: it must kill rather than wait
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    assert await wait_gone(pids["pid"])
    assert await wait_gone(pids["grandchild"])


async def test_environment_is_allow_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPKIT_TEST_SECRET", "hunter2")
    monkeypatch.setenv("LC_MCPKIT_TEST", "C")
    async with stdio_client(fixture("server.py")) as stream:
        env = (await call(stream, 1, "env"))["env"]
    assert "MCPKIT_TEST_SECRET" not in env
    assert env["PATH"] == os.environ["PATH"]
    assert env["LC_MCPKIT_TEST"] == "C"

    given = fixture("server.py", env={"MCPKIT_TEST_SECRET": "passed on purpose"})
    async with stdio_client(given) as stream:
        env = (await call(stream, 1, "env"))["env"]
    assert env["MCPKIT_TEST_SECRET"] == "passed on purpose"


def test_child_environment_rules() -> None:
    parent = {"PATH": "/bin", "LC_ALL": "C", "LCX": "no", "AWS_SECRET_KEY": "s", "HOME": "/h"}
    assert child_environment(DEFAULT_ALLOWED_ENV, None, parent) == {
        "PATH": "/bin",
        "LC_ALL": "C",
        "HOME": "/h",
    }
    assert child_environment((), {"ONLY": "this"}, parent) == {"ONLY": "this"}
    assert child_environment(("PATH",), {"PATH": "/override"}, parent) == {"PATH": "/override"}


def test_exit_descriptions() -> None:
    assert describe_exit(0) == "exited with code 0"
    assert describe_exit(-signal.SIGKILL) == "was killed by SIGKILL"


async def test_a_missing_command_is_a_clear_error() -> None:
    with pytest.raises(ServerStartError) as caught:
        async with stdio_client(StdioServerParameters("mcpkit-no-such-command-xyz")):
            pass  # pragma: no cover
    assert isinstance(caught.value, ConnectionBroken)
    assert str(caught.value) == (
        "could not start 'mcpkit-no-such-command-xyz': No such file or directory"
    )


async def test_a_command_that_is_not_executable_is_a_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    denied = r"could not start '.*server\.sh': Permission denied"
    with pytest.raises(ServerStartError, match=denied):
        async with stdio_client(StdioServerParameters(str(script))):
            pass  # pragma: no cover


async def test_a_missing_working_directory_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    params = StdioServerParameters(sys.executable, ["-c", "pass"], cwd=missing)
    with pytest.raises(ServerStartError, match="working directory") as caught:
        async with stdio_client(params):
            pass  # pragma: no cover
    assert str(missing) in str(caught.value)


async def test_after_close() -> None:
    async with stdio_client(fixture("server.py")) as stream:
        pass
    await stream.aclose()  # idempotent
    assert await stream.receive() is None
    with pytest.raises(ConnectionClosed):
        await stream.send(Notification(method="late"))
    assert repr(stream).startswith("<StdioClientStream 'python")

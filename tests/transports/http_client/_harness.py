"""Real servers on loopback for the HTTP client tests.

* :class:`PeerProcess` runs a server script as a child process (the official SDK's, or
  mcpkit's own): the script binds its socket *before* starting uvicorn and prints ``PORT n``, so a
  connection made right after reading that line waits in the kernel's backlog instead of racing
  the start-up. The process can be killed (``SIGKILL``, mid-stream) and restarted on the same
  port. Its stdout is read for markers (events, not sleeps); its stderr goes to a file whose tail
  is shown when a wait fails.
* :func:`running` serves an ASGI app with uvicorn inside the test's event loop (scripted "bad
  servers" whose every byte the test controls), also on a socket that is already listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any, Final

import pytest
import uvicorn

from _peers import MCP_PYTHON

ROOT: Final = Path(__file__).resolve().parents[3]
PEERS: Final = Path(__file__).resolve().parent / "peers"
SDK_SERVER: Final = PEERS / "sdk_http_server.py"
KIT_SERVER: Final = PEERS / "kit_http_server.py"
START_TIMEOUT: Final = 30.0
"""Seconds a peer may take to print its port (the SDK imports a lot on a busy 2-core box)."""
WAIT: Final = 15.0
"""Bound on anything else a test waits for."""
STOP_TIMEOUT: Final = 10.0

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def sdk_python() -> str:
    """The reference SDK's interpreter; a missing peer is a failure, never a skip."""
    if not MCP_PYTHON.exists():
        pytest.fail(
            f"the official MCP SDK peer is missing ({MCP_PYTHON}); run scripts/install-peers"
        )
    return str(MCP_PYTHON)


class PeerProcess:
    """One server process; ``url(path)`` once started."""

    def __init__(self, argv: Sequence[str], log: Path) -> None:
        self.argv = list(argv)
        self.log = log
        self.port: int | None = None
        self._process: asyncio.subprocess.Process | None = None

    def url(self, path: str = "/mcp") -> str:
        assert self.port is not None, "not started"
        return f"http://127.0.0.1:{self.port}{path}"

    async def start(self, port: int | None = None) -> PeerProcess:
        argv = list(self.argv)
        if port is not None:
            argv += ["--port", str(port)]
        with self.log.open("ab") as err:
            self._process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        line = await self.wait_for_line("PORT ", timeout=START_TIMEOUT)
        self.port = int(line.split()[1])
        return self

    async def wait_for_line(self, prefix: str, timeout: float = WAIT) -> str:
        """The next stdout line starting with ``prefix`` (bounded wait)."""
        process = self._process
        assert process is not None and process.stdout is not None
        try:
            async with asyncio.timeout(timeout):
                while True:
                    raw = await process.stdout.readline()
                    if not raw:
                        pytest.fail(f"{self.argv[1]} exited before {prefix!r}: {self.tail()}")
                    text = raw.decode().strip()
                    if text.startswith(prefix):
                        return text
        except TimeoutError:
            pytest.fail(f"{self.argv[1]} printed no {prefix!r} within {timeout} s: {self.tail()}")

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return "(no log)"

    async def kill(self) -> None:
        """SIGKILL: the server vanishes mid-whatever, as in a crash."""
        process, self._process = self._process, None
        if process is None or process.returncode is not None:
            return
        process.send_signal(signal.SIGKILL)
        await process.wait()

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            async with asyncio.timeout(STOP_TIMEOUT):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


@contextlib.asynccontextmanager
async def peer(argv: Sequence[str], log: Path) -> AsyncIterator[PeerProcess]:
    process = PeerProcess(argv, log)
    await process.start()
    try:
        yield process
    finally:
        await process.stop()


def sdk_argv(*flags: str) -> list[str]:
    return [sdk_python(), str(SDK_SERVER), *flags]


def kit_argv(*flags: str) -> list[str]:
    return [sys.executable, str(KIT_SERVER), *flags]


@contextlib.asynccontextmanager
async def running(app: Any, *, lifespan: str = "off") -> AsyncIterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port) in this loop; yields ``http://127.0.0.1:N``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan=lifespan))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        server.force_exit = True  # open SSE streams would otherwise hold the shutdown
        try:
            async with asyncio.timeout(STOP_TIMEOUT):
                await task
        except TimeoutError:
            task.cancel()
        sock.close()


async def read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def respond(
    send: Send,
    status: int,
    body: bytes = b"",
    content_type: str | None = "application/json",
    headers: Sequence[tuple[str, str]] = (),
) -> None:
    raw = [(k.encode(), v.encode()) for k, v in headers]
    if content_type is not None:
        raw.append((b"content-type", content_type.encode()))
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def start_sse(send: Send, headers: Sequence[tuple[str, str]] = ()) -> None:
    raw = [(k.encode(), v.encode()) for k, v in headers]
    raw.append((b"content-type", b"text/event-stream"))
    await send({"type": "http.response.start", "status": 200, "headers": raw})


async def sse_event(send: Send, data: bytes, *, event_id: str | None = None) -> None:
    head = b"" if event_id is None else b"id: " + event_id.encode() + b"\n"
    body = head + b"data: " + data + b"\n\n"
    await send({"type": "http.response.body", "body": body, "more_body": True})


async def end_body(send: Send) -> None:
    await send({"type": "http.response.body", "body": b""})


def header(scope: Scope, name: str) -> str | None:
    wanted = name.lower().encode()
    for key, value in scope["headers"]:
        if key == wanted:
            return str(value.decode("latin-1"))
    return None

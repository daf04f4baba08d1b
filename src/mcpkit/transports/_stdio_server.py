"""The server side of stdio: this process's stdin and stdout carry the protocol.

``async with stdio_server() as stream`` does three things besides framing messages:

* **Protects stdout.** Anything but protocol messages on stdout corrupts the connection, and a
  stray ``print()`` (in a tool, or a library it calls, or a child process it starts) is the most
  common way MCP servers break. On entry the real stdout is duplicated for the protocol's private
  use, then file descriptor 1 and ``sys.stdout`` are pointed at stderr; file descriptor 0 is
  pointed at ``/dev/null`` so that nothing else (``input()``, a child process) can swallow
  protocol bytes. All of it is restored on exit.
* **Ends on stdin EOF**: ``receive`` returns ``None`` once the client closes our stdin (2026-07-28:
  servers SHOULD exit promptly on stdin EOF).
* **Ends when the parent dies**, even if something else still holds our stdin open (a sibling,
  a grandchild): a background task owned by the context manager polls ``os.getppid()`` every
  :data:`PARENT_POLL_INTERVAL` seconds and ends the stream when we are re-parented.

I/O runs on the event loop's pipe transports over the duplicated descriptors (no thread per
line), with flow control on writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import AsyncIterator
from typing import Final, TextIO

from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._framing import MAX_LINE_BYTES
from mcpkit.transports._lines import LineStream
from mcpkit.transports._pipes import FileSink, PipeSink, ReadPipe, open_read_fd, open_write_fd

__all__ = ["PARENT_POLL_INTERVAL", "StdioServerStream", "stdio_server"]

PARENT_POLL_INTERVAL: Final = 1.0
"""Seconds between checks that the process that started us is still alive."""

logger = logging.getLogger("mcpkit.stdio.server")


class StdioServerStream(LineStream):
    """The protocol stream over this process's (duplicated) stdin/stdout. Made by
    :func:`stdio_server`; implements :class:`~mcpkit._runtime.stream.MessageStream`."""

    def __init__(
        self, read_pipe: ReadPipe, sink: PipeSink | FileSink, *, max_message_bytes: int
    ) -> None:
        super().__init__(read_pipe.source, sink, max_message_bytes=max_message_bytes)
        self._read_pipe = read_pipe
        self._write_end = sink

    def __repr__(self) -> str:
        return "<StdioServerStream>"

    async def _broken_reason(self) -> str:
        return "the client stopped reading the server's stdout"

    def end_input(self) -> None:
        """Stop reading stdin: lines already read are still delivered, then ``receive`` gives
        ``None``. Used when the parent died; harmless to call twice."""
        self._read_pipe.stop()

    async def aclose(self) -> None:
        """Stop reading, flush what was sent (bounded), close our copies of stdin/stdout."""
        if self._closed:
            return
        self._closed = True
        self._read_pipe.close()
        await self._write_end.aclose()


class _StdioRedirect:
    """Takes fds 0 and 1 for the protocol and leaves harmless stand-ins in their place."""

    def __init__(self) -> None:
        self.protocol_in = -1
        self.protocol_out = -1
        self._saved_in = -1
        self._saved_out = -1
        self._saved_stdout: TextIO | None = None
        self._blocking: tuple[bool, bool] = (True, True)

    def enter(self) -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()  # whatever was printed before belongs before the protocol
        # A process started with fd 0 or 1 *closed* (``0<&-``) has ``sys.__stdin__`` /
        # ``sys.__stdout__`` set to None, and the number was free for the next file opened:
        # by now it may be the event loop's own epoll descriptor. That is no input (read as
        # immediate end of input: the server exits cleanly) and must be neither read, replaced
        # nor restored.
        in_closed = sys.__stdin__ is None
        out_closed = sys.__stdout__ is None
        self._blocking = (
            True if in_closed else os.get_blocking(0),
            True if out_closed else os.get_blocking(1),
        )
        if in_closed:
            self.protocol_in = os.open(os.devnull, os.O_RDONLY)
        else:
            self.protocol_in = os.dup(0)
            self._saved_in = os.dup(0)
            devnull = os.open(os.devnull, os.O_RDONLY)
            try:
                os.dup2(devnull, 0)
            finally:
                os.close(devnull)
        if out_closed:
            self.protocol_out = os.open(os.devnull, os.O_WRONLY)
        else:
            self.protocol_out = os.dup(1)
            self._saved_out = os.dup(1)
            try:
                os.dup2(2, 1)
            except OSError:  # no stderr at all: stray output is discarded instead
                sink = os.open(os.devnull, os.O_WRONLY)
                os.dup2(sink, 1)
                os.close(sink)
        self._saved_stdout = sys.stdout
        sys.stdout = sys.stderr

    def exit(self) -> None:
        if self._saved_stdout is not None:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            sys.stdout = self._saved_stdout
            self._saved_stdout = None
        for saved, target, blocking in (
            (self._saved_in, 0, self._blocking[0]),
            (self._saved_out, 1, self._blocking[1]),
        ):
            if saved < 0:
                continue
            with contextlib.suppress(OSError):
                # The loop made the shared open file non-blocking; a terminal left that way
                # breaks the shell that owns it.
                os.set_blocking(saved, blocking)
                os.dup2(saved, target)
            with contextlib.suppress(OSError):
                os.close(saved)
        self._saved_in = self._saved_out = -1


async def _watch_parent(stream: StdioServerStream, parent: int, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        if os.getppid() != parent:
            logger.info("parent process %d is gone; ending the stdio stream", parent)
            stream.end_input()
            return


@contextlib.asynccontextmanager
async def stdio_server(
    *,
    max_message_bytes: int = MAX_LINE_BYTES,
    parent_poll_interval: float | None = PARENT_POLL_INTERVAL,
) -> AsyncIterator[StdioServerStream]:
    """Serve the protocol on this process's stdin/stdout (see the module docstring).

    ``max_message_bytes`` bounds one inbound line; a longer one comes out of ``receive`` as a
    ``MessageDecodeError`` (-32600) and the stream carries on. ``parent_poll_interval=None``
    turns off the parent-death watch.
    """
    parent = os.getppid()  # now, not when the watch task first runs: the parent may die first
    redirect = _StdioRedirect()
    redirect.enter()
    tasks = TaskSet(asyncio.get_running_loop(), "mcpkit-stdio-server", logger)
    stream: StdioServerStream | None = None
    try:
        read_pipe = await open_read_fd(redirect.protocol_in)
        redirect.protocol_in = -1  # owned by the pipe now
        try:
            sink = await open_write_fd(redirect.protocol_out)
        except BaseException:
            read_pipe.close()
            raise
        redirect.protocol_out = -1
        stream = StdioServerStream(read_pipe, sink, max_message_bytes=max_message_bytes)
        if parent_poll_interval is not None:
            tasks.spawn(
                _watch_parent(stream, parent, parent_poll_interval),
                name="mcpkit-stdio-parent-watch",
            )
        yield stream
    finally:
        try:
            await tasks.aclose()
            if stream is not None:
                await stream.aclose()
        finally:
            for fd in (redirect.protocol_in, redirect.protocol_out):
                if fd >= 0:
                    os.close(fd)
            redirect.exit()

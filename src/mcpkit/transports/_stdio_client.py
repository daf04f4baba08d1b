"""The client side of stdio: start a server as a child process and talk to it over its pipes.

``async with stdio_client(StdioServerParameters("uvx", ["some-server"])) as stream`` gives a
:class:`~mcpkit._runtime.stream.MessageStream`. Around the framing it handles the child's life:

* **Environment.** The child gets only the allow-listed variables of ours
  (:data:`~mcpkit.transports._process.DEFAULT_ALLOWED_ENV`) plus what the parameters add, so API
  keys and tokens in the host's environment do not leak into every server it starts.
* **Its own process group** (``start_new_session``), so stopping it reaches whatever it started.
* **stderr** is read continuously (a full stderr pipe would block the child) and the last
  :data:`STDERR_TAIL_LINES` lines are kept for error messages. Where each line goes is the
  parameters' ``stderr`` (:data:`StderrSink`): by default (``"show"``) to our own
  ``sys.stderr``, as the server wrote it, so a tool's traceback or a ``print(..., file=sys.stderr)``
  reaches the person running the client (the official SDK does the same); ``"log"`` logs it to
  ``mcpkit.stdio.<name>`` at :data:`STDERR_LOG_LEVEL` (marked with :data:`STDERR_RECORD_ATTR`;
  the ``mcpkit`` command uses this to print it its own way); a text file object (an
  ``io.StringIO``) captures it. :func:`set_default_stderr` changes the default of a process.
* **Shutdown** as the spec says: close stdin, wait :data:`STDIN_CLOSE_TIMEOUT`, SIGTERM the
  group, wait :data:`TERMINATE_TIMEOUT`, SIGKILL the group. When the server process has exited
  (by itself or by this sequence) the rest of its group is killed too: nothing is left behind.
* **Unexpected exit.** ``receive`` returns ``None`` at the end of the child's stdout; ``send``
  raises :class:`~mcpkit.protocol._errors.ConnectionBroken` naming the exit code and quoting the
  stderr tail.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections import deque
from collections.abc import AsyncIterator, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Final, Literal, TextIO, cast

from mcpkit._runtime.concurrency import cancel_and_wait
from mcpkit._runtime.tasks import TaskSet
from mcpkit.protocol._errors import PARSE_ERROR, ConnectionBroken, MessageDecodeError, ParseError
from mcpkit.protocol._framing import MAX_LINE_BYTES, FrameTooLarge, LineFramer
from mcpkit.transports._lines import READ_CHUNK_BYTES, LineStream, decode_line
from mcpkit.transports._pipes import PipeSink, PipeSource, limit_pipe_reads
from mcpkit.transports._process import (
    DEFAULT_ALLOWED_ENV,
    KILL_SIGNAL,
    child_environment,
    describe_exit,
    signal_group,
)
from mcpkit.types._jsonrpc import Message

__all__ = [
    "DEFAULT_ALLOWED_ENV",
    "KILL_TIMEOUT",
    "MAX_STDERR_LINE_BYTES",
    "STDERR_LOG_LEVEL",
    "STDERR_RECORD_ATTR",
    "STDERR_TAIL_LINES",
    "STDIN_CLOSE_TIMEOUT",
    "TERMINATE_TIMEOUT",
    "ServerStartError",
    "StderrSink",
    "StdioClientStream",
    "StdioServerParameters",
    "check_stderr_sink",
    "set_default_stderr",
    "stdio_client",
]

STDIN_CLOSE_TIMEOUT: Final = 2.0
"""Seconds a server gets to exit after its stdin is closed, before SIGTERM."""
TERMINATE_TIMEOUT: Final = 2.0
"""Seconds a server gets to exit after SIGTERM, before SIGKILL."""
KILL_TIMEOUT: Final = 5.0
"""Seconds to wait for the exit after SIGKILL (normally immediate)."""
EXIT_REPORT_TIMEOUT: Final = 2.0
"""When the pipe breaks, how long to wait for the exit code and last stderr lines to arrive."""
DRAIN_TIMEOUT: Final = 2.0
"""At close, how long to read the child's leftover output until its pipes reach EOF."""
STDERR_TAIL_LINES: Final = 50
"""stderr lines kept for error messages."""
MAX_STDERR_LINE_BYTES: Final = 16 * 1024
"""A longer stderr line is dropped (noted in the log) rather than buffered."""
STDERR_LOG_LEVEL: Final = logging.INFO
"""stderr is the server's log, not an error channel (the spec says not to treat it as one)."""
STDERR_RECORD_ATTR: Final = "mcpkit_stderr"
"""Log records of the server's stderr lines carry the server's name under this attribute, so a
handler (the ``mcpkit`` command's) can show them apart from this module's own messages."""
STRAY_TEXT_SHOWN: Final = 200
"""Characters of a server's stray stdout line quoted in the parse error it causes."""
TAIL_LINES_IN_ERRORS: Final = 20
"""stderr lines quoted in a ``ConnectionBroken`` message."""


class ServerStartError(ConnectionBroken):
    """The server process could not be started (no such command, not executable, bad cwd)."""


StderrSink = Literal["show", "log"] | TextIO
"""Where a stdio server's stderr lines go: ``"show"`` (our ``sys.stderr``, as written),
``"log"`` (the ``mcpkit.stdio.<name>`` logger) or a text file object (captured there)."""
STDERR_SINKS: Final = ("show", "log")

_default_stderr: StderrSink = "show"


def set_default_stderr(sink: StderrSink) -> StderrSink:
    """Make ``sink`` the default for servers started without an explicit ``stderr``; returns the
    previous default. For programs that own the process's stderr (the ``mcpkit`` command logs
    the lines so it can hold them back until a connection is up)."""
    global _default_stderr
    check_stderr_sink(sink)
    previous, _default_stderr = _default_stderr, sink
    return previous


def check_stderr_sink(sink: object) -> None:
    """Raise ``ValueError`` unless ``sink`` is a :data:`StderrSink`."""
    if isinstance(sink, str) and sink in STDERR_SINKS:
        return
    if not isinstance(sink, str) and callable(getattr(sink, "write", None)):
        return
    raise ValueError(
        f'stderr must be "show", "log" or a text file object (io.StringIO()), not {sink!r}'
    )


@dataclass(frozen=True, slots=True)
class StdioServerParameters:
    """How to start a stdio server.

    ``env`` is added on top of the variables named by ``inherit_env`` (taken from our own
    environment); pass ``inherit_env=()`` for a child that sees only ``env``. ``name`` is used for
    the stderr logger and in error messages (default: the command's file name). ``stderr`` is
    where the server's stderr lines go (:data:`StderrSink`; ``None``: the process default,
    ``"show"`` unless :func:`set_default_stderr` changed it).
    """

    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = None
    cwd: str | os.PathLike[str] | None = None
    inherit_env: Collection[str] = DEFAULT_ALLOWED_ENV
    name: str | None = field(default=None)
    stderr: StderrSink | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        if self.stderr is not None:
            check_stderr_sink(self.stderr)

    @property
    def display_name(self) -> str:
        return self.name or PurePath(self.command).name or self.command


class _ChildProtocol(asyncio.SubprocessProtocol):
    """The child's pipes as mcpkit's own pipe ends, and an event set when it exits.

    ``create_subprocess_exec``'s protocol gives ``StreamReader``/``StreamWriter`` ends, which
    can only be pulled: every answer then woke a reader task, which woke the caller. Here stdout
    is a :class:`~mcpkit.transports._pipes.PipeSource`, so the session can have answers pushed
    from the pipe's read callback (``LineStream.start_push``), and stdin a
    :class:`~mcpkit.transports._pipes.PipeSink`, whose ``drain`` is skipped while the pipe is
    not full. stderr is a ``PipeSource`` too, pulled by the stderr pump.

    stdout is not one of the subprocess transport's pipes: asyncio's subprocess transport hands
    each chunk a pipe reads to the protocol with ``call_soon``, one more event-loop iteration
    for every answer. :meth:`StdioClientStream.spawn` gives the child a pipe of its own and
    connects :attr:`stdout` to it with ``connect_read_pipe``, whose read callback is the
    protocol's ``data_received`` itself.

    The exit is its own event: on Python 3.11 ``Process.wait()`` returns only once the process
    has exited *and* all its pipes have closed, which a grandchild holding stderr, or unread
    stdout, can postpone forever.
    """

    def __init__(self, limit: int) -> None:
        self.stdin = PipeSink()
        self.stdout = PipeSource(limit)
        self.stderr = PipeSource(limit)
        self.exited = asyncio.Event()
        self._transport: asyncio.SubprocessTransport | None = None
        self._open_pipes: set[int] = set()
        self._process_exited = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # not isinstance: uvloop's transports do not derive from asyncio's classes
        self._transport = process = cast(asyncio.SubprocessTransport, transport)
        for fd, end in ((0, self.stdin), (1, self.stdout), (2, self.stderr)):
            pipe = process.get_pipe_transport(fd)
            if pipe is not None:
                end.connection_made(pipe)
                if fd:
                    self._open_pipes.add(fd)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.stdout.data_received(data)
        elif fd == 2:
            self.stderr.data_received(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self.stdin.connection_lost(exc)
            return
        (self.stdout if fd == 1 else self.stderr).connection_lost(exc)
        self._open_pipes.discard(fd)
        self._maybe_close_transport()

    # the stdin pipe's flow control reaches the subprocess protocol, not the pipe's own
    def pause_writing(self) -> None:
        self.stdin.pause_writing()

    def resume_writing(self) -> None:
        self.stdin.resume_writing()

    def process_exited(self) -> None:
        self._process_exited = True
        self.exited.set()
        self._maybe_close_transport()

    def _maybe_close_transport(self) -> None:
        # as asyncio's own protocol does: once nothing more can arrive, let go of the transport
        if not self._open_pipes and self._process_exited and self._transport is not None:
            self._transport.close()
            self._transport = None


class StdioClientStream(LineStream):
    """A running stdio server and the message stream over its pipes.

    Create it with :func:`stdio_client` (or :meth:`spawn` when something else owns its lifetime;
    then call :meth:`aclose`). ``pid``, ``returncode`` (``None`` while it runs) and
    ``stderr_tail`` describe the process.
    """

    def __init__(
        self,
        transport: asyncio.SubprocessTransport,
        protocol: _ChildProtocol,
        stdout: asyncio.ReadTransport,
        params: StdioServerParameters,
        *,
        max_message_bytes: int,
        stdin_close_timeout: float,
        terminate_timeout: float,
    ) -> None:
        super().__init__(protocol.stdout, protocol.stdin, max_message_bytes=max_message_bytes)
        self._transport = transport
        self._protocol = protocol
        self._stdout = stdout
        self._pid = transport.get_pid()
        self._params = params
        self._name = params.display_name
        self._stdin_close_timeout = stdin_close_timeout
        self._terminate_timeout = terminate_timeout
        self._log = logging.getLogger(f"mcpkit.stdio.{self._name}")
        sink = params.stderr
        self._stderr_sink: StderrSink = sink if sink is not None else _default_stderr
        self._tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._exited = protocol.exited
        self._stopping = False
        # the exit watch, the stderr pump and the shutdown: all ended by the shutdown itself
        self._tasks = TaskSet(asyncio.get_running_loop(), f"mcpkit-stdio-{self._pid}", self._log)
        self._exit_task = self._tasks.spawn(
            self._watch_exit(), name=f"mcpkit-stdio-exit-{self._pid}"
        )
        self._stderr_task = self._tasks.spawn(
            self._pump_stderr(), name=f"mcpkit-stdio-stderr-{self._pid}"
        )
        self._shutdown_task: asyncio.Task[None] | None = None

    @classmethod
    async def spawn(
        cls,
        params: StdioServerParameters,
        *,
        max_message_bytes: int = MAX_LINE_BYTES,
        stdin_close_timeout: float = STDIN_CLOSE_TIMEOUT,
        terminate_timeout: float = TERMINATE_TIMEOUT,
    ) -> StdioClientStream:
        """Start the server process; raises :class:`ServerStartError` if it cannot start."""
        env = child_environment(params.inherit_env, params.env)
        loop = asyncio.get_running_loop()
        stdout_fd, child_stdout_fd = os.pipe()  # see _ChildProtocol: not the transport's pipe
        try:
            # What asyncio.create_subprocess_exec does, with a protocol that reports the exit.
            transport, protocol = await loop.subprocess_exec(
                lambda: _ChildProtocol(READ_CHUNK_BYTES),
                params.command,
                *params.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=child_stdout_fd,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=params.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            os.close(stdout_fd)
            reason = exc.strerror or str(exc)
            cwd = os.fspath(params.cwd) if params.cwd is not None else None
            if cwd is not None and exc.filename is not None and os.fspath(exc.filename) == cwd:
                reason = f"working directory {cwd!r}: {reason}"
            raise ServerStartError(f"could not start {params.command!r}: {reason}") from exc
        except BaseException:
            os.close(stdout_fd)
            raise
        finally:
            os.close(child_stdout_fd)  # the child has its copy: EOF comes when it lets go
        stdout_pipe = os.fdopen(stdout_fd, "rb", buffering=0)
        try:
            stdout, _ = await loop.connect_read_pipe(lambda: protocol.stdout, stdout_pipe)
        except BaseException:  # cancelled (or failed) before it could be used: leave nothing
            stdout_pipe.close()
            signal_group(transport.get_pid(), KILL_SIGNAL)
            transport.close()
            raise
        limit_pipe_reads(stdout)
        limit_pipe_reads(transport.get_pipe_transport(2))
        return cls(
            transport,
            protocol,
            stdout,
            params,
            max_message_bytes=max_message_bytes,
            stdin_close_timeout=stdin_close_timeout,
            terminate_timeout=terminate_timeout,
        )

    def __repr__(self) -> str:
        return f"<StdioClientStream {self._name!r} pid={self.pid}>"

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has exited (negative: killed by that signal)."""
        return self._transport.get_returncode()

    @property
    def stderr_tail(self) -> tuple[str, ...]:
        """The last :data:`STDERR_TAIL_LINES` lines the server wrote to stderr."""
        return tuple(self._tail)

    # -- background tasks ----------------------------------------------------------------------

    async def _watch_exit(self) -> None:
        await self._exited.wait()
        returncode = self.returncode
        if not self._stopping and returncode is not None:
            self._log.warning("stdio server %r %s", self._name, describe_exit(returncode))
        # Whatever the server started and left behind in its group goes with it (and with it
        # whatever still holds our pipes open).
        signal_group(self._pid, KILL_SIGNAL)

    async def _pump_stderr(self) -> None:
        stderr = self._protocol.stderr
        framer = LineFramer(MAX_STDERR_LINE_BYTES)
        while True:
            try:
                chunk = await stderr.read(READ_CHUNK_BYTES)
            except (ConnectionError, OSError):
                chunk = b""
            if chunk:
                lines: list[bytes | FrameTooLarge] = framer.feed(chunk)
            else:
                last = framer.end()
                lines = [last] if last is not None else []
            for line in lines:
                if isinstance(line, FrameTooLarge):
                    text = f"[a stderr line of more than {line.limit} bytes was dropped]"
                else:
                    text = line.decode("utf-8", "replace")
                self._tail.append(text)
                self._emit_stderr(text)
            if not chunk:
                return

    def _emit_stderr(self, text: str) -> None:
        sink = self._stderr_sink
        if sink == "log":
            self._log.log(STDERR_LOG_LEVEL, "%s", text, extra={STDERR_RECORD_ATTR: self._name})
            return
        # ``sys.stderr`` is looked up per line: whatever it is now (redirected, captured).
        out = sys.stderr if sink == "show" else sink
        try:
            out.write(text + "\n")
            out.flush()
        except (OSError, ValueError):  # our stderr is gone: the line has nowhere to go
            pass

    def _decode(self, line: bytes | FrameTooLarge) -> Message | MessageDecodeError:
        decoded = decode_line(line)
        if (
            isinstance(decoded, MessageDecodeError)
            and decoded.error.code == PARSE_ERROR
            and isinstance(line, bytes)
            and line.lstrip()[:1] not in (b"{", b"[")
        ):
            # Not a broken message: text (a print() at import time, a banner) where only
            # protocol messages may go. Say so, and show it, rather than "byte 0".
            text = line.decode("utf-8", "replace").rstrip("\r")
            if len(text) > STRAY_TEXT_SHOWN:
                text = text[:STRAY_TEXT_SHOWN] + "…"
            decoded = MessageDecodeError(
                ParseError(
                    "Parse error: the server wrote non-protocol text to its "
                    f"stdout, which carries only JSON-RPC messages (print to stderr instead): "
                    f"{text!r}"
                ),
                answerable=decoded.answerable,
            )
        return decoded

    # -- MessageStream -------------------------------------------------------------------------

    def send(self, message: Message) -> Coroutine[Any, Any, None]:
        # Once the server's stdout has ended nothing can answer; and the end of stdout can be
        # seen a moment before the kernel closes the server's stdin (so a write could still
        # "succeed" into a pipe nobody will read): fail now, with the reason. A plain method
        # handing over LineStream's coroutine: one coroutine per message, not two.
        if not self._closed and (self._eof or self._transport.get_returncode() is not None):
            return self._refuse_send()
        return LineStream.send(self, message)

    def send_nowait(self, message: Message) -> Coroutine[Any, Any, None] | None:
        # ``send``'s check, then LineStream's write without a coroutine (see send_nowait there)
        if not self._closed and (self._eof or self._transport.get_returncode() is not None):
            return self._refuse_send()
        return LineStream.send_nowait(self, message)

    async def _refuse_send(self) -> None:
        raise ConnectionBroken(await self._broken_reason())

    async def wait_exit_report(self) -> None:
        """Wait (bounded by :data:`EXIT_REPORT_TIMEOUT`) for the exit code and the last stderr
        lines: the pipe usually breaks a moment before the exit is reported, and an error that
        says why the server went away beats one that only says it did."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), EXIT_REPORT_TIMEOUT)
        await asyncio.wait([self._stderr_task], timeout=EXIT_REPORT_TIMEOUT)

    async def _broken_reason(self) -> str:
        await self.wait_exit_report()
        returncode = self.returncode
        if returncode is not None:
            what = describe_exit(returncode)
        else:
            what = "closed its stdout" if self._eof else "stopped reading its stdin"
        message = f"stdio server {self._name!r} (pid {self.pid}) {what}"
        tail = list(self._tail)[-TAIL_LINES_IN_ERRORS:]
        if tail:
            message += "; last stderr lines:\n" + "\n".join(f"  {line}" for line in tail)
        else:
            message += " (no stderr output)"
        return message

    async def aclose(self) -> None:
        """Stop the server (see the module docstring). Idempotent; never raises.

        If this is cancelled while waiting politely, the whole process group is killed at once
        before the cancellation propagates, so a cancelled close still leaves nothing behind.
        """
        self._closed = True
        self._stopping = True
        if self._shutdown_task is None:
            self._shutdown_task = self._tasks.spawn(
                self._shutdown(), name=f"mcpkit-stdio-shutdown-{self.pid}"
            )
        try:
            await asyncio.shield(self._shutdown_task)
        except asyncio.CancelledError:
            signal_group(self.pid, KILL_SIGNAL)
            raise

    async def _wait_exit(self, seconds: float) -> bool:
        try:
            await asyncio.wait_for(self._exited.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def _shutdown(self) -> None:
        try:
            await self._stop_process()
        except Exception:  # never raise from close; but say what went wrong
            self._log.exception("stopping stdio server %r failed", self._name)
            signal_group(self.pid, KILL_SIGNAL)
        await asyncio.wait([self._exit_task], timeout=KILL_TIMEOUT)
        await self._drain_stdout()
        await asyncio.wait([self._stderr_task], timeout=DRAIN_TIMEOUT)
        await cancel_and_wait(self._exit_task)
        await cancel_and_wait(self._stderr_task)
        # Normally every pipe is at EOF by now and this only confirms it; if something outside
        # the process group still holds a pipe, this lets go of our ends.
        self._stdout.close()
        self._transport.close()

    async def _stop_process(self) -> None:
        self._protocol.stdin.close()  # EOF: a well-behaved server exits now
        if self._exited.is_set() or await self._wait_exit(self._stdin_close_timeout):
            return
        self._log.info(
            "stdio server %r did not exit %.3g s after stdin closed; sending SIGTERM",
            self._name,
            self._stdin_close_timeout,
        )
        signal_group(self.pid, signal.SIGTERM)
        if await self._wait_exit(self._terminate_timeout):
            return
        self._log.warning(
            "stdio server %r ignored SIGTERM for %.3g s; killing it",
            self._name,
            self._terminate_timeout,
        )
        signal_group(self.pid, KILL_SIGNAL)
        if not await self._wait_exit(KILL_TIMEOUT):
            self._log.error("stdio server %r (pid %d) survived SIGKILL", self._name, self.pid)

    async def _drain_stdout(self) -> None:
        """Read leftover output to EOF so the child's pipes close cleanly (bounded)."""
        stdout = self._protocol.stdout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAIN_TIMEOUT
        try:
            async with asyncio.timeout_at(deadline):
                async with self._receive_lock:
                    while await stdout.read(READ_CHUNK_BYTES):
                        pass
        except (TimeoutError, ConnectionError, OSError):
            pass


@contextlib.asynccontextmanager
async def stdio_client(
    params: StdioServerParameters,
    *,
    max_message_bytes: int = MAX_LINE_BYTES,
    stdin_close_timeout: float = STDIN_CLOSE_TIMEOUT,
    terminate_timeout: float = TERMINATE_TIMEOUT,
) -> AsyncIterator[StdioClientStream]:
    """Start the server described by ``params``; stop it (never leaving orphans) on exit.

    Raises :class:`ServerStartError` (a ``ConnectionBroken``) naming the command if it cannot be
    started.
    """
    stream = await StdioClientStream.spawn(
        params,
        max_message_bytes=max_message_bytes,
        stdin_close_timeout=stdin_close_timeout,
        terminate_timeout=terminate_timeout,
    )
    try:
        yield stream
    finally:
        await stream.aclose()

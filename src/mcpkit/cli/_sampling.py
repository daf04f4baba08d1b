"""Answering a server's sampling requests from the command line.

A server's tool may ask the client's model for a completion (``sampling/createMessage``). The
``mcpkit`` command has no model of its own, so it offers two stand-ins:

* :class:`TerminalSampling` shows the request on stderr (system prompt, each message, the token
  limit) and lets the person type the model's reply: one line read from stdin (a terminal, or a
  pipe in scripts). An empty line or end of input rejects the request.
* :class:`CommandSampling` (``--sampling-command CMD``) hands the request to a local command:
  the request's params as JSON on its stdin, the reply text read from its stdout. The command
  runs through the shell (pipes work); a non-zero exit, no output or a timeout rejects the
  request with the command's stderr in the message.

A rejection is the JSON-RPC error ``-1`` ("User rejected sampling request"), the code the spec
suggests: in a legacy session the server's ``ctx.sample`` gets it; in 2026-07-28 the call stops
with it, as MRTR has no error reply. With ``--no-input`` and no command, sampling is not
declared at all, so the server knows not to ask.

:func:`one_at_a_time` makes concurrent questions (a legacy server may send an elicitation and
a sampling request at once) take turns at the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Final, TextIO

import msgspec

from mcpkit.protocol import JSONRPCError

__all__ = [
    "MAX_REPLY_BYTES",
    "REJECTED_CODE",
    "CommandSampling",
    "TerminalSampling",
    "describe_request",
    "one_at_a_time",
]

REJECTED_CODE: Final = -1
"""The error code for a sampling request the user (or the command) turned down."""
MAX_REPLY_BYTES: Final = 1024 * 1024
"""A sampling command's stdout beyond this is an error, not a reply."""
STDERR_TAIL: Final = 500
"""Characters of a failed command's stderr quoted in the error."""
MODEL_NAME: Final = "mcpkit-cli"
"""``model`` of a reply typed at the terminal."""

Handler = Callable[[Any, Any], Awaitable[Any]]


def rejected(reason: str) -> JSONRPCError:
    return JSONRPCError(f"User rejected sampling request: {reason}", code=REJECTED_CODE)


def _wire(params: Any) -> dict[str, Any]:
    data = params if isinstance(params, dict) else msgspec.to_builtins(params)
    return data if isinstance(data, dict) else {}


def _content_text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    parts = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        else:
            mime = block.get("mimeType", "")
            parts.append(f"[{kind}{' ' + mime if mime else ''}]")
    return " ".join(parts)


def describe_request(params: Any) -> list[str]:
    """The lines shown for a sampling request: system prompt, messages, limits."""
    data = _wire(params)
    lines = []
    if data.get("systemPrompt"):
        lines.append(f"  system: {data['systemPrompt']}")
    for message in data.get("messages") or []:
        if isinstance(message, dict):
            lines.append(f"  {message.get('role', '?')}: {_content_text(message.get('content'))}")
    limits = [f"max {data.get('maxTokens')} tokens"]
    if data.get("temperature") is not None:
        limits.append(f"temperature {data['temperature']}")
    if data.get("tools"):
        limits.append(f"{len(data['tools'])} tool(s) offered (a text reply ignores them)")
    lines.append(f"  ({', '.join(limits)})")
    return lines


def _reply(text: str, model: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model,
        "stopReason": "endTurn",
    }


class TerminalSampling:
    """A sampling handler that asks the person at the terminal to write the reply."""

    def __init__(self, stdin: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self._in = stdin or sys.stdin
        self._out = stderr or sys.stderr
        self.before_asking: list[Callable[[], None]] = []
        """Callables run before the request is shown (e.g. clearing a progress bar)."""

    async def _readline(self) -> str:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def read() -> None:
            try:
                line = self._in.readline()
            except (OSError, ValueError):
                line = ""
            loop.call_soon_threadsafe(_resolve, future, line)

        # a daemon thread: Ctrl-C while waiting exits at once (run_in_executor would block exit)
        threading.Thread(target=read, name="mcpkit-sampling-input", daemon=True).start()
        return await future

    async def __call__(self, params: Any, context: Any) -> dict[str, Any]:
        for hook in self.before_asking:
            hook()
        server = getattr(context, "server_name", "the server")
        self._out.write(f"\n{server} asks the model:\n")
        self._out.write("\n".join(describe_request(params)) + "\n")
        self._out.write("Reply as the model (one line; empty declines): ")
        self._out.flush()
        line = await self._readline()
        if not line:
            self._out.write("\n")
        text = line.rstrip("\r\n")
        if not text.strip():
            raise rejected("no reply was typed")
        return _reply(text, MODEL_NAME)


class CommandSampling:
    """A sampling handler that runs ``command`` (through the shell) for each request."""

    def __init__(self, command: str, *, timeout: float | None = None) -> None:
        self.command = command
        self.timeout = timeout
        words = shlex.split(command) or [command]
        self.model = words[0].rsplit("/", 1)[-1]

    async def __call__(self, params: Any, context: Any) -> dict[str, Any]:
        request = msgspec.json.encode(_wire(params))
        process = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            async with asyncio.timeout(self.timeout):
                out, err = await process.communicate(request)
        except TimeoutError:
            raise rejected(
                f"--sampling-command {self.command!r} did not answer within {self.timeout:g} s"
            ) from None
        finally:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        tail = err.decode("utf-8", "replace").strip()[-STDERR_TAIL:]
        if process.returncode != 0:
            raise rejected(
                f"--sampling-command {self.command!r} exited with {process.returncode}"
                + (f": {tail}" if tail else "")
            )
        if len(out) > MAX_REPLY_BYTES:
            raise rejected(f"--sampling-command printed more than {MAX_REPLY_BYTES} bytes")
        text = out.decode("utf-8", "replace").strip()
        if not text:
            raise rejected(f"--sampling-command {self.command!r} printed nothing")
        return _reply(text, self.model)


def one_at_a_time(handler: Handler, lock: asyncio.Lock) -> Handler:
    """``handler`` taking turns with every other handler wrapped with the same ``lock``."""

    async def serialized(params: Any, context: Any) -> Any:
        async with lock:
            return await handler(params, context)

    return serialized


def _resolve(future: asyncio.Future[str], line: str) -> None:
    if not future.done():
        future.set_result(line)

"""How a :class:`~mcpkit.client.Client` reaches a server: the connector interface and targets.

There are two shapes of connection, and the client is written against both:

* a **stream** — one long-lived bidirectional :class:`~mcpkit._runtime.stream.MessageStream`
  (a stdio child process, an in-process server, any byte stream with stdio framing). Legacy
  sessions and 2026 requests both run over it; 2026 listen-stream notifications are told apart
  by ``_meta["io.modelcontextprotocol/subscriptionId"]``. A :class:`StreamConnector` opens one.
* an **exchange** — stateless Streamable HTTP (2026), where every request is its own POST and
  its answer (JSON, or an SSE stream of related notifications ending with the response). An
  :class:`HttpConnector` opens an :class:`ExchangeTransport` for the lifetime of the client; the
  same transport also opens a legacy session stream when era detection finds a legacy server.

``resolve_target`` turns what users pass (a command line, a list, stdio parameters, a URL, a
Python file, an ``mcpServers`` entry, an in-process server, or a connector) into a connector.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import os
import re
import shlex
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from mcpkit._runtime.stream import MessageStream
from mcpkit.protocol._errors import UsageError
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response

__all__ = [
    "CommandConnector",
    "ExchangeTransport",
    "HttpConnector",
    "InMemoryConnector",
    "OpenStreamConnector",
    "StreamConnector",
    "Target",
    "UrlConnector",
    "describe_target",
    "python_file_connector",
    "resolve_target",
]

NotificationSink = Callable[[Notification], Awaitable[None]]


@runtime_checkable
class StreamConnector(Protocol):
    """Opens one :class:`MessageStream` to a server, for the lifetime of a client.

    ``connect()`` is an async context manager; leaving it must release everything (for stdio:
    close stdin, wait, then SIGTERM/SIGKILL the child).
    """

    def describe(self) -> str: ...

    def connect(self) -> contextlib.AbstractAsyncContextManager[MessageStream]: ...


@runtime_checkable
class ExchangeTransport(Protocol):
    """Stateless HTTP as the client sees it (implemented by the Streamable HTTP transport).

    * ``exchange`` POSTs one 2026 request and returns its response. Notifications the server
      sends on that request's SSE stream (progress, log messages, and for ``subscriptions/listen``
      the whole subscription) go to ``on_notification`` as they arrive. Headers come from the body
      (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``), and ``tool`` — the listed tool
      object for ``tools/call`` — supplies the ``x-mcp-header`` annotations for ``Mcp-Param-*``.
      Cancelling the awaiting task closes the stream, which is the 2026 cancel signal.
      An HTTP error whose body is a JSON-RPC error comes back as that :class:`ErrorResponse`;
      one without such a body raises :class:`~mcpkit.protocol._errors.RemoteProtocolError`;
      network failures raise :class:`~mcpkit.protocol._errors.ConnectionBroken`.
    * ``open_legacy_stream`` opens a legacy Streamable HTTP session (or the 2024-11-05
      HTTP+SSE transport) as a :class:`MessageStream` after era detection chose legacy.
    """

    async def exchange(
        self,
        request: Request,
        *,
        protocol_version: str,
        on_notification: NotificationSink,
        tool: Mapping[str, Any] | None = None,
    ) -> Response | ErrorResponse: ...

    def open_legacy_stream(self) -> contextlib.AbstractAsyncContextManager[MessageStream]: ...


@runtime_checkable
class HttpConnector(Protocol):
    """Opens an :class:`ExchangeTransport` (an HTTP client with its pool) for a client's life."""

    def describe(self) -> str: ...

    def connect_http(self) -> contextlib.AbstractAsyncContextManager[ExchangeTransport]: ...


Connector = StreamConnector | HttpConnector
Target = Any
"""A command line (``str``), an argv list, stdio parameters, a URL, a Python file (``"server.py"``
or ``"server.py:object"``, run as ``mcpkit run`` runs it), an ``mcpServers`` entry
(``dict``), an in-process server (anything with ``connect_in_memory()``), or a connector."""


class CommandConnector:
    """Launches a stdio server as a child process (``mcpkit.transports._stdio``)."""

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        name: str | None = None,
        stderr: Any = None,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env else None
        self.cwd = cwd
        self.name = name
        """Names the child in logs (``mcpkit.stdio.<name>``, its stderr lines) and errors."""
        self.stderr = stderr
        """Where the child's stderr goes (``mcpkit.transports._stdio.StderrSink``); ``None``: the
        parameters' choice, else the process default (our own stderr)."""
        self._params: Any = None

    @classmethod
    def from_parameters(cls, params: Any) -> CommandConnector:
        """Use ``StdioServerParameters`` (or anything with ``command``/``args``) as given."""
        connector = cls(
            params.command,
            list(getattr(params, "args", None) or ()),
            env=getattr(params, "env", None),
            cwd=getattr(params, "cwd", None),
        )
        connector._params = params
        return connector

    def describe(self) -> str:
        return shlex.join([self.command, *self.args])

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[MessageStream]:
        from mcpkit.transports import _stdio as stdio  # lazy: a URL-only client never loads it

        params = self._params
        if not isinstance(params, stdio.StdioServerParameters):
            params = stdio.StdioServerParameters(
                command=self.command, args=self.args, env=self.env, cwd=self.cwd, name=self.name
            )
        if self.stderr is not None:
            params = dataclasses.replace(params, stderr=self.stderr)
        async with stdio.stdio_client(params) as stream:
            yield stream


class InMemoryConnector:
    """Connects to a server object in this process through its ``connect_in_memory()`` hook.

    The hook may return a :class:`MessageStream`, an awaitable of one, or an async context
    manager yielding one; the server owns whatever task serves the other end.
    """

    def __init__(self, server: Any) -> None:
        self.server = server

    def describe(self) -> str:
        name = getattr(self.server, "name", None)
        return f"in-process server {name or type(self.server).__name__}"

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[MessageStream]:
        opened = self.server.connect_in_memory()
        if hasattr(opened, "__aenter__"):
            async with opened as stream:
                yield stream
            return
        if inspect.isawaitable(opened):
            opened = await opened
        try:
            yield opened
        finally:
            await opened.aclose()


class OpenStreamConnector:
    """Uses a stream that is already open (tests, custom transports). It can be used only once."""

    def __init__(self, stream: MessageStream, description: str = "an open message stream") -> None:
        self._stream: MessageStream | None = stream
        self._description = description

    def describe(self) -> str:
        return self._description

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[MessageStream]:
        stream, self._stream = self._stream, None
        if stream is None:
            raise UsageError("an already-open stream can be connected only once")
        try:
            yield stream
        finally:
            await stream.aclose()


class UrlConnector:
    """A Streamable HTTP server by URL, through ``mcpkit.transports.http`` (the ``http`` extra).

    The HTTP transport plugs in here: it must provide ``connect_http_client(url, headers=...)``
    returning an async context manager of an :class:`ExchangeTransport`.
    """

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None) -> None:
        self.url = url
        self.headers = dict(headers or {})

    def describe(self) -> str:
        return self.url

    def connect_http(self) -> contextlib.AbstractAsyncContextManager[ExchangeTransport]:
        try:
            from mcpkit.transports import http

            factory = getattr(http, "connect_http_client", None)  # loads httpx
        except ImportError as exc:
            raise UsageError(
                f"cannot connect to {self.url}: the Streamable HTTP client transport "
                f"(mcpkit.transports.http) is not available ({exc}); install mcpkit[http]"
            ) from None
        if factory is None:
            raise UsageError(
                f"cannot connect to {self.url}: mcpkit.transports.http has no "
                "connect_http_client(url, headers=...) yet"
            )
        opened: contextlib.AbstractAsyncContextManager[ExchangeTransport]
        opened = factory(self.url, headers=self.headers)
        return opened


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _from_entry(entry: Mapping[str, Any]) -> Connector:
    """An ``mcpServers`` (Claude Desktop / Cursor) or VS Code ``servers`` entry."""
    kind = entry.get("type") or entry.get("transport")
    url = entry.get("url") or entry.get("serverUrl")
    if isinstance(url, str) and kind in (None, "http", "streamable-http", "streamableHttp", "sse"):
        headers = entry.get("headers")
        return UrlConnector(url, headers=headers if isinstance(headers, Mapping) else None)
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise UsageError(
            'a server entry needs either a "command" (stdio) or a "url" (HTTP); got keys '
            f"{sorted(entry)}"
        )
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise UsageError('"args" of a server entry must be a list of strings')
    env = entry.get("env")
    if env is not None and not (
        isinstance(env, Mapping) and all(isinstance(v, str) for v in env.values())
    ):
        raise UsageError('"env" of a server entry must map names to strings')
    cwd = entry.get("cwd")
    return CommandConnector(command, args, env=env, cwd=cwd if isinstance(cwd, str) else None)


_PY_FILE: Final = re.compile(r"^(?P<path>.+\.py)(?::(?P<object>[A-Za-z_][\w.]*))?$")


def python_file_connector(spec: str) -> CommandConnector | None:
    """``server.py`` or ``server.py:object`` as the ``mcpkit`` command runs it, else ``None``.

    The file runs with this same interpreter through ``python -m mcpkit.cli run`` (so any
    module-level ``Server`` works, no ``__main__`` block needed), seeing our ``PYTHONPATH``.
    A ``.py`` name that is not a file is refused here: "No such file or directory" about a
    file that is there (the OS looking for a *program* called server.py) misleads.
    """
    found = _PY_FILE.match(spec)
    if found is None:
        return None
    path = found.group("path")
    if not os.path.isfile(path):
        raise UsageError(
            f"{path!r} is not a file (looked from {os.getcwd()}); give the path of a Python "
            "file that defines a Server, or a command line such as "
            f'"{sys.executable} {path}"'
        )
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    return CommandConnector(
        sys.executable, ["-m", "mcpkit.cli", "run", spec], env=env, name=os.path.basename(path)
    )


def resolve_target(target: Target) -> Connector:
    """The connector for ``target`` (see :data:`Target`); raises ``UsageError`` if unknown."""
    if isinstance(target, StreamConnector | HttpConnector):
        return target
    if isinstance(target, str):
        if _is_url(target):
            return UrlConnector(target)
        argv = shlex.split(target)
        if not argv:
            raise UsageError("an empty command line is not a server")
        script = python_file_connector(argv[0]) if len(argv) == 1 else None
        return script or CommandConnector(argv[0], argv[1:])
    if isinstance(target, list | tuple):
        if not target or not all(isinstance(part, str) for part in target):
            raise UsageError("a command must be a non-empty list of strings")
        script = python_file_connector(target[0]) if len(target) == 1 else None
        return script or CommandConnector(target[0], list(target[1:]))
    if isinstance(target, Mapping):
        return _from_entry(target)
    if callable(getattr(target, "connect_in_memory", None)):
        return InMemoryConnector(target)
    if hasattr(target, "command") and hasattr(target, "args"):
        return CommandConnector.from_parameters(target)
    if all(callable(getattr(target, name, None)) for name in ("send", "receive", "aclose")):
        return OpenStreamConnector(target)
    raise UsageError(
        f"cannot connect to {target!r}: pass a command line, a list of arguments, stdio "
        "parameters, a URL, an mcpServers entry, an in-process server or a connector"
    )


def describe_target(target: Target) -> str:
    return resolve_target(target).describe()

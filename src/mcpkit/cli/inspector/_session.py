"""One inspected server: the connection, the calls in flight and the server's open questions.

The inspector page drives a single :class:`~mcpkit.client.Client` at a time. The client lives in
a task of its own (an ``async with`` must be entered and left by the same task), so that pages
can come and go, and requests from the page can start calls, cancel them and answer questions
in any order. Everything the connection does is published to the :class:`EventHub`: every wire
message in both directions, progress, log messages, change notifications and questions.

A question from the server (elicitation or sampling) waits for the person. It is published as a
``question`` event and answered by :meth:`InspectorSession.answer`; a disconnect declines every
question still open, so a tool body on the server never waits for a page that went away.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Final

import msgspec

from mcpkit.cli._wire import WireLog
from mcpkit.cli.inspector._events import EventHub, ServerEvents
from mcpkit.concurrency import TaskSet, cancel_and_wait, join, race
from mcpkit.types import CLIENT_MODES as MODES

__all__ = [
    "MAX_OPEN_QUESTIONS",
    "ConnectSpec",
    "InspectorError",
    "InspectorSession",
    "describe_error",
]

logger = logging.getLogger("mcpkit.inspector")

MAX_OPEN_QUESTIONS: Final = 32
"""Questions waiting for the person at once; a server that asks more gets ``decline``."""
MAX_CALLS_IN_FLIGHT: Final = 64
"""Tool calls running at once from the page."""
CONNECT_TIMEOUT: Final = 30.0
"""Seconds to start the server and agree on an era before the page is told it failed."""
CLOSE_TIMEOUT: Final = 5.0
"""Seconds a closing connection gets before it is cancelled."""
OAUTH_SIGN_IN_TIMEOUT: Final = 300.0
"""Seconds a person gets to finish signing in (the connection waits that long with OAuth)."""

MAX_TASKS: Final = 256
"""Tasks the page keeps track of; the oldest finished ones are forgotten first."""


STDERR_TAIL_LINES: Final = 20
"""A stdio server's last stderr lines quoted in the page's error when it fails to start."""
INITIAL_LOG_LEVEL: Final = "debug"
"""The log level the inspector asks every server for when it connects (the page shows it)."""


class InspectorError(Exception):
    """A request from the page that cannot be served; the page shows ``str(error)``."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class ConnectSpec(msgspec.Struct, forbid_unknown_fields=True):
    """What the page's Connect form sends."""

    target: str
    mode: str = "auto"
    headers: dict[str, str] = {}
    bearer: str | None = None
    env: dict[str, str] = {}
    oauth: bool = False
    """Sign in with OAuth (URL targets): the authorization link is shown in the page."""


SECRET_HEADERS: Final = frozenset({"authorization", "proxy-authorization", "cookie", "x-api-key"})


def _masked(name: str, value: str) -> str:
    """A header's value for the connection panel: credentials show only their scheme."""
    if name.lower() not in SECRET_HEADERS:
        return value
    scheme, _, rest = value.partition(" ")
    return f"{scheme} •••" if rest else "•••"


def _plain(value: Any) -> Any:
    """Typed results as JSON-ready builtins (``UNSET`` fields left out)."""
    return msgspec.to_builtins(value)


_OWNER: ContextVar[InspectorSession | None] = ContextVar("mcpkit_inspector_owner", default=None)
"""The session whose connection the running task serves: the stdio transport's stderr reader
starts inside the session's owner task and inherits it, so each server's lines reach its own
session even when several servers run at once."""


class _StderrToPage(logging.Handler):
    """Every stderr line of a stdio server, as a ``stderr`` event (the page's console).

    The stdio transport logs each line as a record marked with ``STDERR_RECORD_ATTR``; the
    terminal still gets them too (``mcpkit dev`` prints them as every command does).
    """

    def __init__(self, session: InspectorSession) -> None:
        super().__init__(logging.DEBUG)
        self._session = session

    def emit(self, record: logging.LogRecord) -> None:
        from mcpkit.transports import STDERR_RECORD_ATTR

        server = getattr(record, STDERR_RECORD_ATTR, None)
        if server is not None and _OWNER.get() is self._session:
            self._session.on_stderr(str(server), record.getMessage())


class _PublishingWireLog(WireLog):
    """A wire log that also tells the page about each message as it passes."""

    def __init__(self, hub: ServerEvents) -> None:
        super().__init__()
        self._hub = hub

    def add(self, direction: str, message: Any) -> None:
        super().add(direction, message)
        if self.entries:
            _, data = self.entries[-1]
            self._hub.publish("wire", dir="out" if direction == "→" else "in", msg=data)


class InspectorSession:
    """The page's view of one server connection (see the module docstring)."""

    def __init__(self, hub: EventHub, server: str = "s1") -> None:
        self.server = server
        """This server's id in the page (several servers can be inspected at once)."""
        self.hub: ServerEvents = hub.for_server(server)
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._holders: TaskSet | None = None
        """Owns the task that holds the client open (closed gracefully by :meth:`disconnect`)."""
        self._work: TaskSet | None = None
        """Owns the calls, watches and task followers (cancelled and awaited by
        :meth:`disconnect`). Both sets are made on first use: a session may be built outside
        a loop."""
        self._stop: asyncio.Event | None = None
        self._spec: ConnectSpec | None = None
        self._wire: _PublishingWireLog | None = None
        self._calls: dict[str, asyncio.Task[Any]] = {}
        self._questions: dict[str, asyncio.Future[Any]] = {}
        self._watches: dict[str, asyncio.Task[None]] = {}
        self._roots: list[dict[str, str]] = [
            {"uri": Path.cwd().as_uri(), "name": "current directory"}
        ]
        self._ids = itertools.count(1)
        self._tool_defs: dict[str, dict[str, Any]] = {}
        self._tasks: dict[str, dict[str, Any]] = {}
        self._followers: dict[str, asyncio.Task[None]] = {}
        self._open_questions: dict[str, dict[str, Any]] = {}
        """The ``question`` events still waiting: a page that opens later shows them from
        :meth:`state` (the event itself may have left the replay window long ago)."""
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._log_level: str | None = None
        self._connections = 0
        self._transport: str | None = None
        self._headers_sent: dict[str, str] = {}
        self._stderr_handler = _StderrToPage(self)
        stdio_logger = logging.getLogger("mcpkit.stdio")
        stdio_logger.addHandler(self._stderr_handler)
        if stdio_logger.getEffectiveLevel() > logging.INFO:
            stdio_logger.setLevel(logging.INFO)  # the transport logs stderr lines at INFO

    # -- connection ----------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        if self._client is None or not self._client.connected:
            raise InspectorError("not connected: connect to a server first", status=409)
        return self._client

    async def connect(self, spec: ConnectSpec) -> dict[str, Any]:
        """Connect to ``spec.target`` (closing any previous connection); the server's summary."""
        if spec.mode not in MODES:
            raise InspectorError(f"mode must be one of {', '.join(MODES)}, not {spec.mode!r}")
        await self.disconnect()
        self._tool_defs = {}  # another server's tools say nothing of this one's
        client = self._make_client(spec)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        self._client, self._stop, self._spec = client, stop, spec
        self._stderr_tail.clear()
        self._connections += 1
        self._holders = self._holders or TaskSet(asyncio.get_running_loop(), "inspector", logger)
        self._owner = self._holders.spawn(self._own(client, ready, stop), name="inspector-client")
        self.hub.publish(
            "status",
            state="connecting",
            target=spec.target,
            mode=spec.mode,
            connection=self._connections,
        )
        limit = CONNECT_TIMEOUT + (OAUTH_SIGN_IN_TIMEOUT if spec.oauth else 0.0)
        try:
            await asyncio.wait_for(asyncio.shield(ready), limit)
        except BaseException as exc:
            await self.disconnect()
            if isinstance(exc, asyncio.CancelledError):
                raise  # this request was cancelled: it sees its own cancellation
            message = (
                describe_error(exc)
                if not isinstance(exc, TimeoutError)
                else (f"no answer from {spec.target} within {CONNECT_TIMEOUT:g} s")
            )
            message = self._with_stderr_tail(message)
            self.hub.publish("status", state="failed", error=message)
            raise InspectorError(message, status=502) from None
        self._log_level = INITIAL_LOG_LEVEL
        summary = self.summary()
        self.hub.publish("status", state="connected", server=summary)
        return summary

    def on_stderr(self, server: str, line: str) -> None:
        """A stdio server wrote ``line`` on its stderr: to the page's console, and kept for the
        error message if the server is failing to start."""
        self._stderr_tail.append(line)
        self.hub.publish("stderr", server=server, line=line)

    def _with_stderr_tail(self, message: str) -> str:
        """``message`` with the server's last stderr lines, unless it quotes them already: a
        server that fails to start usually says why there, not on the wire."""
        from mcpkit.cli._server_stderr import quotes_tail

        if not self._stderr_tail or quotes_tail(message):
            return message
        tail = "\n".join(f"  {line}" for line in self._stderr_tail)
        return f"{message}; last stderr lines:\n{tail}"

    def _make_client(self, spec: ConnectSpec) -> Any:
        from mcpkit.cli._errors import CliError
        from mcpkit.cli._targets import resolve
        from mcpkit.client import Client, UrlConnector, resolve_target
        from mcpkit.client.apps import APPS_CLIENT_OPTIONS

        try:
            target = resolve(spec.target, env=dict(spec.env))
        except CliError as exc:
            raise InspectorError(exc.message + (f" ({exc.hint})" if exc.hint else "")) from None
        headers = dict(spec.headers)
        if spec.bearer:
            headers["Authorization"] = f"Bearer {spec.bearer}"
        if (headers or spec.oauth) and target.kind != "url":
            raise InspectorError("headers, a bearer token and OAuth apply to URL targets only")
        self._transport = "Streamable HTTP" if target.kind == "url" else "stdio"
        self._headers_sent = {name: _masked(name, value) for name, value in headers.items()}
        connector: Any
        if spec.oauth:
            connector = self._oauth_connector(target.client_target, headers)
        elif target.kind == "url":
            connector = UrlConnector(target.client_target, headers=headers)
        else:
            connector = resolve_target(target.client_target)
        self._wire = _PublishingWireLog(self.hub)
        return Client(
            self._wire.wrap(connector),
            name=target.label,
            mode=spec.mode,  # type: ignore[arg-type]
            elicitation_handler=self._elicit,
            url_elicitation=True,
            sampling_handler=self._sample,
            roots=lambda: list(self._roots),
            logging_handler=self._on_log,
            notification_handler=self._on_notification,
            log_level=INITIAL_LOG_LEVEL,
            timeout=None,
            initialize_timeout=CONNECT_TIMEOUT + (OAUTH_SIGN_IN_TIMEOUT if spec.oauth else 0.0),
            probe_timeout=CONNECT_TIMEOUT + (OAUTH_SIGN_IN_TIMEOUT if spec.oauth else 0.0),
            output_validation="off",
            **APPS_CLIENT_OPTIONS,  # this host renders MCP Apps (the Tools panel)
        )

    def _oauth_connector(self, url: str, headers: dict[str, str]) -> Any:
        """Streamable HTTP with OAuth: the person signs in from a link the page shows.

        The authorization URL goes to the page (an ``oauth`` event) instead of a browser the
        inspector would start itself; the redirect comes back to a one-shot loopback listener.
        """
        try:
            from mcpkit.contrib.auth import BrowserAuthorizer, OAuthClient
            from mcpkit.transports.http import HttpClientConnector
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise InspectorError(
                f"OAuth needs the auth extra: pip install 'mcpkit[auth]' ({exc})"
            ) from None

        loop = asyncio.get_running_loop()

        def show_link(authorization_url: str) -> bool:
            # Called from a worker thread (browser openers block): publish on the loop.
            loop.call_soon_threadsafe(lambda: self.hub.publish("oauth", url=authorization_url))
            return True

        authorizer = BrowserAuthorizer(open_browser=show_link, timeout=OAUTH_SIGN_IN_TIMEOUT)
        auth = OAuthClient(redirect_handler=authorizer, callback_handler=authorizer)
        return HttpClientConnector(url, auth=auth, headers=headers)

    def _work_set(self) -> TaskSet:
        if self._work is None:
            self._work = TaskSet(asyncio.get_running_loop(), "inspector work", logger)
        return self._work

    async def _own(self, client: Any, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """Hold the client open until asked to stop or the server goes away."""
        _OWNER.set(self)  # this task's context: the stdio transport's tasks inherit it
        try:
            async with client:
                ready.set_result(None)
                await race(stop.wait(), client.wait_disconnected())
                if not stop.is_set():
                    self.hub.publish("status", state="disconnected", error="the server went away")
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                self.hub.publish("status", state="disconnected", error=describe_error(exc))

    async def disconnect(self) -> None:
        """Close the connection; calls in flight are cancelled (and awaited) and open questions
        declined. A cancellation of the caller while it waits propagates."""
        work = self._work
        if work is not None:
            await work.aclose(timeout=CLOSE_TIMEOUT)
        self._followers.clear()
        self._tasks.clear()
        for future in self._questions.values():
            if not future.done():
                future.set_result({"action": "decline"})
        owner, stop = self._owner, self._stop
        self._owner = self._stop = None
        if stop is not None:
            stop.set()
        if owner is not None:
            # A connection still being made (a server starting, a person signing in) has no
            # stop to notice: it is cancelled; an open one gets a bounded, clean close.
            if not await join(owner, timeout=CLOSE_TIMEOUT):
                await cancel_and_wait(owner)
            self.hub.publish("status", state="disconnected")
        self._client = None
        self._log_level = None
        self._watches.clear()

    async def aclose(self) -> None:
        await self.disconnect()
        logging.getLogger("mcpkit.stdio").removeHandler(self._stderr_handler)

    def summary(self) -> dict[str, Any]:
        client = self.client
        return {
            "target": self._spec.target if self._spec else None,
            "mode": self._spec.mode if self._spec else None,
            "era": client.era,
            "protocolVersion": client.protocol_version,
            "serverInfo": client.server_info,
            "instructions": client.instructions,
            "capabilities": client.server_capabilities,
            "clientCapabilities": client.client_capabilities,
            "logLevel": self._log_level,
            "transport": self._transport,
            "sessionId": client.negotiated.session_id,
            "headersSent": dict(self._headers_sent),
        }

    def brief(self) -> dict[str, Any]:
        """This server in the page's server list."""
        connected = self._client is not None and self._client.connected
        info = self._client.server_info if connected else {}
        return {
            "id": self.server,
            "target": self._spec.target if self._spec else None,
            "name": info.get("name"),
            "connected": connected,
            "questions": len(self._open_questions),
        }

    def state(self) -> dict[str, Any]:
        """Where things stand now, for a page that opens (or reopens).

        ``seq`` is the last event published: the replayed events up to it are history (the
        wire, logs, the console), not the current state, which is this.
        """
        connected = self._client is not None and self._client.connected
        return {
            "seq": self.hub.sequence,
            "id": self.server,
            "connected": connected,
            "server": self.summary() if connected else None,
            "spec": msgspec.to_builtins(self._spec) if self._spec is not None else None,
            "roots": list(self._roots),
            "questions": list(self._open_questions.values()),
        }

    # -- features ------------------------------------------------------------------------------

    async def list_all(self) -> dict[str, Any]:
        """Tools, resources, templates and prompts — each only if the server offers it."""
        client = self.client
        caps = client.server_capabilities
        out: dict[str, Any] = {"tools": [], "resources": [], "resourceTemplates": [], "prompts": []}
        if "tools" in caps:
            out["tools"] = _plain(await client.list_tools())
            self._tool_defs = {tool["name"]: tool for tool in out["tools"]}
        if "resources" in caps:
            out["resources"] = _plain(await client.list_resources())
            out["resourceTemplates"] = _plain(await client.list_resource_templates())
        if "prompts" in caps:
            out["prompts"] = _plain(await client.list_prompts())
        return out

    async def call_tool(self, name: str, arguments: Mapping[str, Any], call_id: str) -> Any:
        """Run one tool call; progress goes out as events tagged with ``call_id``."""
        client = self.client
        if len(self._calls) >= MAX_CALLS_IN_FLIGHT:
            raise InspectorError(f"{MAX_CALLS_IN_FLIGHT} calls are already running", status=429)
        if call_id in self._calls:
            raise InspectorError(f"call id {call_id!r} is already in use")

        def progress(done: float, total: float | None, message: str | None) -> None:
            self.hub.publish(
                "progress", callId=call_id, progress=done, total=total, message=message
            )

        work = self._work_set()
        # started, not spawned: the call's failure is this request's answer, not a stray error
        task = work.start(client.call_tool(name, dict(arguments), progress_callback=progress))
        self._calls[call_id] = task
        try:
            result = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and (current is None or not current.cancelling()):
                # the call was cancelled (from the page), not this request: say so
                raise InspectorError("the call was cancelled", status=499) from None
            raise
        finally:
            self._calls.pop(call_id, None)
            work.forget(task)
        plain = _plain(result)
        return {"result": plain, "outputCheck": await self._check_output(name, plain)}

    async def tool_definitions(self) -> dict[str, dict[str, Any]]:
        """The connected server's tools by name, as last listed (listed now if never)."""
        if not self._tool_defs:
            await self.list_all()
        return self._tool_defs

    async def relist_tools(self) -> dict[str, dict[str, Any]]:
        """The tools as the server lists them now (a name the last list lacked may be new)."""
        await self.list_all()
        return self._tool_defs

    async def _check_output(self, name: str, result: dict[str, Any]) -> dict[str, Any] | None:
        """Does ``structuredContent`` match the tool's ``outputSchema``? (``None``: no schema.)"""
        if name not in self._tool_defs:
            with contextlib.suppress(Exception):
                await self.list_all()
        schema = self._tool_defs.get(name, {}).get("outputSchema")
        if schema is None or result.get("isError"):
            return None
        if "structuredContent" not in result:
            return {
                "ok": False,
                "errors": ["the tool has an outputSchema but sent no structuredContent"],
            }
        return check_against_schema(result["structuredContent"], schema)

    async def check_arguments(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Do ``arguments`` fit the tool's ``inputSchema``? Checked before the page sends them,
        with the schema dialect the client uses; ``path`` names the field (``items[0].sku``)."""
        from mcpkit.protocol import SchemaProblem, compile_schema

        schema = (await self.tool_definitions()).get(name, {}).get("inputSchema")
        if not isinstance(schema, dict):
            return {"ok": True, "errors": []}
        try:
            problem = compile_schema(dict(schema)).first_error(dict(arguments))
        except SchemaProblem as exc:
            return {"ok": True, "errors": [], "note": f"the inputSchema is invalid: {exc}"}
        if problem is None:
            return {"ok": True, "errors": []}
        path, message = problem
        field = path.removeprefix("$").lstrip(".")
        return {"ok": False, "errors": [{"path": field, "message": message}]}

    def cancel(self, call_id: str) -> bool:
        task = self._calls.get(call_id)
        if task is None:
            return False
        task.cancel()
        return True

    # -- tasks ---------------------------------------------------------------------------------

    async def start_task(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Start a tool call as a task (2026 extension or 2025-11-25 core tasks) and follow it."""
        from mcpkit.client import TasksUnsupported

        try:
            handle = await self.client.call_tool_as_task(name, dict(arguments))
        except TasksUnsupported as exc:
            raise InspectorError(str(exc)) from None
        if handle.task_id is None:  # the server answered at once
            return {"task": None, "result": _plain(await handle.result())}
        record = self._remember(handle.task_id, name, handle.info)
        self._followers[handle.task_id] = self._work_set().spawn(self._follow(handle))
        return {"task": record}

    def _remember(self, task_id: str, tool: str, info: Any) -> dict[str, Any]:
        record = self._tasks.get(task_id) or {"taskId": task_id, "tool": tool}
        if info is not None:
            record.update(
                status=info.status,
                statusMessage=info.status_message,
                lastUpdatedAt=info.last_updated_at,
                createdAt=info.created_at,
            )
        self._tasks[task_id] = record
        while len(self._tasks) > MAX_TASKS:
            oldest = next(
                (
                    k
                    for k, r in self._tasks.items()
                    if r.get("status") not in ("working", "input_required")
                ),
                next(iter(self._tasks)),
            )
            self._tasks.pop(oldest)
        self.hub.publish("task", task=dict(record))
        return dict(record)

    async def _follow(self, handle: Any) -> None:
        from mcpkit.client import TaskCancelled

        task_id = handle.task_id
        try:
            result = await handle.result(
                on_status=lambda info: self._remember(task_id, handle.tool, info)
            )
            record = self._remember(task_id, handle.tool, handle.info)
            record["result"] = _plain(result)
            self._tasks[task_id]["result"] = record["result"]
            self.hub.publish("task", task=record)
        except TaskCancelled:
            self._remember(task_id, handle.tool, handle.info)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            record = self._tasks.get(task_id, {"taskId": task_id, "tool": handle.tool})
            record["error"] = describe_error(exc)
            self.hub.publish("task", task=dict(record))
        finally:
            self._followers.pop(task_id, None)

    async def list_tasks(self) -> list[dict[str, Any]]:
        """The tasks started from this page, plus (legacy) the server's own ``tasks/list``."""
        client = self.client
        if client.era == "legacy" and "tasks" in client.server_capabilities:
            with contextlib.suppress(Exception):
                for info in await client.list_tasks():
                    if info.task_id not in self._tasks:
                        self._remember(info.task_id, "", info)
        return [dict(record) for record in self._tasks.values()]

    async def cancel_task(self, task_id: str) -> dict[str, Any]:
        info = await self.client.cancel_task(task_id)
        record = self._tasks.get(task_id, {"tool": ""})
        return self._remember(task_id, str(record.get("tool", "")), info)

    async def read_resource(self, uri: str) -> Any:
        return _plain(await self.client.read_resource(uri))

    async def get_prompt(self, name: str, arguments: Mapping[str, str]) -> Any:
        return _plain(await self.client.get_prompt(name, dict(arguments)))

    async def complete(
        self, ref: Mapping[str, Any], argument: str, value: str, context: Mapping[str, str]
    ) -> Any:
        return _plain(
            await self.client.complete(ref, argument, value, context_arguments=dict(context))
        )

    async def set_log_level(self, level: str) -> None:
        from mcpkit.protocol import UsageError

        try:
            await self.client.set_logging_level(level)
        except UsageError as exc:
            raise InspectorError(str(exc)) from None
        self._log_level = level

    async def set_roots(self, roots: list[dict[str, str]]) -> None:
        for root in roots:
            if not str(root.get("uri", "")).startswith("file://"):
                raise InspectorError(f"a root is a file:// URI, not {root.get('uri')!r}")
        self._roots = [
            {"uri": r["uri"], **({"name": r["name"]} if r.get("name") else {})} for r in roots
        ]
        if self._client is not None and self._client.connected:
            await self._client.set_roots(lambda: list(self._roots))
        self.hub.publish("roots", roots=self._roots)

    async def watch(self, uri: str | None) -> str:
        """Listen for changes (``uri``: that resource's updates; ``None``: list changes)."""
        client = self.client
        key = uri or "*lists*"
        if key in self._watches:
            return key
        if uri is None:
            subscription = client.listen(tools=True, prompts=True, resources=True)
        else:
            subscription = client.listen(resource_uris=[uri])
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._watches[key] = self._work_set().spawn(self._run_watch(key, subscription, started))
        try:
            await started
        except BaseException:
            self._watches.pop(key, None)
            raise
        return key

    async def _run_watch(self, key: str, subscription: Any, started: asyncio.Future[None]) -> None:
        try:
            async with subscription as notes:
                started.set_result(None)
                async for note in notes:
                    plain = _plain(note)
                    self.hub.publish(
                        "update", watch=key, method=plain.get("method"), params=plain.get("params")
                    )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not started.done():
                started.set_exception(InspectorError(describe_error(exc), status=502))
            else:
                self.hub.publish("update", watch=key, error=describe_error(exc))
        finally:
            self._watches.pop(key, None)

    def unwatch(self, key: str) -> bool:
        task = self._watches.pop(key, None)
        if task is None:
            return False
        task.cancel()
        return True

    def watches(self) -> list[str]:
        return sorted(self._watches)

    def wire_jsonl(self) -> str:
        """The whole transcript as JSON lines (``{"dir": "out"|"in", "msg": {...}}``)."""
        if self._wire is None:
            return ""
        lines = [
            json.dumps({"dir": "out" if d == "→" else "in", "msg": m}, ensure_ascii=False)
            for d, m in self._wire.entries
        ]
        return "".join(line + "\n" for line in lines)

    # -- the server's questions and notifications ----------------------------------------------

    async def _ask(self, kind: str, params: Any, context: Any) -> Any:
        if len(self._questions) >= MAX_OPEN_QUESTIONS:
            return None
        question_id = f"q{next(self._ids)}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._questions[question_id] = future
        self._open_questions[question_id] = self.hub.publish(
            "question",
            id=question_id,
            kind=kind,
            params=_plain(params),
            defaults=getattr(context, "defaults", {}),
            during=getattr(context, "asked_during", None),
        )
        try:
            return await future
        finally:
            self._questions.pop(question_id, None)
            self._open_questions.pop(question_id, None)
            self.hub.publish("question-closed", id=question_id)

    async def _elicit(self, params: Any, context: Any) -> Any:
        answer = await self._ask("elicitation", params, context)
        return answer if answer is not None else {"action": "decline"}

    async def _sample(self, params: Any, context: Any) -> Any:
        answer = await self._ask("sampling", params, context)
        if answer is None or answer.get("action") == "decline":
            from mcpkit.protocol import JSONRPCError

            raise JSONRPCError("the person declined the sampling request", code=-1)
        return {
            "role": "assistant",
            "content": {"type": "text", "text": str(answer.get("text", ""))},
            "model": str(answer.get("model") or "human (mcpkit inspector)"),
            "stopReason": "endTurn",
        }

    def answer(self, question_id: str, answer: Mapping[str, Any]) -> None:
        future = self._questions.get(question_id)
        if future is None or future.done():
            raise InspectorError(f"no open question {question_id!r}", status=404)
        action = answer.get("action")
        if action not in ("accept", "decline", "cancel"):
            raise InspectorError('an answer\'s action is "accept", "decline" or "cancel"')
        future.set_result(dict(answer))

    def _on_log(self, params: Any) -> None:
        self.hub.publish(
            "log",
            level=getattr(params, "level", "info"),
            logger=getattr(params, "logger", None),
            data=_plain(getattr(params, "data", None)),
        )

    def _on_notification(self, note: Any) -> None:
        plain = _plain(note)
        self.hub.publish("notification", method=plain.get("method"), params=plain.get("params"))


def check_against_schema(value: Any, schema: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``value`` as the client does (the schema's own dialect, no network ``$ref``),
    reporting the error instead of raising it."""
    from mcpkit.protocol import SchemaProblem, compile_schema

    try:
        problem = compile_schema(dict(schema)).first_error(value)
    except SchemaProblem as exc:
        return {"ok": False, "errors": [f"the outputSchema itself is invalid: {exc}"]}
    if problem is None:
        return {"ok": True, "errors": []}
    path, message = problem
    return {
        "ok": False,
        "errors": [f"{path[2:] if path.startswith('$.') else '(root)'}: {message}"],
    }


def describe_error(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    from mcpkit.cli._errors import explain

    error = explain(exc, target="the server")
    return error.message + (f" ({error.hint})" if error.hint else "")

"""The inspector's ASGI app: the page, its assets, and the JSON API the page drives.

Safe by default, because whoever can reach this app can run commands as the user (connecting to
a command target starts it):

* it is served on loopback only (:func:`mcpkit.cli.inspector._serve.serve_inspector`);
* every API request carries the one-time token in the ``X-Inspector-Token`` header. A header
  cannot be set by a cross-site form or image, and a cross-origin ``fetch`` with it needs a CORS
  preflight that this app never grants; the page itself is served only with the token in its URL;
* the ``Host`` header must name the loopback address and port it serves (DNS rebinding), and an
  ``Origin``, when sent, must be this app's own; duplicated ``Host`` or ``Origin`` headers are
  refused;
* responses forbid framing and caching, and the page's Content-Security-Policy allows only its
  own scripts.

Events reach the page as one long response of newline-delimited JSON (``/api/events``), read
with ``fetch`` so that it too carries the token header (an ``EventSource`` cannot).
"""

from __future__ import annotations

import hmac
import importlib.resources
import itertools
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qs

import msgspec

from mcpkit.cli.inspector._apps import AppHost
from mcpkit.cli.inspector._session import ConnectSpec, InspectorError, InspectorSession

__all__ = ["ASSETS", "MAX_BODY_BYTES", "InspectorApp"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

MAX_BODY_BYTES: Final = 8 * 1024 * 1024
"""The largest API request body (a tool's arguments); larger ones get 413."""
TOKEN_HEADER: Final = b"x-inspector-token"
SERVER_HEADER: Final = b"x-inspector-server"
"""Which inspected server an API request is for (its id; the first server when left out)."""
MAX_SERVERS: Final = 16
"""Servers one page may inspect at once."""

ASSETS: Final = {
    "app.js": "text/javascript; charset=utf-8",
    "forms.js": "text/javascript; charset=utf-8",
    "apps.js": "text/javascript; charset=utf-8",
    "reopen.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
"""The page's files, shipped inside the package (no CDN, no build step)."""

_SECURITY_HEADERS: Final = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]
_PAGE_CSP: Final = (
    b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    b"img-src 'self' data: blob:; media-src 'self' data: blob:; frame-ancestors 'none'; "
    b"base-uri 'none'; form-action 'none'"
)


_REOPEN_PAGE: Final = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcpkit inspector</title>
<script src="/static/reopen.js"></script></head>
<body><p id="refused">This page needs the inspector's token: open the URL `mcpkit dev` printed.</p>
</body></html>
"""
"""What ``/`` without the token answers (403): a reload of an open tab finds the token in the
tab's ``sessionStorage`` (reopen.js) and comes back with it; any other visitor gets nothing."""


def _asset(name: str) -> bytes:
    return importlib.resources.files("mcpkit.cli.inspector").joinpath("static", name).read_bytes()


class _Request:
    def __init__(self, scope: Scope, receive: Receive) -> None:
        self.scope = scope
        self.receive = receive
        self.method: str = scope["method"]
        self.path: str = scope["path"]
        self.query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        self.headers: list[tuple[bytes, bytes]] = list(scope.get("headers", []))
        self.session: InspectorSession  # set once the request is let in (see _dispatch)

    def header_values(self, name: bytes) -> list[bytes]:
        return [value for key, value in self.headers if key.lower() == name]

    async def body(self) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise InspectorError("the page went away", status=499)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise InspectorError(f"request body larger than {MAX_BODY_BYTES} bytes", status=413)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def json(self) -> dict[str, Any]:
        raw = await self.body()
        try:
            data = json.loads(raw or b"{}")
        except ValueError as exc:
            raise InspectorError(f"the request body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise InspectorError("the request body must be a JSON object")
        return data


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        *_SECURITY_HEADERS,
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, data: Any) -> None:
    await _respond(send, status, json.dumps(data).encode(), b"application/json")


class InspectorApp:
    """The ASGI app for one inspector process (``port`` is the port it is served on)."""

    def __init__(
        self, session: InspectorSession, *, token: str, port: int, sandbox_port: int | None = None
    ) -> None:
        self.session = session
        """The first server's session (the target given on the command line)."""
        self._hub = session.hub.shared
        self._servers: dict[str, InspectorSession] = {session.server: session}
        self._server_ids = itertools.count(2)
        self._token = token.encode()
        self._port = port
        self._hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}
        self._sandbox_port = sandbox_port
        """MCP Apps views load from this other loopback port: another origin than the page's."""
        self._sandbox_hosts = {f"127.0.0.1:{sandbox_port}".encode()} if sandbox_port else set()
        self._apps = {session.server: AppHost(session)}
        frames = f"http://127.0.0.1:{sandbox_port}" if sandbox_port else "'none'"
        self._page_csp = _PAGE_CSP + f"; frame-src {frames}".encode()
        self._routes: dict[tuple[str, str], Callable[[_Request], Awaitable[Any]]] = {
            ("GET", "/api/state"): self._state,
            ("GET", "/api/lists"): self._lists,
            ("POST", "/api/connect"): self._connect,
            ("POST", "/api/disconnect"): self._disconnect,
            ("POST", "/api/call"): self._call,
            ("POST", "/api/cancel"): self._cancel,
            ("POST", "/api/read"): self._read,
            ("POST", "/api/prompt"): self._prompt,
            ("POST", "/api/complete"): self._complete,
            ("POST", "/api/log-level"): self._log_level,
            ("POST", "/api/roots"): self._roots,
            ("POST", "/api/watch"): self._watch,
            ("POST", "/api/unwatch"): self._unwatch,
            ("POST", "/api/answer"): self._answer,
            ("GET", "/api/tasks"): self._tasks,
            ("POST", "/api/task"): self._task,
            ("POST", "/api/task/cancel"): self._task_cancel,
            ("POST", "/api/app/view"): self._app_view,
            ("POST", "/api/app/call"): self._app_call,
            ("POST", "/api/replay"): self._replay,
            ("POST", "/api/check"): self._check,
            ("GET", "/api/servers"): self._list_servers,
            ("POST", "/api/servers/add"): self._add_server,
            ("POST", "/api/servers/remove"): self._remove_server,
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = _Request(scope, receive)
        server = scope.get("server")
        if self._sandbox_port is not None and server and server[1] == self._sandbox_port:
            await self._sandbox(request, send)
            return
        refusal = self._refusal(request)
        if refusal is not None:
            await _json(send, refusal[0], {"error": refusal[1]})
            return
        try:
            await self._dispatch(request, send)
        except InspectorError as exc:
            await _json(send, exc.status, {"error": str(exc)})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for session in list(self._servers.values()):
                    await session.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _refusal(self, request: _Request) -> tuple[int, str] | None:
        hosts = request.header_values(b"host")
        if len(hosts) != 1 or hosts[0] not in self._hosts:
            return 421 if len(hosts) == 1 else 400, (
                f"this inspector answers only on 127.0.0.1:{self._port} or localhost:{self._port}"
            )
        origins = request.header_values(b"origin")
        if len(origins) > 1:
            return 400, "more than one Origin header"
        if origins and origins[0] != b"http://" + hosts[0]:
            return 403, "requests from other sites are refused"
        return None

    async def _sandbox(self, request: _Request, send: Send) -> None:
        """The sandbox origin serves the app proxy and nothing else (no API, no token)."""
        from mcpkit.cli.inspector._sandbox import sandbox_response

        hosts = request.header_values(b"host")
        if len(hosts) != 1 or hosts[0] not in self._sandbox_hosts or request.method != "GET":
            await _respond(send, 421, b"not this sandbox", b"text/plain")
            return
        status, body, content_type, headers = sandbox_response(
            request.path,
            request.scope.get("query_string", b""),
            frozenset(f"http://{h.decode()}" for h in self._hosts),
            _asset("sandbox-proxy.js"),
        )
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", content_type), (b"content-length", str(len(body)).encode()),
            *headers]})  # fmt: skip
        await send({"type": "http.response.body", "body": body})

    def _has_token(self, request: _Request) -> bool:
        if request.path.startswith("/api/"):
            given = request.header_values(TOKEN_HEADER)
            return len(given) == 1 and hmac.compare_digest(given[0], self._token)
        values = request.query.get("token", [])
        return len(values) == 1 and hmac.compare_digest(values[0].encode(), self._token)

    async def _dispatch(self, request: _Request, send: Send) -> None:
        path, method = request.path, request.method
        if path.startswith("/static/") and method == "GET":
            name = path.removeprefix("/static/")
            if name not in ASSETS:
                raise InspectorError("no such file", status=404)
            await _respond(send, 200, _asset(name), ASSETS[name].encode())
            return
        if path == "/favicon.ico":
            await _respond(send, 204, b"", b"text/plain")
            return
        if not self._has_token(request):
            if path == "/" and method == "GET":
                await _respond(
                    send, 403, _REOPEN_PAGE, b"text/html; charset=utf-8",
                    [(b"content-security-policy", _PAGE_CSP)],
                )  # fmt: skip
                return
            raise InspectorError(
                "missing or wrong inspector token: open the URL `mcpkit dev` printed", status=403
            )
        if path == "/" and method == "GET":
            page = _asset("index.html")
            await _respond(
                send,
                200,
                page,
                b"text/html; charset=utf-8",
                [(b"content-security-policy", self._page_csp)],
            )
            return
        if path == "/api/events" and method == "GET":
            await self._events(send)
            return
        request.session = self._session_for(request)
        if path == "/api/wire.jsonl" and method == "GET":
            await _respond(
                send,
                200,
                request.session.wire_jsonl().encode(),
                b"application/jsonl; charset=utf-8",
                [(b"content-disposition", b'attachment; filename="mcp-wire.jsonl"')],
            )
            return
        handler = self._routes.get((method, path))
        if handler is None:
            known = any(p == path for _, p in self._routes)
            raise InspectorError(
                f"{method} {path} is not part of the inspector API", status=405 if known else 404
            )
        try:
            result = await handler(request)
        except InspectorError:
            raise
        except Exception as exc:
            raise _as_inspector_error(exc) from None
        await _json(send, 200, result)

    async def _events(self, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/x-ndjson"), *_SECURITY_HEADERS],
            }
        )
        await send({"type": "http.response.body", "body": b"", "more_body": True})
        async for event in self._hub.stream():
            line = json.dumps(event, ensure_ascii=False, default=str).encode() + b"\n"
            await send({"type": "http.response.body", "body": line, "more_body": True})

    # -- API handlers --------------------------------------------------------------------------

    def _session_for(self, request: _Request) -> InspectorSession:
        given = request.header_values(SERVER_HEADER)
        if not given:
            return self.session
        session = self._servers.get(given[0].decode("latin-1"))
        if len(given) != 1 or session is None:
            raise InspectorError("no such server in this inspector: reload the page", status=404)
        return session

    async def _list_servers(self, request: _Request) -> Any:
        return {"servers": [s.brief() for s in self._servers.values()]}

    async def _add_server(self, request: _Request) -> Any:
        """Another server in the same page: a session of its own, on the same event stream."""
        if len(self._servers) >= MAX_SERVERS:
            raise InspectorError(f"{MAX_SERVERS} servers at once at most", status=429)
        session = InspectorSession(self._hub, f"s{next(self._server_ids)}")
        self._servers[session.server] = session
        self._apps[session.server] = AppHost(session)
        return session.brief()

    async def _remove_server(self, request: _Request) -> Any:
        server = (await request.json()).get("id")
        session = self._servers.get(str(server))
        if session is None or session is self.session:
            raise InspectorError("remove: give the id of a server added from the page")
        del self._servers[session.server], self._apps[session.server]
        await session.aclose()
        return {"removed": session.server}

    async def _state(self, request: _Request) -> Any:
        return {
            **request.session.state(),
            "watches": request.session.watches(),
            "sandboxPort": self._sandbox_port,
        }

    async def _lists(self, request: _Request) -> Any:
        return await request.session.list_all()

    async def _connect(self, request: _Request) -> Any:
        raw = await request.body()
        try:
            spec = msgspec.json.decode(raw or b"{}", type=ConnectSpec)
        except msgspec.ValidationError as exc:
            raise InspectorError(f"connect: {exc}") from None
        except msgspec.DecodeError as exc:
            raise InspectorError(f"the request body is not JSON: {exc}") from None
        return await request.session.connect(spec)

    async def _disconnect(self, request: _Request) -> Any:
        await request.session.disconnect()
        return {"ok": True}

    async def _call(self, request: _Request) -> Any:
        data = await request.json()
        name, arguments, call_id = data.get("name"), data.get("arguments", {}), data.get("callId")
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InspectorError('call: give "name" (a string) and "arguments" (an object)')
        if not isinstance(call_id, str) or not call_id:
            raise InspectorError('call: give a "callId" string (it names the call to cancel it)')
        return await request.session.call_tool(name, arguments, call_id)

    async def _task(self, request: _Request) -> Any:
        data = await request.json()
        name, arguments = data.get("name"), data.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InspectorError('task: give "name" (a string) and "arguments" (an object)')
        return await request.session.start_task(name, arguments)

    async def _tasks(self, request: _Request) -> Any:
        return {"tasks": await request.session.list_tasks()}

    async def _task_cancel(self, request: _Request) -> Any:
        task_id = (await request.json()).get("taskId")
        if not isinstance(task_id, str) or not task_id:
            raise InspectorError('task/cancel: give the "taskId"')
        return await request.session.cancel_task(task_id)

    async def _cancel(self, request: _Request) -> Any:
        data = await request.json()
        return {"cancelled": request.session.cancel(str(data.get("callId", "")))}

    async def _read(self, request: _Request) -> Any:
        uri = (await request.json()).get("uri")
        if not isinstance(uri, str) or not uri:
            raise InspectorError('read: give the resource "uri"')
        return await request.session.read_resource(uri)

    async def _prompt(self, request: _Request) -> Any:
        data = await request.json()
        name, arguments = data.get("name"), data.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InspectorError('prompt: give "name" and "arguments" (an object of strings)')
        return await request.session.get_prompt(name, {k: str(v) for k, v in arguments.items()})

    async def _complete(self, request: _Request) -> Any:
        data = await request.json()
        ref, argument, value = data.get("ref"), data.get("argument"), data.get("value", "")
        if not isinstance(ref, dict) or not isinstance(argument, str):
            raise InspectorError('complete: give "ref" (an object) and "argument" (a name)')
        context = data.get("context") or {}
        return await request.session.complete(ref, argument, str(value), context)

    async def _log_level(self, request: _Request) -> Any:
        level = (await request.json()).get("level")
        await request.session.set_log_level(str(level))
        return {"level": level}

    async def _roots(self, request: _Request) -> Any:
        roots = (await request.json()).get("roots")
        if not isinstance(roots, list) or not all(isinstance(r, dict) for r in roots):
            raise InspectorError('roots: give "roots", a list of {"uri", "name"} objects')
        await request.session.set_roots(roots)
        return {"roots": roots}

    async def _watch(self, request: _Request) -> Any:
        uri = (await request.json()).get("uri")
        if uri is not None and not isinstance(uri, str):
            raise InspectorError('watch: "uri" is a string, or null for list changes')
        return {"watch": await request.session.watch(uri)}

    async def _unwatch(self, request: _Request) -> Any:
        key = (await request.json()).get("watch")
        return {"stopped": request.session.unwatch(str(key))}

    async def _app_view(self, request: _Request) -> Any:
        uri = (await request.json()).get("uri")
        if not isinstance(uri, str) or not uri:
            raise InspectorError('app/view: give the view\'s "uri"')
        return await self._apps[request.session.server].view(uri)

    async def _app_call(self, request: _Request) -> Any:
        data = await request.json()
        name, arguments = data.get("name"), data.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InspectorError('app/call: give "name" (a string) and "arguments" (an object)')
        return await self._apps[request.session.server].call(name, arguments)

    async def _check(self, request: _Request) -> Any:
        data = await request.json()
        name, arguments = data.get("name"), data.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InspectorError('check: give "name" (a string) and "arguments" (an object)')
        return await request.session.check_arguments(name, arguments)

    async def _replay(self, request: _Request) -> Any:
        from mcpkit.cli.inspector._replay import replay

        data = await request.json()
        method, params = data.get("method"), data.get("params") or {}
        if not isinstance(method, str) or not isinstance(params, dict):
            raise InspectorError('replay: give "method" (a string) and "params" (an object)')
        started = request.session.hub.elapsed_ms()
        result = await replay(request.session.client, method, params)
        return {"result": result, "ms": round(request.session.hub.elapsed_ms() - started, 1)}

    async def _answer(self, request: _Request) -> Any:
        data = await request.json()
        answer = data.get("answer")
        if not isinstance(answer, dict):
            raise InspectorError('answer: give "id" and "answer" (an object with "action")')
        request.session.answer(str(data.get("id", "")), answer)
        return {"ok": True}


def _as_inspector_error(exc: Exception) -> InspectorError:
    """What the client raised, as a message the page shows (with the JSON-RPC code)."""
    from mcpkit.protocol import JSONRPCError, UsageError

    if isinstance(exc, JSONRPCError):
        return InspectorError(f"the server answered error {exc.code}: {exc}", status=502)
    if isinstance(exc, UsageError):
        return InspectorError(str(exc))
    from mcpkit.cli.inspector._session import describe_error

    return InspectorError(describe_error(exc), status=502)

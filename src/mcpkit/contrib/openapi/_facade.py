"""Any MCP server as a plain REST API (ASGI), with a generated OpenAPI 3.1 document.

``rest_app(target)`` connects to the server (anything :class:`~mcpkit.client.Client` accepts:
a command line, a URL, an ``mcpServers`` entry, an in-process ``Server``; either era) when the
app starts (ASGI lifespan, or ``async with app``) and serves:

* ``POST /tools/{name}`` — JSON body = arguments; 200 with the structured result (or
  ``{"content": [...]}`` for tools without an output schema);
* ``GET /tools``, ``GET /prompts``, ``POST /prompts/{name}``, ``GET /resources``,
  ``GET /resources/read?uri=...``;
* ``GET /openapi.json`` — the OpenAPI 3.1 document describing all of the above.

The tools and prompts are listed at start and again (at most once a second) when a request names
one the facade does not know, so tools a server adds later are reachable and documented.

A tool that *requires* to run as a task is started as one and followed to its end, so a plain
POST still answers with its result: known from its listing in 2025-11-25
(``execution.taskSupport: "required"``), from the server's -32021 asking for the Tasks extension
in 2026-07-28 (the call is then made again as a task, and so are later calls of that tool).
The body must be what the document declares: a JSON object of arguments (no body means none;
``null`` is 400).

Failures are RFC 9457 problem details: 400 (arguments break the input schema; body not JSON),
404 (no such tool, prompt or resource), 405, 408 (the body did not arrive in time), 413, 415 (a
body not declared JSON), 422 (the tool reported ``isError``), 502 (the server failed or went
away), 503 (not connected yet), 504 (the server did not answer in time).

The facade has the MCP endpoint's web guards, on by default (:mod:`._web_guard`): allowed
``Host`` names and ``Origin`` values (loopback only unless listed, ``MCPKIT_ALLOWED_HOSTS`` and
``MCPKIT_ALLOWED_ORIGINS`` add to them), JSON bodies only, a bounded body and a deadline for it.
Served by ``mcpkit rest`` it also gets the serve path's header deadline and per-peer limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any, Final

from mcpkit.contrib.openapi._asgi import (
    MAX_BODY,
    BodyTooLarge,
    Receive,
    Scope,
    Send,
    read_body,
    send_json,
)
from mcpkit.contrib.openapi._facade_document import PROBLEM_JSON, build_document
from mcpkit.contrib.openapi._web_guard import is_json_media, refusal
from mcpkit.protocol import DEFAULT_ALLOWED_HOSTS, HostPolicy, MissingRequiredClientCapability
from mcpkit.types import RESULT_TYPE_KEY

__all__ = ["RestFacade", "rest_app"]

logger = logging.getLogger("mcpkit.contrib.openapi")

REFRESH_INTERVAL: Final = 1.0
"""Seconds between re-listings triggered by unknown tool or prompt names."""
BODY_TIMEOUT: Final = 30.0
"""Seconds a request body has to arrive in full (408 after that), as on the MCP endpoint."""
_METHODS: Final = {
    "/tools": "GET",
    "/prompts": "GET",
    "/resources": "GET",
    "/resources/read": "GET",
}


def rest_app(
    target: Any,
    *,
    client_options: Mapping[str, Any] | None = None,
    timeout: float | None = 60.0,
    allowed_hosts: Iterable[str] = DEFAULT_ALLOWED_HOSTS,
    allowed_origins: Iterable[str] | None = None,
    host_policy: HostPolicy | None = None,
    max_body_bytes: int = MAX_BODY,
    body_timeout: float = BODY_TIMEOUT,
    mask_errors: bool | None = None,
) -> RestFacade:
    """An ASGI app putting the MCP server ``target`` behind plain HTTP (options: see
    :class:`RestFacade`)."""
    return RestFacade(
        target,
        client_options=client_options,
        timeout=timeout,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        host_policy=host_policy,
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
        mask_errors=mask_errors,
    )


def _problem(status: int, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}


class _Failure(Exception):
    def __init__(self, status: int, title: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.body = _problem(status, title, detail, **extra)


class RestFacade:
    """The ASGI app; connect with its lifespan or ``async with facade``.

    ``allowed_hosts`` / ``allowed_origins`` / ``host_policy``: which ``Host`` and ``Origin``
    values are answered, as for the MCP endpoint (loopback by default; the environment variables
    add to the lists). ``max_body_bytes`` / ``body_timeout``: a request body's size (413) and the
    time it has to arrive (408). ``mask_errors``: ``None`` (default) hides what the web must not
    read verbatim — the text of a tool's *unexpected* exception (an mcpkit server marks those)
    and the MCP server's own error messages (502) — while a tool's deliberate error text (a
    ``ToolError``) passes; ``True`` hides every error text; ``False`` passes them all.
    """

    def __init__(
        self,
        target: Any,
        *,
        client_options: Mapping[str, Any] | None = None,
        timeout: float | None = 60.0,
        allowed_hosts: Iterable[str] = DEFAULT_ALLOWED_HOSTS,
        allowed_origins: Iterable[str] | None = None,
        host_policy: HostPolicy | None = None,
        max_body_bytes: int = MAX_BODY,
        body_timeout: float = BODY_TIMEOUT,
        mask_errors: bool | None = None,
    ) -> None:
        self.target = target
        self.mask_errors = mask_errors
        self.host_policy = host_policy or HostPolicy.from_env(
            os.environ, allowed_hosts, allowed_origins
        )
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout
        # no result cache: a facade answers with what the server says now
        self.client_options = {"timeout": timeout, "cache": False, **dict(client_options or {})}
        self.client: Any = None
        self.document: dict[str, Any] = {}
        self._stack: contextlib.AsyncExitStack | None = None
        self._tools: dict[str, dict[str, Any]] = {}
        self._validators: dict[str, Any] = {}
        self._prompts: dict[str, dict[str, Any]] = {}
        self._task_only: set[str] = set()
        """Tools a 2026 server runs only as tasks (it said so with -32021)."""
        self._has_resources = False
        self._refreshed_at = 0.0
        self._refresh_lock: Any = None

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> RestFacade:
        from mcpkit.client import Client
        from mcpkit.server import Server

        stack = contextlib.AsyncExitStack()
        try:
            if isinstance(self.target, Server):
                await stack.enter_async_context(self.target.running())
            self.client = await stack.enter_async_context(
                Client(self.target, name="rest", **self.client_options)
            )
            await self._load()
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()

    async def _load(self) -> None:
        import msgspec

        from mcpkit.contrib.openapi._validate import Validator

        client = self.client
        capabilities = client.server_capabilities or {}
        tools = [msgspec.to_builtins(t) for t in await client.list_tools()]
        prompts: list[dict[str, Any]] = []
        if "prompts" in capabilities:
            prompts = [msgspec.to_builtins(p) for p in await client.list_prompts()]
        self._has_resources = "resources" in capabilities
        self._tools = {t["name"]: t for t in tools}
        self._validators = {
            t["name"]: Validator(t.get("inputSchema") or {"type": "object"}) for t in tools
        }
        self._prompts = {p["name"]: p for p in prompts}
        self.document = build_document(
            dict(client.server_info or {}), tools, prompts, has_resources=self._has_resources
        )

    # -- ASGI ----------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        refused = refusal(scope, self.host_policy)
        if refused is not None:
            status, title, detail = refused
            logger.warning("refused a request: %s", detail)
            await send_json(
                send, status, _problem(status, title, detail), content_type=PROBLEM_JSON
            )
            return
        try:
            status, body = await self._route(scope, receive)
        except _Failure as failure:
            headers = []
            if failure.status == 405:
                headers.append((b"allow", failure.body.pop("allow").encode()))
            await send_json(
                send, failure.status, failure.body, content_type=PROBLEM_JSON, headers=headers
            )
            return
        content_type = PROBLEM_JSON if status >= 400 else "application/json"
        await send_json(send, status, body, content_type=content_type)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.__aenter__()
                except Exception as exc:
                    logger.exception("could not connect to the MCP server")
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.__aexit__(None, None, None)
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _route(self, scope: Scope, receive: Receive) -> tuple[int, Any]:
        path: str = scope["path"]
        method: str = scope["method"]
        if self.client is None:
            raise _Failure(503, "Service Unavailable", "not connected to the MCP server yet")
        if path == "/openapi.json":
            self._allow(method, "GET")
            return 200, self.document
        if path in _METHODS:
            self._allow(method, _METHODS[path])
            return await self._guard(self._listing(path, scope))
        for prefix, table, handler in (
            ("/tools/", self._tools, self._call_tool),
            ("/prompts/", self._prompts, self._get_prompt),
        ):
            if path.startswith(prefix):
                name = path[len(prefix) :]
                if name not in table and await self._refresh():
                    table = self._tools if prefix == "/tools/" else self._prompts
                if name not in table:
                    raise _Failure(404, "Not Found", f"no {prefix[1:-2]} named {name!r}")
                self._allow(method, "POST")
                arguments = await self._json_body(scope, receive)
                return await self._guard(handler(name, arguments))
        raise _Failure(404, "Not Found", f"nothing at {path}; GET /openapi.json lists the API")

    async def _refresh(self) -> bool:
        """List again (a name we do not know may be new); at most once per REFRESH_INTERVAL."""
        import asyncio
        import time

        if self._refresh_lock is None:
            self._refresh_lock = asyncio.Lock()
        async with self._refresh_lock:
            now = time.monotonic()
            if now - self._refreshed_at < REFRESH_INTERVAL:
                return False
            self._refreshed_at = now
            await self._guard(self._relist())
            return True

    async def _relist(self) -> tuple[int, Any]:
        await self._load()
        return 200, None

    @staticmethod
    def _allow(method: str, allowed: str) -> None:
        if method != allowed:
            raise _Failure(405, "Method Not Allowed", f"use {allowed}", allow=allowed)

    async def _guard(self, work: Any) -> tuple[int, Any]:
        """Translate what the MCP side raised into HTTP statuses."""
        from mcpkit.protocol import (
            InvalidParams,
            JSONRPCError,
            RequestTimeout,
            ResourceNotFound,
            TransportError,
        )

        try:
            result: tuple[int, Any] = await work
            return result
        except _Failure:
            raise
        except ResourceNotFound as exc:
            raise _Failure(404, "Not Found", exc.message) from None
        except InvalidParams as exc:
            raise _Failure(400, "Bad Request", exc.message) from None
        except RequestTimeout as exc:
            raise _Failure(504, "Gateway Timeout", str(exc)) from None
        except JSONRPCError as exc:
            if self.mask_errors is False:
                raise _Failure(
                    502, "Bad Gateway", f"the MCP server answered: {exc.message}"
                ) from None
            logger.warning("the MCP server answered error %s: %s", exc.code, exc.message)
            raise _Failure(
                502, "Bad Gateway", f"the MCP server answered an error (code {exc.code})"
            ) from None
        except (TransportError, OSError) as exc:
            raise _Failure(502, "Bad Gateway", f"the MCP server is unreachable: {exc}") from None
        except Exception as exc:
            from mcpkit.client import ClientError

            if isinstance(exc, ClientError):
                raise _Failure(502, "Bad Gateway", str(exc)) from None
            raise

    async def _listing(self, path: str, scope: Scope) -> tuple[int, Any]:
        import msgspec

        client = self.client
        if path == "/tools":
            return 200, list(self._tools.values())
        if path == "/prompts":
            return 200, list(self._prompts.values())
        if not self._has_resources:
            raise _Failure(404, "Not Found", "this MCP server has no resources")
        if path == "/resources":
            resources = [msgspec.to_builtins(r) for r in await client.list_resources()]
            templates = [msgspec.to_builtins(t) for t in await client.list_resource_templates()]
            return 200, {"resources": resources, "resourceTemplates": templates}
        from urllib.parse import parse_qs

        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        uris = query.get("uri")
        if not uris or not uris[0]:
            raise _Failure(400, "Bad Request", "give the resource as ?uri=...")
        result = msgspec.to_builtins(await client.read_resource(uris[0]))
        return 200, {"contents": result.get("contents", [])}

    async def _call_tool(self, name: str, arguments: Any) -> tuple[int, Any]:
        import msgspec

        if arguments is _NO_BODY:
            arguments = {}
        errors = sorted(self._validators[name].iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            details = [
                {"field": ".".join(str(p) for p in e.absolute_path) or None, "message": e.message}
                for e in errors[:10]
            ]
            raise _Failure(400, "Bad Request", details[0]["message"], errors=details)
        execution = self._tools[name].get("execution") or {}
        if name in self._task_only or (
            isinstance(execution, dict) and execution.get("taskSupport") == "required"
        ):
            called = await self._call_as_task(name, arguments)
        else:
            try:
                called = await self.client.call_tool(name, arguments, output_validation="strict")
            except MissingRequiredClientCapability as exc:
                if not _asks_for_tasks(exc):
                    raise
                self._task_only.add(name)
                called = await self._call_as_task(name, arguments)
        result = msgspec.to_builtins(called)
        content = result.get("content", [])
        if result.get("isError"):
            from mcpkit.server import INTERNAL_ERROR_META

            meta = result.get("_meta")
            unexpected = isinstance(meta, dict) and meta.get(INTERNAL_ERROR_META) is True
            if self.mask_errors or (self.mask_errors is None and unexpected):
                text = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
                logger.warning("tool %r failed: %s", name, text)
                detail = f"tool {name!r} failed with an internal error"
                return 422, _problem(422, "Tool Error", detail)
            text = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
            return 422, _problem(
                422, "Tool Error", text or f"tool {name!r} failed", content=content
            )
        if self._tools[name].get("outputSchema") is not None:
            return 200, result.get("structuredContent")
        return 200, {"content": content}

    async def _call_as_task(self, name: str, arguments: Any) -> Any:
        """Start the tool as a task and follow it to its result (within the facade's timeout)."""
        task = await self.client.call_tool_as_task(name, arguments)
        try:
            return await task.result(timeout=self.client_options.get("timeout"))
        except TimeoutError:
            await task.cancel()
            raise _Failure(
                504, "Gateway Timeout", f"the task running {name!r} did not finish in time"
            ) from None

    async def _get_prompt(self, name: str, arguments: Any) -> tuple[int, Any]:
        import msgspec

        arguments = {} if arguments is _NO_BODY else arguments
        if not isinstance(arguments, dict) or not all(
            isinstance(v, str) for v in arguments.values()
        ):
            raise _Failure(400, "Bad Request", "prompt arguments are an object of strings")
        declared = {a["name"]: a for a in self._prompts[name].get("arguments") or []}
        unknown = sorted(set(arguments) - set(declared))
        missing = sorted(n for n, a in declared.items() if a.get("required") and n not in arguments)
        if unknown or missing:
            detail = "; ".join(
                part
                for part in (
                    f"unknown argument(s): {', '.join(unknown)}" if unknown else "",
                    f"missing argument(s): {', '.join(missing)}" if missing else "",
                )
                if part
            )
            raise _Failure(400, "Bad Request", detail)
        result = msgspec.to_builtins(await self.client.get_prompt(name, arguments))
        result.pop("_meta", None)
        result.pop(RESULT_TYPE_KEY, None)
        return 200, result

    async def _json_body(self, scope: Scope, receive: Receive) -> Any:
        """The request's JSON body (``_NO_BODY`` when there is none): bounded in size and in
        time, and declared JSON (a web page cannot send that cross-origin without a preflight)."""
        try:
            async with asyncio.timeout(self.body_timeout):
                raw = await read_body(receive, self.max_body_bytes)
        except BodyTooLarge:
            raise _Failure(413, "Content Too Large", "the body is too large") from None
        except TimeoutError:
            raise _Failure(
                408, "Request Timeout", f"the body did not arrive within {self.body_timeout:g} s"
            ) from None
        if not raw:
            return _NO_BODY  # no body: no arguments (a blank one is not JSON: 400 below)
        if not is_json_media(scope):
            raise _Failure(
                415, "Unsupported Media Type", "send the body as Content-Type: application/json"
            )
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise _Failure(400, "Bad Request", f"the body is not valid JSON: {exc}") from None
        except RecursionError:
            raise _Failure(400, "Bad Request", "the body is nested too deeply") from None
        if b"\\u" in raw and _lone_surrogate(value):
            raise _Failure(
                400, "Bad Request", "the body has a lone surrogate escape (not valid Unicode)"
            )
        return value


def _asks_for_tasks(exc: Any) -> bool:
    from mcpkit.types import TASKS_EXTENSION_ID

    data = exc.data if isinstance(exc.data, dict) else {}
    required = data.get("requiredCapabilities")
    extensions = required.get("extensions") if isinstance(required, dict) else None
    return isinstance(extensions, dict) and TASKS_EXTENSION_ID in extensions


_NO_BODY: Final = object()
"""An empty request body (no arguments), unlike a JSON ``null`` (not the object declared)."""


def _lone_surrogate(value: Any) -> bool:
    """Does the decoded body hold a lone UTF-16 surrogate (``"\\ud800"``)? ``json`` accepts it,
    but no server can encode it: it would fail deep in the call instead of being a 400."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return True
    except RecursionError:  # pragma: no cover - json.loads refused deeper bodies already
        return True
    return False

"""A FastAPI (or any ASGI) app as an MCP server, in process: no socket, no network hop.

The app's own OpenAPI document (``app.openapi()``) describes the tools, and requests reach the
app through ``httpx.ASGITransport``, so path operations, dependencies, validation and exception
handlers all run exactly as they do for HTTP clients. Route maps work as for any document.

``httpx.ASGITransport`` sends no lifespan events, so the app's own lifespan (startup and shutdown
handlers, ``lifespan=``) runs as the MCP server's lifespan instead: it starts when the server
starts serving and stops when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, Final, Unpack

from mcpkit.concurrency import TaskScope, race
from mcpkit.contrib.openapi._provider import from_openapi
from mcpkit.contrib.openapi._responses import ValidationMode
from mcpkit.contrib.openapi._routes import RouteMap
from mcpkit.server import Server, ServerOptions

__all__ = ["SHUTDOWN_WAIT_SECONDS", "from_asgi", "from_fastapi"]

SHUTDOWN_WAIT_SECONDS: Final = 10.0
"""How long the app's lifespan may take to return after its shutdown; then it is cancelled."""

logger = logging.getLogger("mcpkit.contrib.openapi")


def from_fastapi(
    app: Any,
    *,
    name: str | None = None,
    route_maps: Iterable[RouteMap] = (),
    names: Mapping[str, str] | None = None,
    validate_responses: ValidationMode = "strict",
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    **server_options: Unpack[ServerOptions],
) -> Server:
    """Serve ``app`` (a ``fastapi.FastAPI``) as MCP; ``headers`` go with every request."""
    return from_asgi(
        app,
        app.openapi(),
        name=name or getattr(app, "title", None),
        route_maps=route_maps,
        names=names,
        validate_responses=validate_responses,
        headers=headers,
        timeout=timeout,
        **server_options,
    )


def from_asgi(
    app: Any,
    document: Mapping[str, Any],
    *,
    name: str | None = None,
    route_maps: Iterable[RouteMap] = (),
    names: Mapping[str, str] | None = None,
    validate_responses: ValidationMode = "strict",
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    **server_options: Unpack[ServerOptions],
) -> Server:
    """Serve any ASGI ``app`` described by ``document`` as MCP, in process."""
    import httpx

    if "lifespan" not in server_options:
        server_options["lifespan"] = _app_lifespan(app)
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://asgi.local",
        headers=dict(headers or {}),
        timeout=timeout,
    )
    return from_openapi(
        document,
        client,
        name=name,
        route_maps=route_maps,
        names=names,
        validate_responses=validate_responses,
        **server_options,
    )


def _app_lifespan(app: Any) -> Callable[[Server], contextlib.AbstractAsyncContextManager[None]]:
    """Drive the ASGI app's lifespan protocol for the life of the MCP server."""

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[None]:
        inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}

        async def receive() -> dict[str, Any]:
            return await inbox.get()

        async def send(message: Any) -> None:
            await outbox.put(dict(message))

        async def run() -> None:
            try:
                await app(scope, receive, send)
            except Exception:  # apps without lifespan support may raise: then there is none
                await outbox.put({"type": "unsupported"})
            else:  # returned (with or without answering): unblocks whoever waits
                await outbox.put({"type": "finished"})

        # The app's lifespan task is owned by this block: however it ends (startup failed, the
        # server stopped, the caller cancelled), the task is cancelled if still running and
        # awaited before the block is left.
        async with TaskScope("openapi-asgi-lifespan", logger) as owner:
            task = owner.spawn(run(), name="openapi-asgi-lifespan")
            await inbox.put({"type": "lifespan.startup"})
            answer = await outbox.get()
            if answer["type"] == "lifespan.startup.failed":
                raise RuntimeError(f"the app failed to start: {answer.get('message', '')}")
            supported = answer["type"] == "lifespan.startup.complete"
            try:
                yield
            finally:
                if supported:
                    await inbox.put({"type": "lifespan.shutdown"})
                    await outbox.get()
                await race(task, timeout=SHUTDOWN_WAIT_SECONDS)  # then the scope cancels it

    return lifespan

"""A FastAPI (or any ASGI) app as an MCP server, in process: no socket, no network hop.

The app's own OpenAPI document (``app.openapi()``) describes the tools, and requests reach the
app through ``httpx.ASGITransport``, so path operations, dependencies, validation and exception
handlers all run exactly as they do for HTTP clients. Route maps work as for any document.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mcpkit.contrib.openapi.provider import from_openapi
from mcpkit.contrib.openapi.responses import ValidationMode
from mcpkit.contrib.openapi.routes import RouteMap
from mcpkit.server import Server

__all__ = ["from_asgi", "from_fastapi"]


def from_fastapi(
    app: Any,
    *,
    name: str | None = None,
    route_maps: Iterable[RouteMap] = (),
    names: Mapping[str, str] | None = None,
    validate_responses: ValidationMode = "strict",
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    **server_options: Any,
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
    **server_options: Any,
) -> Server:
    """Serve any ASGI ``app`` described by ``document`` as MCP, in process."""
    import httpx

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

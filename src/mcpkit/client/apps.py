"""MCP Apps for hosts written in Python: declare support, find a tool's view, fetch it.

>>> from mcpkit.client.apps import APPS_CLIENT_OPTIONS
>>> client = Client(target, **APPS_CLIENT_OPTIONS)    # doctest: +SKIP

(``extensions=`` in 2026-07-28 as the spec says, and the same entry under ``experimental`` for
a handshake-era ``initialize``, whose revisions have no ``extensions`` field.)

A client that declares the extension sees app-only tools too (its apps may call them); the
agent's tool list must leave them out (:func:`model_tools`), and an app may call only those
:func:`app_callable` says yes to. :func:`fetch_view` reads a tool's ``ui://`` resource and
returns the HTML with the Content-Security-Policy and permission policy the host must apply.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar

import msgspec

from mcpkit.protocol._apps import (
    apps_client_options,
    callable_by_app,
    content_security_policy,
    permission_policy,
    resource_ui_meta,
    tool_resource_uri,
    visible_to_model,
)
from mcpkit.protocol._errors import UsageError
from mcpkit.types._apps import APP_MIME_TYPE
from mcpkit.types._tools import Tool

if TYPE_CHECKING:
    from mcpkit.client._client import Client

__all__ = [
    "APPS_CLIENT_OPTIONS",
    "AppView",
    "app_callable",
    "fetch_view",
    "model_tools",
    "view_uri",
]

APPS_CLIENT_OPTIONS: Final[dict[str, Any]] = apps_client_options()
"""``Client(..., **APPS_CLIENT_OPTIONS)``: this host renders ``text/html;profile=mcp-app``."""

ToolT = TypeVar("ToolT")


def _as_json(tool: Any) -> Mapping[str, Any]:
    if isinstance(tool, Mapping):
        return tool
    if isinstance(tool, Tool):
        return {"_meta": tool.meta} if tool.meta else {}
    meta = getattr(tool, "meta", None)  # a HostTool, or anything with a Tool-like _meta
    inner = getattr(tool, "tool", None)
    if meta is None and isinstance(inner, Tool):
        meta = inner.meta
    return {"_meta": meta} if isinstance(meta, Mapping) else {}


def view_uri(tool: Tool | Mapping[str, Any]) -> str | None:
    """The ``ui://`` view a tool renders its results in, or ``None``."""
    return tool_resource_uri(_as_json(tool))


def model_tools(tools: Iterable[ToolT]) -> list[ToolT]:
    """The tools the agent may see (``_meta.ui.visibility`` includes ``"model"``)."""
    return [tool for tool in tools if visible_to_model(_as_json(tool))]


def app_callable(tool: Tool | Mapping[str, Any]) -> bool:
    """Whether an app's ``tools/call`` of this tool (of its own server) may be forwarded."""
    return callable_by_app(_as_json(tool))


@dataclass(frozen=True, slots=True)
class AppView:
    """A view ready to render: its HTML and what its host must enforce."""

    uri: str
    html: str
    ui: Mapping[str, Any]
    """The content's ``_meta.ui`` as declared (``csp``, ``permissions``, ``prefersBorder``...)."""

    @property
    def csp(self) -> Mapping[str, Any]:
        value = self.ui.get("csp")
        return value if isinstance(value, Mapping) else {}

    @property
    def content_security_policy(self) -> str:
        """The policy to serve the view under (declared origins only, restrictive defaults)."""
        return content_security_policy(self.csp)

    @property
    def permission_policy(self) -> str:
        """The iframe's ``allow`` attribute for the permissions it asked for."""
        permissions = self.ui.get("permissions")
        return permission_policy(permissions if isinstance(permissions, Mapping) else None)

    @property
    def prefers_border(self) -> bool | None:
        value = self.ui.get("prefersBorder")
        return value if isinstance(value, bool) else None


async def fetch_view(client: Client, tool_or_uri: Tool | Mapping[str, Any] | str) -> AppView:
    """Read a tool's view (or a ``ui://`` URI) with ``resources/read``."""
    uri = tool_or_uri if isinstance(tool_or_uri, str) else view_uri(tool_or_uri)
    if uri is None:
        raise UsageError("this tool has no view (no _meta.ui.resourceUri)")
    result = await client.read_resource(uri)
    for content in result.contents:
        if (content.mime_type or "").replace(" ", "") != APP_MIME_TYPE:
            continue
        if content.text is not None:
            html = content.text
        else:
            html = base64.b64decode(content.blob or "").decode("utf-8")
        wire = msgspec.to_builtins(content.meta) if content.meta else {}
        return AppView(uri=uri, html=html, ui=dict(resource_ui_meta({"_meta": wire})))
    raise UsageError(f"{uri} holds no {APP_MIME_TYPE} content")

"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``, stable 2026-01-26): the names.

A server declares HTML resources under ``ui://`` with the MIME type :data:`APP_MIME_TYPE` and
links tools to them through ``_meta.ui.resourceUri``; a host that declared the extension renders
them in a sandboxed iframe that speaks JSON-RPC over ``postMessage``. The rules built on these
names (who sees which tool, the sandbox's Content-Security-Policy) are
:mod:`mcpkit.protocol._apps`'s.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "APPS_EXTENSION_ID",
    "APPS_PROTOCOL_VERSION",
    "APP_MIME_TYPE",
    "DEPRECATED_RESOURCE_URI_KEY",
    "UI_META_KEY",
    "UI_SCHEME",
    "AppVisibility",
    "DisplayMode",
]

APPS_EXTENSION_ID: Final = "io.modelcontextprotocol/ui"
"""The key in ``capabilities.extensions`` a host declares (with its ``mimeTypes``)."""
APP_MIME_TYPE: Final = "text/html;profile=mcp-app"
"""The one content type of the 2026-01-26 revision of the extension."""
APPS_PROTOCOL_VERSION: Final = "2026-01-26"
"""The revision of the app <-> host protocol (``ui/initialize``'s ``protocolVersion``)."""
UI_SCHEME: Final = "ui://"
UI_META_KEY: Final = "ui"
"""``_meta.ui`` of a tool (``resourceUri``, ``visibility``) and of a UI resource (``csp``...)."""
DEPRECATED_RESOURCE_URI_KEY: Final = "ui/resourceUri"
"""The flat ``_meta["ui/resourceUri"]`` of early drafts, still read, never written."""

AppVisibility = Literal["model", "app"]
"""Who may see and call a tool: the model (the agent's tool list), the app (its own server's)."""
DisplayMode = Literal["inline", "fullscreen", "pip"]

"""MCP Apps rules (SEP-1865), sans-IO: who may see and call a tool, what a host must enforce.

Every side of mcpkit reads these the same way: the server (which tools a host without apps is
shown), the client (a tool's UI resource, the model's tool list), and the inspector's host (what
an app may call, the sandbox's Content-Security-Policy and permission policy).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from mcpkit.types._apps import (
    APP_MIME_TYPE,
    APPS_EXTENSION_ID,
    DEPRECATED_RESOURCE_URI_KEY,
    UI_META_KEY,
    UI_SCHEME,
)

__all__ = [
    "APP_TO_HOST_METHODS",
    "CSP_FIELDS",
    "DEFAULT_VISIBILITY",
    "HOST_TO_APP_METHODS",
    "PERMISSION_FEATURES",
    "apps_client_options",
    "apps_extension_settings",
    "callable_by_app",
    "client_supports_apps",
    "content_security_policy",
    "hide_from_host_without_apps",
    "permission_policy",
    "resource_ui_meta",
    "sandbox_csp_domains",
    "tool_resource_uri",
    "tool_visibility",
    "visible_to_model",
]

DEFAULT_VISIBILITY: Final = ("model", "app")
CSP_FIELDS: Final = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
PERMISSION_FEATURES: Final = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
"""``_meta.ui.permissions`` key -> Permission Policy feature of the iframe's ``allow``."""

APP_TO_HOST_METHODS: Final = frozenset(
    {
        "ui/initialize",
        "ui/notifications/initialized",
        "ui/open-link",
        "ui/message",
        "ui/request-display-mode",
        "ui/update-model-context",
        "ui/notifications/size-changed",
        "tools/call",
        "resources/read",
        "notifications/message",
        "ping",
    }
)
"""What a View may send its host (the spec's subset of MCP plus the ``ui/`` methods); a host
answers anything else with -32601."""
HOST_TO_APP_METHODS: Final = frozenset(
    {
        "ui/notifications/tool-input",
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-result",
        "ui/notifications/tool-cancelled",
        "ui/notifications/host-context-changed",
        "ui/resource-teardown",
        "ping",
    }
)

_ORIGIN: Final = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$")
"""A CSP source a server may declare: scheme, host (one leading ``*.`` allowed), port; no path,
no quote, no space or ``;`` that could smuggle another directive."""
_NONE: Final = "'none'"
_SELF: Final = "'self'"


def apps_extension_settings(mime_types: Sequence[str] = (APP_MIME_TYPE,)) -> dict[str, Any]:
    """What a host puts in ``capabilities.extensions`` to say it renders apps."""
    return {APPS_EXTENSION_ID: {"mimeTypes": list(mime_types)}}


def apps_client_options(mime_types: Sequence[str] = (APP_MIME_TYPE,)) -> dict[str, Any]:
    """A client's declaration in both eras: ``capabilities.extensions`` (the spec's place, a
    2026-07-28 field) and the same entry under ``capabilities.experimental``, the one open map
    every handshake-era revision has (mcpkit never sends a peer a field its revision lacks, so
    a legacy ``initialize`` carries the declaration there)."""
    settings = apps_extension_settings(mime_types)
    return {"extensions": settings, "experimental": settings}


def client_supports_apps(capabilities: Mapping[str, Any] | None) -> bool:
    """Whether a client declared the extension with the HTML app MIME type (under
    ``extensions``, as hosts do in every era, or under ``experimental``, see
    :func:`apps_client_options`)."""
    for where in ("extensions", "experimental"):
        declared = (capabilities or {}).get(where)
        settings = declared.get(APPS_EXTENSION_ID) if isinstance(declared, Mapping) else None
        if isinstance(settings, Mapping):
            mime_types = settings.get("mimeTypes")
            if isinstance(mime_types, list) and APP_MIME_TYPE in mime_types:
                return True
    return False


def _ui_meta(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = tool.get("_meta")
    if not isinstance(meta, Mapping):
        return {}
    ui = meta.get(UI_META_KEY)
    return ui if isinstance(ui, Mapping) else {}


def tool_resource_uri(tool: Mapping[str, Any]) -> str | None:
    """The ``ui://`` resource a tool (its ``tools/list`` entry) renders with, if any (the
    deprecated flat ``_meta["ui/resourceUri"]`` is read too)."""
    uri = _ui_meta(tool).get("resourceUri")
    if uri is None:
        meta = tool.get("_meta")
        uri = meta.get(DEPRECATED_RESOURCE_URI_KEY) if isinstance(meta, Mapping) else None
    return uri if isinstance(uri, str) and uri.startswith(UI_SCHEME) else None


def tool_visibility(tool: Mapping[str, Any]) -> tuple[str, ...]:
    """``_meta.ui.visibility``; ``("model", "app")`` when absent or malformed."""
    visibility = _ui_meta(tool).get("visibility")
    if not isinstance(visibility, list) or not all(isinstance(v, str) for v in visibility):
        return DEFAULT_VISIBILITY
    return tuple(visibility)


def visible_to_model(tool: Mapping[str, Any]) -> bool:
    """Whether a host may put the tool in the agent's tool list."""
    return "model" in tool_visibility(tool)


def callable_by_app(tool: Mapping[str, Any]) -> bool:
    """Whether a host may forward an app's ``tools/call`` of it (same server only)."""
    return "app" in tool_visibility(tool)


def hide_from_host_without_apps(tools: Iterable[Mapping[str, Any]]) -> list[Any]:
    """``tools/list`` for a client that did not declare apps: app-only tools are left out (it
    would show them to the model), the others are listed as they are (their text results stand
    alone; their ``_meta.ui`` is inert for such a client)."""
    return [tool for tool in tools if visible_to_model(tool)]


def resource_ui_meta(content: Mapping[str, Any]) -> Mapping[str, Any]:
    """``_meta.ui`` of one ``resources/read`` content (``csp``, ``permissions``...)."""
    return _ui_meta(content)


def sandbox_csp_domains(csp: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """The declared domains a host may put in a policy: each field a list of plain origins;
    anything else (quotes, paths, ``;``, ``*`` alone) is dropped, never loosening the policy."""
    out: dict[str, list[str]] = {}
    for field in CSP_FIELDS:
        values = (csp or {}).get(field)
        if isinstance(values, list):
            kept = [v for v in values if isinstance(v, str) and _ORIGIN.match(v)]
            if kept:
                out[field] = kept
    return out


def content_security_policy(csp: Mapping[str, Any] | None) -> str:
    """The policy a host applies to a View, built from its declared domains as the spec's
    construction does (restrictive defaults when nothing is declared)."""
    domains = sandbox_csp_domains(csp)
    resources = "".join(" " + d for d in domains.get("resourceDomains", ()))

    def listed(field: str, default: str) -> str:
        return " ".join(domains.get(field, ())) or default

    return "; ".join(
        (
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline'{resources}",
            f"style-src 'self' 'unsafe-inline'{resources}",
            f"connect-src {listed('connectDomains', _NONE)}",
            f"img-src 'self' data:{resources}",
            f"font-src 'self'{resources}",
            f"media-src 'self' data:{resources}",
            f"frame-src {listed('frameDomains', _NONE)}",
            "object-src 'none'",
            f"base-uri {listed('baseUriDomains', _SELF)}",
        )
    )


def permission_policy(permissions: Mapping[str, Any] | None) -> str:
    """The iframe ``allow`` attribute for the declared ``permissions`` (unknown ones ignored)."""
    return "; ".join(
        feature
        for key, feature in PERMISSION_FEATURES.items()
        if isinstance((permissions or {}).get(key), Mapping)
    )

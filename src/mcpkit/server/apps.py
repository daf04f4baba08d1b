"""MCP Apps on the server: HTML views under ``ui://`` and the tools that open them (SEP-1865).

Declare a view with :meth:`Server.ui_resource <mcpkit.server.Server.ui_resource>` (from a
string, a file or a function), link a tool to it with ``@server.tool(ui=...)``, and hide tools
the model should not see with ``visibility=["app"]``. A host that declared the extension
(``io.modelcontextprotocol/ui`` with ``text/html;profile=mcp-app``) renders the view next to the
tool's result; any other client sees the tools it may call and their ordinary text results
(app-only tools are left out of its ``tools/list`` and refused as unknown).

``bridge=True`` inlines mcpkit's app-side bridge (:func:`bridge_script`, ``mcpkitApp`` in the
page) so plain HTML talks to the host without a build step; apps built with the official
``App`` class of ``@modelcontextprotocol/ext-apps`` are served unchanged.
"""

from __future__ import annotations

import importlib.resources
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypedDict

import msgspec

from mcpkit.protocol._errors import UsageError
from mcpkit.server._resources import RegisteredResource, ResourceData
from mcpkit.types._apps import APP_MIME_TYPE, UI_META_KEY, UI_SCHEME, AppVisibility
from mcpkit.types._jsonrpc import JSONObject

__all__ = [
    "PERMISSIONS",
    "Csp",
    "UiOptions",
    "UiResource",
    "bridge_script",
    "tool_ui_meta",
    "with_bridge",
]

PERMISSIONS: Final = ("camera", "microphone", "geolocation", "clipboardWrite")
"""The browser permissions a view may ask its host for (``permissions=``)."""
_HEAD: Final = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)


class Csp(msgspec.Struct, frozen=True, kw_only=True):
    """The origins a view needs beyond its own inline code (``_meta.ui.csp``); the host allows
    nothing else. Each entry is an origin such as ``https://api.example.com`` or
    ``https://*.example.com``."""

    connect_domains: Sequence[str] = ()
    """fetch / XHR / WebSocket (``connect-src``)."""
    resource_domains: Sequence[str] = ()
    """scripts, styles, images, fonts, media."""
    frame_domains: Sequence[str] = ()
    """nested iframes (``frame-src``; none by default)."""
    base_uri_domains: Sequence[str] = ()
    """``<base href>`` (``base-uri``; the view's own by default)."""

    def to_json(self) -> JSONObject:
        out: JSONObject = {}
        for key, values in (
            ("connectDomains", self.connect_domains),
            ("resourceDomains", self.resource_domains),
            ("frameDomains", self.frame_domains),
            ("baseUriDomains", self.base_uri_domains),
        ):
            if values:
                out[key] = list(values)
        return out


class UiOptions(TypedDict, total=False):
    """The keyword options of :meth:`Server.ui_resource` (as :class:`UiResource` takes them)."""

    name: str
    title: str
    description: str
    csp: Csp | Mapping[str, Sequence[str]]
    permissions: Sequence[str]
    prefers_border: bool
    domain: str
    bridge: bool


def bridge_script() -> str:
    """mcpkit's app-side bridge: a small script defining ``window.mcpkitApp`` (see
    ``docs/apps.md``) that implements the View's side of the protocol over ``postMessage``."""
    return (
        importlib.resources.files("mcpkit.server")
        .joinpath("app_bridge.js")
        .read_text(encoding="utf-8")
    )


def with_bridge(html: str) -> str:
    """``html`` with the bridge inlined first in its ``<head>`` (or at the very start): inline,
    because a view's default Content-Security-Policy loads no script from anywhere else."""
    tag = "<script>\n" + bridge_script() + "\n</script>\n"
    found = _HEAD.search(html)
    if found is None:
        return tag + html
    return html[: found.end()] + "\n" + tag + html[found.end() :]


def _ui_settings(
    csp: Csp | Mapping[str, Sequence[str]] | None,
    permissions: Sequence[str],
    prefers_border: bool | None,
    domain: str | None,
) -> JSONObject:
    ui: JSONObject = {}
    if csp is not None:
        declared = csp.to_json() if isinstance(csp, Csp) else {k: list(v) for k, v in csp.items()}
        if declared:
            ui["csp"] = declared
    unknown = [p for p in permissions if p not in PERMISSIONS]
    if unknown:
        raise UsageError(f"unknown permission(s) {unknown}: choose from {', '.join(PERMISSIONS)}")
    if permissions:
        ui["permissions"] = {p: {} for p in permissions}
    if prefers_border is not None:
        ui["prefersBorder"] = prefers_border
    if domain is not None:
        ui["domain"] = domain
    return ui


class UiResource(RegisteredResource):
    """A view: a ``ui://`` resource of type ``text/html;profile=mcp-app`` whose reads carry its
    ``_meta.ui`` (CSP, permissions, border, domain). Pass it (or its URI) as a tool's ``ui=``."""

    __slots__ = ("ui",)

    def __init__(
        self,
        uri: str,
        source: str | Path | Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        csp: Csp | Mapping[str, Sequence[str]] | None = None,
        permissions: Sequence[str] = (),
        prefers_border: bool | None = None,
        domain: str | None = None,
        bridge: bool = False,
    ) -> None:
        if not uri.startswith(UI_SCHEME):
            raise UsageError(f"a view's URI starts with {UI_SCHEME}, not {uri!r}")
        if "{" in uri:
            raise UsageError(f"a view is one resource, not a template: {uri!r}")
        self.ui = _ui_settings(csp, permissions, prefers_border, domain)
        meta: JSONObject | None = {UI_META_KEY: self.ui} if self.ui else None
        read = _reader(source, bridge, meta)
        label = name or (
            source.__name__ if callable(source) else uri.removeprefix(UI_SCHEME).replace("/", "_")
        )
        super().__init__(
            uri,
            read,
            name=label,
            title=title,
            description=description,
            mime_type=APP_MIME_TYPE,
            meta=meta,
        )


def _reader(
    source: str | Path | Callable[..., Any], bridge: bool, meta: JSONObject | None
) -> Callable[..., Any]:
    def finish(html: str) -> ResourceData:
        return ResourceData(
            text=with_bridge(html) if bridge else html, mime_type=APP_MIME_TYPE, meta=meta
        )

    if isinstance(source, Path):
        path = source

        def read_file() -> ResourceData:  # read on each request: edit the file, reload the view
            return finish(path.read_text(encoding="utf-8"))

        return read_file
    if isinstance(source, str):
        fixed = finish(source)
        return lambda: fixed
    fn = source
    if inspect.iscoroutinefunction(fn):

        async def read_async() -> ResourceData:
            return finish(await fn())

        return read_async

    def read_sync() -> ResourceData:
        return finish(fn())

    return read_sync


def tool_ui_meta(
    ui: str | UiResource | None, visibility: Sequence[AppVisibility] | None
) -> JSONObject | None:
    """A tool's ``_meta.ui``: the view it renders with and who may see it."""
    out: JSONObject = {}
    if ui is not None:
        uri = ui.uri if isinstance(ui, UiResource) else ui
        if not uri.startswith(UI_SCHEME):
            raise UsageError(f"ui= names a {UI_SCHEME} resource, not {uri!r}")
        out["resourceUri"] = uri
    if visibility is not None:
        wrong = [v for v in visibility if v not in ("model", "app")]
        if wrong or not visibility:
            raise UsageError(f'visibility= is a non-empty list of "model" and "app", not {wrong}')
        out["visibility"] = list(dict.fromkeys(visibility))
    return out or None

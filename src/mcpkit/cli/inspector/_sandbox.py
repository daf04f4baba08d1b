"""The MCP Apps sandbox proxy: a page on its own origin (a second loopback port) that loads a
view in an inner, sandboxed iframe and relays ``postMessage`` between the view and the inspector.

The spec's pattern for web hosts: the host page and the sandbox have different origins, so a
view can reach neither the inspector's page, its API nor its token. The proxy page is served
with the view's Content-Security-Policy as a real header (built from the domains the view
declared, :func:`mcpkit.protocol._apps.content_security_policy`); the inner iframe is an
``about:srcdoc`` document, which inherits that policy and cannot undo it, and its ``sandbox``
attribute gives it an opaque origin, no top-level navigation, no popups; the policy's
``frame-src`` also keeps the view's own frame from navigating to an undeclared origin, and
``form-action 'none'`` keeps forms from sending anything by navigation. ``frame-ancestors``
lets only the inspector's page frame the proxy.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import parse_qs

from mcpkit.protocol import content_security_policy

__all__ = ["PROXY_SCRIPT", "SANDBOX_PATH", "proxy_page", "sandbox_response"]

SANDBOX_PATH: Final = "/sandbox"
PROXY_SCRIPT: Final = "/sandbox/proxy.js"
MAX_CSP_QUERY: Final = 8192
"""The longest ``csp`` query a proxy page is built from (a view's declared domains)."""

_PAGE: Final = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="mcpkit-host" content="{host}">
<title>mcpkit app sandbox</title>
<style>html,body{{margin:0;padding:0;height:100%;overflow:hidden}}iframe{{border:0;width:100%;display:block}}</style>
<script src="{script}"></script></head><body></body></html>
"""


def proxy_page(host_origin: str) -> bytes:
    return _PAGE.format(host=html.escape(host_origin), script=PROXY_SCRIPT).encode()


def sandbox_response(
    path: str, query: bytes, host_origins: frozenset[str], proxy_js: bytes
) -> tuple[int, bytes, bytes, list[tuple[bytes, bytes]]]:
    """(status, body, content type, extra headers) for a request to the sandbox origin."""
    plain = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
             (b"cache-control", b"no-store")]  # fmt: skip
    if path == PROXY_SCRIPT:
        return 200, proxy_js, b"text/javascript; charset=utf-8", plain
    if path != SANDBOX_PATH or len(query) > MAX_CSP_QUERY:
        return 404, b"not found", b"text/plain", plain
    params = parse_qs(query.decode("latin-1"))
    host = (params.get("host") or [""])[0]
    if host not in host_origins:
        return 403, b"only the inspector's page may open its sandbox", b"text/plain", plain
    declared: Any = None
    try:
        declared = json.loads((params.get("csp") or ["{}"])[0])
    except ValueError:
        return 400, b"csp: not JSON", b"text/plain", plain
    csp = declared if isinstance(declared, Mapping) else {}
    # further restricted (the spec allows it): no form sends data anywhere by navigating
    policy = f"{content_security_policy(csp)}; form-action 'none'; frame-ancestors {host}"
    headers = [*plain, (b"content-security-policy", policy.encode())]
    return 200, proxy_page(host), b"text/html; charset=utf-8", headers

"""What the REST facade checks before it runs anything: the MCP endpoint's web guards.

``mcpkit rest`` runs tools on ``POST /tools/NAME``. Without these checks any web page the user
opens could make the browser post to it (``localhost`` is reachable from every tab): a
cross-origin ``fetch`` with a ``text/plain`` body is a "simple request" that needs no CORS
preflight, and DNS rebinding makes a foreign name resolve to 127.0.0.1. So, as on the MCP
endpoint: the ``Host`` must be an allowed name (421 otherwise), an ``Origin``, when sent, an
allowed origin (403), neither may appear twice (400), and a request body must be declared JSON
(415), which a page cannot do without a preflight the facade never grants.
"""

from __future__ import annotations

from typing import Final

from mcpkit.contrib.openapi._asgi import Scope
from mcpkit.protocol import HostPolicy

__all__ = ["Refusal", "is_json_media", "refusal"]

Refusal = tuple[int, str, str]
"""An HTTP status, its title and a detail a person can act on."""

_TITLES: Final = {421: "Misdirected Request", 403: "Forbidden"}


def refusal(scope: Scope, policy: HostPolicy) -> Refusal | None:
    """``None`` if the request may be served, else why not (see the module docstring)."""
    host: bytes | None = None
    origin: bytes | None = None
    for name, value in scope.get("headers", ()):
        if name == b"host":
            if host is not None:
                return 400, "Bad Request", "more than one Host header; send exactly one"
            host = value
        elif name == b"origin":
            if origin is not None:
                return 400, "Bad Request", "more than one Origin header; send exactly one"
            origin = value
    rejection = policy.check(
        host.decode("latin-1") if host is not None else None,
        origin.decode("latin-1") if origin is not None else None,
    )
    if rejection is None:
        return None
    return rejection.status, _TITLES.get(rejection.status, "Forbidden"), rejection.error.message


def is_json_media(scope: Scope) -> bool:
    """Does the request declare a JSON body (``application/json`` or ``application/*+json``)?"""
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            media = bytes(value).split(b";", 1)[0].strip().lower()
            return media == b"application/json" or (
                media.startswith(b"application/") and media.endswith(b"+json")
            )
    return False

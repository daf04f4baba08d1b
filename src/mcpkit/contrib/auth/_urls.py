"""Pure URL rules: canonical resource URIs, well-known metadata locations, scheme checks.

Nothing here touches the network, so every rule is a plain function with plain tests.
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import SplitResult, urlsplit, urlunsplit

from mcpkit.contrib.auth._errors import DiscoveryError, InsecureURLError

__all__ = [
    "PRM_WELL_KNOWN",
    "as_metadata_urls",
    "canonical_resource",
    "check_browser_url",
    "is_loopback_host",
    "origin_of",
    "prm_urls",
    "resource_covers",
]

PRM_WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"
OAUTH_AS_WELL_KNOWN: Final = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN: Final = "/.well-known/openid-configuration"
_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain"})
_BROWSER_SCHEMES: Final = frozenset({"https", "http"})


def _split(url: str) -> SplitResult:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InsecureURLError(f"not an absolute http(s) URL: {url!r}")
    return parts


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` names and loopback IP literals (no DNS lookup).

    Only the plain forms count (``127.0.0.0/8``, ``::1``): an IPv4-mapped ``::ffff:127.0.0.1`` is
    left to the non-public check, on every Python (3.13 started calling it loopback).
    """
    host = host.strip("[]").lower().rstrip(".")
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return False
    return address.is_loopback


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, scheme and host lowercased."""
    parts = _split(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), "", "", ""))


def canonical_resource(url: str) -> str:
    """The RFC 8707 canonical URI of an MCP server: lowercase scheme/host, no fragment.

    A lone ``/`` path is dropped (``https://h/`` -> ``https://h``); any other path is kept
    as is, because the path is what tells two servers on one host apart.
    """
    parts = _split(url)
    if parts.username or parts.password:
        raise InsecureURLError("a resource URL must not carry user credentials")
    path = "" if parts.path == "/" else parts.path
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether a PRM ``resource`` may legitimately describe ``server_url``.

    Same origin (case-insensitive scheme and host, same port) and the resource path is a
    whole-segment prefix of the server path: ``https://h`` covers ``https://h/mcp``,
    ``https://h/mc`` does not. Anything else is a metadata document for some other resource.
    """
    try:
        r, s = _split(resource), _split(server_url)
    except InsecureURLError:
        return False
    if r.fragment or (r.scheme.lower(), r.netloc.lower()) != (s.scheme.lower(), s.netloc.lower()):
        return False
    rseg, sseg = _segments(r.path), _segments(s.path)
    return sseg[: len(rseg)] == rseg


def prm_urls(server_url: str) -> list[str]:
    """Protected-resource-metadata locations for ``server_url`` in the order a client tries them.

    Path-inserted first (``/.well-known/oauth-protected-resource/<path>``), then the root.
    """
    parts = _split(server_url)
    origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    path = parts.path.rstrip("/")
    urls = [origin + PRM_WELL_KNOWN + path] if path else []
    urls.append(origin + PRM_WELL_KNOWN)
    return urls


def as_metadata_urls(issuer: str) -> list[str]:
    """Authorization-server metadata locations for ``issuer`` (RFC 8414 §3.1, OIDC Discovery).

    With a path (``https://as/tenant1``): OAuth path-inserted, OIDC path-inserted, OIDC
    path-appended. Without one: OAuth, then OIDC.
    """
    parts = urlsplit(issuer)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DiscoveryError(f"authorization server issuer is not an http(s) URL: {issuer!r}")
    if parts.query or parts.fragment:
        raise DiscoveryError(f"an issuer must not have a query or fragment: {issuer!r}")
    origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    path = parts.path.rstrip("/")
    if path:
        return [
            origin + OAUTH_AS_WELL_KNOWN + path,
            origin + OIDC_WELL_KNOWN + path,
            origin + path + OIDC_WELL_KNOWN,
        ]
    return [origin + OAUTH_AS_WELL_KNOWN, origin + OIDC_WELL_KNOWN]


def check_browser_url(url: str, *, allow_insecure_loopback: bool = True) -> str:
    """Refuse an authorization URL that must not be handed to a browser; return it unchanged.

    Only ``https`` (and ``http`` to a loopback host, when allowed) passes. ``javascript:``,
    ``data:``, ``file:``, ``vbscript:`` and every other scheme, and URLs carrying whitespace
    or control characters, are refused.
    """
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise InsecureURLError("the authorization URL contains whitespace or control characters")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _BROWSER_SCHEMES:
        raise InsecureURLError(
            f"refusing to open an authorization URL with scheme {scheme or '(none)'!r}: "
            "only https (or http to a loopback host) is allowed"
        )
    if not parts.hostname:
        raise InsecureURLError("the authorization URL has no host")
    if scheme == "http" and not (allow_insecure_loopback and is_loopback_host(parts.hostname)):
        raise InsecureURLError(
            "refusing a plain-http authorization URL: use https "
            "(http is accepted only for loopback hosts with allow_insecure_loopback=True)"
        )
    return url

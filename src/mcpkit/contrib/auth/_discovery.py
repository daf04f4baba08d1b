"""Finding the authorization server: RFC 9728 resource metadata, then RFC 8414 / OIDC metadata.

Order (MCP authorization, "Authorization Server Discovery"):

1. protected-resource metadata from the challenge's ``resource_metadata`` URL, else the
   path-inserted well-known URL, else the root one. Its ``resource`` must cover the server URL
   (same origin, path prefix), otherwise the document describes something else and is refused;
2. authorization-server metadata at the issuer's well-known URLs (OAuth first, then OIDC, in
   the spec's order for issuers with and without a path). The document's ``issuer`` must be
   *identical* to the issuer the URL was built from, otherwise it is refused.

Servers from the 2025-03-26 era publish no resource metadata: then, and only then, the MCP
server's origin is taken as the issuer, and if that has no metadata either the default
``/authorize``, ``/token`` and ``/register`` endpoints are used.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from mcpkit.contrib.auth._challenge import BearerChallenge
from mcpkit.contrib.auth._errors import DiscoveryError, OAuthFlowError
from mcpkit.contrib.auth._http import SafeHttp
from mcpkit.contrib.auth._metadata import (
    AuthorizationServerMetadata,
    ProtectedResourceMetadata,
    decode_metadata,
)
from mcpkit.contrib.auth._urls import (
    as_metadata_urls,
    canonical_resource,
    origin_of,
    prm_urls,
    resource_covers,
)

__all__ = ["Discovered", "discover", "discover_authorization_server", "discover_protected_resource"]

logger = logging.getLogger("mcpkit.contrib.auth")


@dataclass(slots=True)
class _Attempts:
    """Why each candidate URL was passed over; ``only_missing`` while every miss was a 4xx."""

    reasons: list[str] = field(default_factory=list)
    only_missing: bool = True

    def missing(self, url: str, status: int) -> None:
        self.reasons.append(f"{url}: HTTP {status}")
        if not 400 <= status < 500:
            self.only_missing = False

    def failed(self, url: str, reason: str) -> None:
        self.reasons.append(f"{url}: {reason}")
        self.only_missing = False

    def summary(self) -> str:
        return "; ".join(self.reasons) or "no candidate URL"


@dataclass(frozen=True, slots=True)
class Discovered:
    """The outcome of discovery for one MCP server."""

    resource: str
    """The ``resource`` parameter to send: the PRM's identifier verbatim, else the canonical URL."""
    issuer: str
    metadata: AuthorizationServerMetadata
    protected_resource: ProtectedResourceMetadata | None
    legacy: bool = False
    """True when the server published no resource metadata (2025-03-26 behaviour)."""


async def discover_protected_resource(
    http: SafeHttp, server_url: str, challenge: BearerChallenge | None
) -> ProtectedResourceMetadata | None:
    """The resource metadata for ``server_url``, or ``None`` if the server publishes none."""
    candidates = prm_urls(server_url)
    if challenge is not None and challenge.resource_metadata:
        candidates.insert(0, challenge.resource_metadata)
    attempts = _Attempts()
    for url in dict.fromkeys(candidates):
        try:
            reply = await http.get(url)
            if reply.status_code != 200:
                attempts.missing(url, reply.status_code)
                continue
            prm = decode_metadata(
                reply.json(), ProtectedResourceMetadata, f"resource metadata at {url}"
            )
        except OAuthFlowError as exc:
            attempts.failed(url, str(exc))
            continue
        if not resource_covers(prm.resource, server_url):
            raise DiscoveryError(
                f"the resource metadata at {url} is for {prm.resource!r}, which does not cover "
                f"the MCP server {server_url!r}; refusing to authorize against it"
            )
        if not prm.authorization_servers:
            raise DiscoveryError(f"the resource metadata at {url} lists no authorization_servers")
        logger.debug("protected resource metadata found at %s", url)
        return prm
    if attempts.only_missing:
        return None
    raise DiscoveryError(f"could not read protected resource metadata ({attempts.summary()})")


async def discover_authorization_server(
    http: SafeHttp, issuer: str, *, legacy_defaults: bool = False
) -> AuthorizationServerMetadata:
    """Metadata for ``issuer``; with ``legacy_defaults``, default endpoints if none exists."""
    attempts = _Attempts()
    for url in as_metadata_urls(issuer):
        try:
            reply = await http.get(url)
            if reply.status_code != 200:
                attempts.missing(url, reply.status_code)
                continue
            meta = decode_metadata(
                reply.json(), AuthorizationServerMetadata, f"AS metadata at {url}"
            )
        except OAuthFlowError as exc:
            attempts.failed(url, str(exc))
            continue
        if meta.issuer != issuer:
            attempts.failed(url, f"claims issuer {meta.issuer!r} instead of {issuer!r} (refused)")
            continue
        logger.debug("authorization server metadata found at %s", url)
        return meta
    if legacy_defaults and attempts.only_missing:
        logger.debug("no AS metadata at %s; using the 2025-03-26 default endpoints", issuer)
        base = issuer.rstrip("/")
        return AuthorizationServerMetadata(
            issuer=issuer,
            authorization_endpoint=base + "/authorize",
            token_endpoint=base + "/token",
            registration_endpoint=base + "/register",
            code_challenge_methods_supported=["S256"],
        )
    raise DiscoveryError(
        f"no usable authorization server metadata for issuer {issuer!r} ({attempts.summary()})"
    )


async def discover(
    http: SafeHttp,
    server_url: str,
    challenge: BearerChallenge | None,
    *,
    preferred_issuers: tuple[str, ...] = (),
) -> Discovered:
    """Run both discovery steps for ``server_url``.

    When the resource lists several authorization servers, the first one in
    ``preferred_issuers`` (issuers the client already holds credentials for) wins, else the
    first listed.
    """
    prm = await discover_protected_resource(http, server_url, challenge)
    if prm is None:
        issuer = origin_of(server_url)
        meta = await discover_authorization_server(http, issuer, legacy_defaults=True)
        return Discovered(canonical_resource(server_url), issuer, meta, None, legacy=True)
    preferred = [i for i in preferred_issuers if i in prm.authorization_servers]
    issuer = preferred[0] if preferred else prm.authorization_servers[0]
    meta = await discover_authorization_server(http, issuer)
    return Discovered(prm.resource, issuer, meta, prm)

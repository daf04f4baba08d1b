"""The MCP server as an OAuth 2.1 resource server: metadata, challenges, scope checks.

:class:`ProtectedResource` holds the resource's identity and policy and produces the RFC 9728
metadata document (served at the path-inserted and the root well-known URL) and the
``WWW-Authenticate`` challenges. :class:`RequireBearer` (in :mod:`.middleware`) applies it to
an ASGI app. :func:`check_scopes` is what the server layer calls for per-tool scopes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import msgspec

from mcpkit.contrib.auth._challenge import format_bearer_challenge
from mcpkit.contrib.auth._errors import InsufficientScope
from mcpkit.contrib.auth._metadata import ProtectedResourceMetadata
from mcpkit.contrib.auth._urls import PRM_WELL_KNOWN, canonical_resource, origin_of
from mcpkit.contrib.auth._verifier import AccessToken, TokenVerifier

__all__ = ["ProtectedResource", "check_scopes", "error_response", "expand_scopes"]


def expand_scopes(scopes: Iterable[str], hierarchy: Mapping[str, Iterable[str]] | None) -> set[str]:
    """``scopes`` plus everything they imply under ``hierarchy`` (broad -> narrower, transitive)."""
    held = set(scopes)
    if not hierarchy:
        return held
    pending = list(held)
    while pending:
        for implied in hierarchy.get(pending.pop(), ()):
            if implied not in held:
                held.add(implied)
                pending.append(implied)
    return held


def check_scopes(
    token: AccessToken,
    required: Iterable[str],
    *,
    hierarchy: Mapping[str, Iterable[str]] | None = None,
) -> None:
    """Raise :class:`InsufficientScope` naming *all* of ``required`` unless the token has them.

    Every required scope goes into the one challenge (the spec asks servers not to challenge
    one scope at a time); ``hierarchy`` maps a broad scope to the narrower ones it grants.
    """
    needed = list(dict.fromkeys(required))
    if not needed:
        return
    held = expand_scopes(token.scopes, hierarchy)
    missing = [s for s in needed if s not in held]
    if missing:
        raise InsufficientScope(
            needed,
            f"this operation requires the scope(s) {' '.join(needed)}; missing {' '.join(missing)}",
        )


class ProtectedResource:
    """An MCP server's resource-server configuration.

    ``resource_url`` is the MCP endpoint (``https://mcp.example.com/mcp``); its canonical form
    is the ``resource`` in the metadata and the audience tokens must carry.
    ``required_scopes`` are needed for any request; ``scopes_supported`` is advertised in the
    metadata (keep it minimal, and without ``offline_access``).
    """

    def __init__(
        self,
        resource_url: str,
        authorization_servers: Sequence[str],
        verifier: TokenVerifier,
        *,
        scopes_supported: Sequence[str] | None = None,
        required_scopes: Sequence[str] = (),
        resource_name: str | None = None,
        resource_documentation: str | None = None,
        scope_hierarchy: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        if not authorization_servers:
            raise ValueError("a protected resource needs at least one authorization server")
        self.resource = canonical_resource(resource_url)
        self.verifier = verifier
        self.required_scopes = tuple(required_scopes)
        self.scope_hierarchy = scope_hierarchy
        self.metadata = ProtectedResourceMetadata(
            resource=self.resource,
            authorization_servers=list(authorization_servers),
            scopes_supported=list(scopes_supported) if scopes_supported is not None else None,
            bearer_methods_supported=["header"],
            resource_name=resource_name,
            resource_documentation=resource_documentation,
        )
        path = urlsplit(self.resource).path.rstrip("/")
        self.metadata_path = PRM_WELL_KNOWN + path
        self.metadata_paths: tuple[str, ...] = tuple(
            dict.fromkeys((self.metadata_path, PRM_WELL_KNOWN))
        )
        self.metadata_url = origin_of(self.resource) + self.metadata_path
        self._document = msgspec.json.encode(self.metadata)

    def metadata_document(self) -> bytes:
        """The RFC 9728 document as JSON bytes."""
        return self._document

    def metadata_dict(self) -> dict[str, Any]:
        return self.metadata.to_dict()

    @property
    def challenge_scopes(self) -> tuple[str, ...]:
        """Scopes named in a 401 challenge: the required ones, else those advertised."""
        return self.required_scopes or tuple(self.metadata.scopes_supported or ())

    def challenge(
        self,
        *,
        error: str | None = None,
        description: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> str:
        """A ``WWW-Authenticate`` value: ``Bearer resource_metadata=..., scope=..., error=...``."""
        scope_list = self.challenge_scopes if scopes is None else tuple(scopes)
        return format_bearer_challenge(
            {
                "resource_metadata": self.metadata_url,
                "scope": " ".join(scope_list) if scope_list else None,
                "error": error,
                "error_description": description,
            }
        )

    def check(self, token: AccessToken, required: Iterable[str] = ()) -> None:
        """:func:`check_scopes` against ``required`` plus this resource's required scopes."""
        check_scopes(token, [*self.required_scopes, *required], hierarchy=self.scope_hierarchy)

    def forbidden(self, exc: InsufficientScope) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """The HTTP 403 answer for ``exc``: status, headers and a JSON body."""
        header = self.challenge(
            error="insufficient_scope", description=exc.description, scopes=exc.required
        )
        return error_response(403, header, "insufficient_scope", exc.description)


def error_response(
    status: int, challenge: str | None, error: str | None, description: str | None
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """An OAuth error answer (RFC 6750 §3): JSON body, never cached."""
    body: dict[str, str] = {}
    if error:
        body["error"] = error
    if description:
        body["error_description"] = description
    payload = msgspec.json.encode(body)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if challenge:
        headers.append((b"www-authenticate", challenge.encode("ascii", "replace")))
    return status, headers, payload

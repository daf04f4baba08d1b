"""Metadata documents: RFC 9728 protected-resource metadata and RFC 8414 / OIDC AS metadata.

Both are decoded with msgspec into typed structs; unknown members are ignored and a member of
the wrong type makes the whole document invalid (a half-understood security document is worse
than none).
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from mcpkit.contrib.auth._errors import DiscoveryError

__all__ = ["AuthorizationServerMetadata", "ProtectedResourceMetadata", "decode_metadata"]

T = TypeVar("T")


class ProtectedResourceMetadata(msgspec.Struct, kw_only=True, omit_defaults=True):
    """RFC 9728 §2; MCP requires ``resource`` and at least one ``authorization_servers``."""

    resource: str
    authorization_servers: list[str] = msgspec.field(default_factory=list)
    scopes_supported: list[str] | None = None
    bearer_methods_supported: list[str] | None = None
    resource_name: str | None = None
    resource_documentation: str | None = None
    jwks_uri: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


class AuthorizationServerMetadata(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The RFC 8414 / OpenID Connect Discovery members the MCP client uses."""

    issuer: str
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    registration_endpoint: str | None = None
    jwks_uri: str | None = None
    scopes_supported: list[str] | None = None
    response_types_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    token_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    client_id_metadata_document_supported: bool = False
    authorization_response_iss_parameter_supported: bool = False
    introspection_endpoint: str | None = None
    revocation_endpoint: str | None = None

    @property
    def auth_methods(self) -> list[str]:
        """Token endpoint auth methods, with the RFC 8414 default when the member is absent."""
        return self.token_endpoint_auth_methods_supported or ["client_secret_basic"]


def decode_metadata(data: Any, kind: type[T], where: str) -> T:
    """Convert a decoded JSON document into ``kind`` or raise :class:`DiscoveryError`."""
    if not isinstance(data, dict):
        raise DiscoveryError(f"{where} is not a JSON object")
    try:
        return msgspec.convert(data, type=kind)
    except msgspec.ValidationError as exc:
        raise DiscoveryError(f"{where} is invalid: {exc}") from exc

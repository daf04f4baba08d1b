"""Getting a client identity at an authorization server.

Priority (MCP "Client Registration"): pre-registered credentials, then a Client ID Metadata
Document when the server advertises ``client_id_metadata_document_supported``, then Dynamic
Client Registration (RFC 7591, with ``application_type``), else an error that says what to
configure. DCR results are stored per issuer and reused only with that issuer (SEP-2352).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from mcpkit.contrib.auth._errors import OAuthFlowError, RegistrationError
from mcpkit.contrib.auth._http import SafeHttp
from mcpkit.contrib.auth._metadata import AuthorizationServerMetadata
from mcpkit.contrib.auth._models import ClientInfo
from mcpkit.contrib.auth._urls import is_loopback_host

__all__ = ["ClientProfile", "PreRegistration", "choose_auth_method", "resolve_client"]

logger = logging.getLogger("mcpkit.contrib.auth")

SECRET_METHODS = ("client_secret_basic", "client_secret_post")


@dataclass(frozen=True, slots=True)
class PreRegistration:
    """Credentials issued out of band (a pre-registered or machine-to-machine client).

    ``issuer`` binds them to one authorization server (SEP-2352): they are never sent to
    another. ``private_key_pem`` enables ``private_key_jwt`` client authentication.
    """

    client_id: str
    client_secret: str | None = None
    issuer: str | None = None
    token_endpoint_auth_method: str | None = None
    private_key_pem: str | None = field(default=None, repr=False)
    signing_algorithm: str = "RS256"

    def __repr__(self) -> str:
        secret = None if self.client_secret is None else "<redacted>"
        key = None if self.private_key_pem is None else "<redacted>"
        return (
            f"PreRegistration(client_id={self.client_id!r}, client_secret={secret!r}, "
            f"issuer={self.issuer!r}, private_key_pem={key!r})"
        )


@dataclass(frozen=True, slots=True)
class ClientProfile:
    """What the client says about itself in DCR requests (and should publish in its CIMD)."""

    client_name: str = "mcpkit"
    client_uri: str | None = None
    application_type: Literal["native", "web"] | None = None
    """``None`` derives it from the redirect URI: loopback or custom scheme -> ``native``."""
    grant_types: Sequence[str] = ("authorization_code", "refresh_token")
    software_id: str | None = None
    software_version: str | None = None


def choose_auth_method(
    meta: AuthorizationServerMetadata, *, has_secret: bool, has_key: bool
) -> str:
    """The token endpoint auth method to use given what the server supports and what we hold."""
    supported = meta.auth_methods
    if has_key and "private_key_jwt" in supported:
        return "private_key_jwt"
    if has_secret:
        for method in SECRET_METHODS:
            if method in supported:
                return method
        return "client_secret_basic"
    return "none"


def _application_type(profile: ClientProfile, redirect_uri: str | None) -> str:
    if profile.application_type is not None:
        return profile.application_type
    if redirect_uri is None:
        return "native"
    parts = urlsplit(redirect_uri)
    if parts.scheme not in ("http", "https") or is_loopback_host(parts.hostname or ""):
        return "native"
    return "web"


def _dcr_body(
    meta: AuthorizationServerMetadata, profile: ClientProfile, redirect_uri: str | None
) -> dict[str, Any]:
    supported = meta.token_endpoint_auth_methods_supported
    if supported is None or "none" in supported:
        method = "none"
    else:
        method = next((m for m in SECRET_METHODS if m in supported), supported[0])
    body: dict[str, Any] = {
        "client_name": profile.client_name,
        "redirect_uris": [redirect_uri] if redirect_uri else [],
        "grant_types": list(profile.grant_types),
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": _application_type(profile, redirect_uri),
    }
    for key in ("client_uri", "software_id", "software_version"):
        value = getattr(profile, key)
        if value is not None:
            body[key] = value
    return body


async def _register(
    http: SafeHttp,
    meta: AuthorizationServerMetadata,
    profile: ClientProfile,
    redirect_uri: str | None,
) -> ClientInfo:
    assert meta.registration_endpoint is not None
    body = _dcr_body(meta, profile, redirect_uri)
    reply = await http.post_json(meta.registration_endpoint, body)
    try:
        data = reply.json()
    except OAuthFlowError:
        data = None
    if reply.status_code not in (200, 201) or not isinstance(data, dict):
        err = data.get("error") if isinstance(data, dict) else None
        desc = data.get("error_description") if isinstance(data, dict) else None
        raise RegistrationError(
            f"dynamic client registration at {meta.registration_endpoint} failed with HTTP "
            f"{reply.status_code}" + (f": {err}" if err else "") + (f" ({desc})" if desc else "")
        )
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise RegistrationError("the registration response has no client_id")
    secret = data.get("client_secret")
    secret = secret if isinstance(secret, str) and secret else None
    method = data.get("token_endpoint_auth_method")
    if not isinstance(method, str):
        # RFC 7591 §3.2.1: registered values are echoed; an omitted one means ours was accepted
        method = body["token_endpoint_auth_method"]
    expires = data.get("client_secret_expires_at")
    logger.debug("registered client %s at %s (auth method %s)", client_id, meta.issuer, method)
    return ClientInfo(
        client_id=client_id,
        client_secret=secret,
        token_endpoint_auth_method=method,
        redirect_uris=list(body["redirect_uris"]),
        kind="dcr",
        client_secret_expires_at=float(expires)
        if isinstance(expires, int | float) and expires
        else None,
    )


def _stored_usable(stored: ClientInfo | None, redirect_uri: str | None, now: float) -> bool:
    if stored is None or stored.kind != "dcr":
        return False
    if stored.client_secret_expires_at is not None and stored.client_secret_expires_at <= now:
        return False
    return redirect_uri is None or redirect_uri in stored.redirect_uris


async def resolve_client(
    http: SafeHttp,
    meta: AuthorizationServerMetadata,
    *,
    stored: ClientInfo | None,
    preregistered: PreRegistration | None,
    client_metadata_url: str | None,
    profile: ClientProfile,
    redirect_uri: str | None,
    now: float,
) -> ClientInfo:
    """The client identity to use with the server described by ``meta``."""
    if preregistered is not None:
        if preregistered.issuer is None or preregistered.issuer == meta.issuer:
            method = preregistered.token_endpoint_auth_method or choose_auth_method(
                meta,
                has_secret=preregistered.client_secret is not None,
                has_key=preregistered.private_key_pem is not None,
            )
            return ClientInfo(
                client_id=preregistered.client_id,
                client_secret=preregistered.client_secret,
                token_endpoint_auth_method=method,
                kind="pre-registered",
            )
        logger.warning(
            "pre-registered credentials belong to %s but the server now uses %s; "
            "not sending them there (SEP-2352)",
            preregistered.issuer,
            meta.issuer,
        )
    if client_metadata_url and meta.client_id_metadata_document_supported:
        return ClientInfo(
            client_id=client_metadata_url, token_endpoint_auth_method="none", kind="cimd"
        )
    if _stored_usable(stored, redirect_uri, now):
        assert stored is not None
        return stored
    if meta.registration_endpoint:
        return await _register(http, meta, profile, redirect_uri)
    hints = []
    if preregistered is not None:
        hints.append(f"the pre-registered client is bound to {preregistered.issuer}")
    if not meta.client_id_metadata_document_supported:
        hints.append("the server does not support Client ID Metadata Documents")
    elif not client_metadata_url:
        hints.append("no client_metadata_url is configured")
    hints.append("it offers no registration_endpoint")
    raise RegistrationError(
        f"cannot obtain a client id at {meta.issuer}: "
        + ", ".join(hints)
        + "; configure a pre-registered client_id for this authorization server"
    )

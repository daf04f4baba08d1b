"""The decisions of the authorization-code flow, as plain functions.

Scope selection, the authorization URL and the validation of the authorization response live
here so they can be read and tested without any network or asyncio.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcpkit.contrib.auth._challenge import BearerChallenge
from mcpkit.contrib.auth._errors import AuthorizationResponseError, OAuthFlowError
from mcpkit.contrib.auth._handlers import AuthorizationResponse
from mcpkit.contrib.auth._metadata import AuthorizationServerMetadata, ProtectedResourceMetadata

__all__ = [
    "OFFLINE_ACCESS",
    "authorization_url",
    "require_pkce_s256",
    "select_scopes",
    "union",
    "validate_authorization_response",
]

OFFLINE_ACCESS = "offline_access"


def union(*scope_sets: Iterable[str]) -> list[str]:
    """Ordered union without duplicates (first occurrence wins)."""
    out: dict[str, None] = {}
    for scopes in scope_sets:
        out.update(dict.fromkeys(scopes))
    return list(out)


def select_scopes(
    challenge: BearerChallenge | None,
    prm: ProtectedResourceMetadata | None,
    meta: AuthorizationServerMetadata,
    *,
    previous: Sequence[str] = (),
    configured: Sequence[str] | None = None,
    offline_access: bool = False,
) -> list[str]:
    """The scopes to request (MCP "Scope Selection Strategy").

    The challenge's ``scope`` is authoritative; without one, every ``scopes_supported`` of the
    resource; without that, nothing (the ``scope`` parameter is then omitted). Previously
    requested scopes are kept (step-up accumulates, SEP-2350). ``offline_access`` is added
    only when asked for, when something is requested anyway, and when the authorization
    server lists it (SEP-2207).
    """
    if challenge is not None and challenge.scopes:
        base: Sequence[str] = challenge.scopes
    elif configured is not None:
        base = configured
    elif prm is not None and prm.scopes_supported:
        base = prm.scopes_supported
    else:
        base = ()
    scopes = union(previous, base)
    if offline_access and scopes and OFFLINE_ACCESS in (meta.scopes_supported or ()):
        scopes = union(scopes, [OFFLINE_ACCESS])
    return scopes


def require_pkce_s256(meta: AuthorizationServerMetadata) -> None:
    """Refuse servers that do not advertise S256 PKCE (an absent list means no PKCE)."""
    methods = meta.code_challenge_methods_supported
    if not methods:
        raise OAuthFlowError(
            f"the authorization server {meta.issuer} does not advertise "
            "code_challenge_methods_supported, so PKCE cannot be relied on; refusing to proceed"
        )
    if "S256" not in methods:
        raise OAuthFlowError(
            f"the authorization server {meta.issuer} does not support the S256 PKCE method "
            f"(it lists {methods}); refusing to proceed"
        )


def authorization_url(endpoint: str, params: dict[str, str]) -> str:
    """``endpoint`` with ``params`` added to whatever query it already has."""
    parts = urlsplit(endpoint)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    query.extend(params.items())
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def validate_authorization_response(
    response: AuthorizationResponse, *, expected_issuer: str, iss_advertised: bool, state: str
) -> str:
    """Apply RFC 9207 §2.4 and the ``state`` check; return the code or raise.

    ``iss`` is compared by simple string comparison (no case folding, no trailing-slash or
    port normalization). A mismatch discards the whole response, including any ``error``
    text, which could have been forged by the other server.
    """
    if response.iss is not None:
        if response.iss != expected_issuer:
            raise AuthorizationResponseError(
                f"the authorization response names issuer {response.iss!r} but the request went "
                f"to {expected_issuer!r}; discarding it (possible mix-up attack)"
            )
    elif iss_advertised:
        raise AuthorizationResponseError(
            f"{expected_issuer} advertises authorization_response_iss_parameter_supported but "
            "its response carries no iss; discarding it"
        )
    if response.state is None or not hmac.compare_digest(response.state, state):
        raise AuthorizationResponseError(
            "the authorization response does not carry the state this client sent; discarding it"
        )
    if response.error is not None:
        detail = f" ({response.error_description})" if response.error_description else ""
        raise AuthorizationResponseError(
            f"the authorization server refused the request: {response.error}{detail}",
            error=response.error,
        )
    if not response.code:
        raise AuthorizationResponseError("the authorization response carries no code")
    return response.code

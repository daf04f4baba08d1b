"""The grants ``OAuthClient`` runs: authorization code (+PKCE), client credentials, JWT bearer.

Split from :mod:`.client` so each file stays readable; the functions take the client for its
configuration (handlers, storage, registration settings) and return the client identity used
plus the token endpoint's answer.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.contrib.auth._discovery import Discovered
from mcpkit.contrib.auth._errors import OAuthFlowError, RegistrationError, TokenRequestError
from mcpkit.contrib.auth._flow import (
    authorization_url,
    require_pkce_s256,
    validate_authorization_response,
)
from mcpkit.contrib.auth._http import SafeHttp
from mcpkit.contrib.auth._models import ClientInfo, IssuerRecord
from mcpkit.contrib.auth._pkce import new_state, new_verifier, s256_challenge
from mcpkit.contrib.auth._registration import choose_auth_method, resolve_client
from mcpkit.contrib.auth._token_endpoint import TokenEndpoint
from mcpkit.contrib.auth._urls import check_browser_url
from mcpkit.protocol import UsageError

if TYPE_CHECKING:
    from mcpkit.contrib.auth._client import OAuthClient

__all__ = [
    "AssertionContext",
    "AssertionProvider",
    "Grant",
    "authorization_code",
    "endpoint_for",
    "machine_grant",
]

Grant = Literal["authorization_code", "client_credentials", "jwt_bearer"]


@dataclass(frozen=True, slots=True)
class AssertionContext:
    """What a JWT-bearer assertion provider is told: where the assertion will be presented."""

    issuer: str
    token_endpoint: str
    resource: str
    scopes: tuple[str, ...]


AssertionProvider = Callable[[AssertionContext], Awaitable[str] | str]
"""Returns the assertion (a JWT) for the authorization server in the context."""


def endpoint_for(
    auth: OAuthClient, http: SafeHttp, found: Discovered, client: ClientInfo, now: float
) -> TokenEndpoint:
    """The token endpoint of ``found`` used as ``client`` (with its signing key, if any)."""
    pre = auth.client
    key = pre.private_key_pem if pre is not None and pre.client_id == client.client_id else None
    alg = pre.signing_algorithm if pre is not None else "RS256"
    return TokenEndpoint(
        http, found.metadata, client, private_key_pem=key, signing_algorithm=alg, now=now
    )


async def machine_grant(
    auth: OAuthClient, http: SafeHttp, found: Discovered, scopes: list[str], now: float
) -> tuple[ClientInfo, Any]:
    """Client credentials or JWT bearer: no user, no redirect, one token request."""
    meta = found.metadata
    pre = auth.client
    if pre is not None and pre.issuer is not None and pre.issuer != meta.issuer:
        raise RegistrationError(
            f"the configured credentials belong to {pre.issuer}, but the server now uses "
            f"{meta.issuer}; refusing to send them there (SEP-2352)"
        )
    if auth.grant == "client_credentials":
        if pre is None:
            raise RegistrationError("the client credentials grant needs pre-registered credentials")
        client = await resolve_client(
            http, meta, stored=None, preregistered=pre, client_metadata_url=None,
            profile=auth.profile, redirect_uri=None, now=now,
        )  # fmt: skip
        endpoint = endpoint_for(auth, http, found, client, now)
        return client, await endpoint.client_credentials(resource=found.resource, scopes=scopes)
    if auth.assertion is None:
        raise UsageError("the JWT bearer grant needs an assertion")
    if pre is None:
        client = ClientInfo(client_id="", token_endpoint_auth_method="none", kind="pre-registered")
    else:
        method = pre.token_endpoint_auth_method or choose_auth_method(
            meta, has_secret=pre.client_secret is not None, has_key=pre.private_key_pem is not None
        )
        client = ClientInfo(
            client_id=pre.client_id,
            client_secret=pre.client_secret,
            token_endpoint_auth_method=method,
            kind="pre-registered",
        )
    if isinstance(auth.assertion, str):
        assertion = auth.assertion
    else:
        context = AssertionContext(
            meta.issuer, meta.token_endpoint or "", found.resource, tuple(scopes)
        )
        produced = auth.assertion(context)
        assertion = await produced if inspect.isawaitable(produced) else produced
    endpoint = endpoint_for(auth, http, found, client, now)
    return client, await endpoint.jwt_bearer(
        assertion=assertion, resource=found.resource, scopes=scopes
    )


async def authorization_code(
    auth: OAuthClient,
    http: SafeHttp,
    found: Discovered,
    stored: ClientInfo | None,
    scopes: list[str],
    now: float,
) -> tuple[ClientInfo, Any]:
    """Authorization code with PKCE S256, ``state``, ``resource`` and RFC 9207 checks."""
    meta = found.metadata
    require_pkce_s256(meta)
    if not meta.authorization_endpoint:
        raise OAuthFlowError(
            f"the authorization server {meta.issuer} has no authorization_endpoint"
        )
    redirect, callback = auth.redirect_handler, auth.callback_handler
    if redirect is None or callback is None:
        raise UsageError("the authorization code grant needs a redirect and a callback handler")
    try:
        redirect_uri = await callback.prepare()
        client = await resolve_client(
            http, meta, stored=stored, preregistered=auth.client,
            client_metadata_url=auth.client_metadata_url, profile=auth.profile,
            redirect_uri=redirect_uri, now=now,
        )  # fmt: skip
        if client.kind == "dcr":
            record = await auth.storage.load(found.issuer) or IssuerRecord()
            record.client = client
            await auth.storage.save(found.issuer, record)
        verifier, state = new_verifier(), new_state()
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect_uri,
            "code_challenge": s256_challenge(verifier),
            "code_challenge_method": "S256",
            "state": state,
            "resource": found.resource,
        }
        if scopes:
            params["scope"] = " ".join(scopes)
        url = check_browser_url(
            authorization_url(meta.authorization_endpoint, params),
            allow_insecure_loopback=auth.url_policy.allow_insecure_loopback,
        )
        expected_issuer = found.issuer  # recorded next to the verifier (RFC 9207)
        await redirect.open(url)
        response = await callback.wait(state)
    finally:
        await callback.close()
    code = validate_authorization_response(
        response,
        expected_issuer=expected_issuer,
        iss_advertised=meta.authorization_response_iss_parameter_supported,
        state=state,
    )
    endpoint = endpoint_for(auth, http, found, client, auth.clock())
    try:
        data = await endpoint.exchange_code(
            code=code, code_verifier=verifier, redirect_uri=redirect_uri, resource=found.resource
        )
    except TokenRequestError as exc:
        if exc.error == "invalid_client" and client.kind == "dcr":
            record = await auth.storage.load(found.issuer) or IssuerRecord()
            record.client = None  # a stale registration: register again next time
            await auth.storage.save(found.issuer, record)
        raise
    return client, data

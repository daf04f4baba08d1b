"""Test-suite glue: an :class:`OAuthClient` from the suite's ``MCP_CONFORMANCE_CONTEXT``.

The suite's mock authorization servers approve without a user and redirect straight back,
so the client is headless. What each ``auth/*`` scenario passes (see ``docs/auth.md``):

* ``auth/client-credentials-jwt``: ``client_id``, ``private_key_pem``, ``signing_algorithm``
  -> client credentials grant with ``private_key_jwt``;
* ``auth/client-credentials-basic``: ``client_id``, ``client_secret`` -> client credentials;
* ``auth/pre-registration``: ``client_id``, ``client_secret``, ``issuer`` -> pre-registered;
* ``auth/wif-jwt-bearer``: ``client_id``, ``valid_jwt`` -> JWT-bearer grant with that assertion;
* ``auth/enterprise-managed-authorization``: ``client_id``/``client_secret`` (at the AS) and
  ``idp_token_endpoint``, ``idp_id_token``, ``idp_client_id`` -> ID-JAG exchange at the IdP,
  then the JWT-bearer grant;
* every other scenario: nothing; the client offers the CIMD URL the suite expects and falls
  back to Dynamic Client Registration.

The suite's authorization servers listen on loopback, so the client built here opts in to
loopback fetches (``UrlPolicy(allow_insecure_loopback=True)``) unless ``url_policy`` says
otherwise; production clients keep the default, which refuses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcpkit.contrib.auth._client import OAuthClient
from mcpkit.contrib.auth._enterprise import IdJagProvider
from mcpkit.contrib.auth._handlers import DEFAULT_HEADLESS_REDIRECT_URI, HeadlessAuthorizer
from mcpkit.contrib.auth._http import UrlPolicy
from mcpkit.contrib.auth._registration import ClientProfile, PreRegistration
from mcpkit.contrib.auth._storage import TokenStorage

__all__ = ["CONFORMANCE_CIMD_URL", "UNSUPPORTED_SCENARIOS", "client_auth_from_context"]

CONFORMANCE_CIMD_URL: Final = "https://conformance-test.local/client-metadata.json"
"""The client id URL ``auth/basic-cimd`` expects."""
UNSUPPORTED_SCENARIOS: Final = frozenset({"auth/dpop", "auth/dpop-nonce"})
"""Extension scenarios this client does not implement (DPoP, RFC 9449)."""


def _str(ctx: Mapping[str, Any], key: str) -> str | None:
    value = ctx.get(key)
    return value if isinstance(value, str) and value else None


def client_auth_from_context(
    ctx: Mapping[str, Any],
    *,
    server_url: str | None = None,
    storage: TokenStorage | None = None,
    url_policy: UrlPolicy | None = None,
) -> OAuthClient:
    """An :class:`OAuthClient` configured for the scenario described by ``ctx``."""
    name = _str(ctx, "name") or ""
    client_id = _str(ctx, "client_id")
    policy = url_policy or UrlPolicy(allow_insecure_loopback=True)
    # the headless authorizer follows the (loopback) authorization URL: same policy
    headless = HeadlessAuthorizer(DEFAULT_HEADLESS_REDIRECT_URI, url_policy=policy)
    profile = ClientProfile(client_name="mcpkit conformance client")
    common: dict[str, Any] = {
        "redirect_handler": headless,
        "callback_handler": headless,
        "profile": profile,
        "storage": storage,
        "url_policy": policy,
    }
    if name.startswith("auth/client-credentials") and client_id:
        key = _str(ctx, "private_key_pem")
        pre = PreRegistration(
            client_id=client_id,
            client_secret=_str(ctx, "client_secret"),
            private_key_pem=key,
            signing_algorithm=_str(ctx, "signing_algorithm") or "ES256",
            token_endpoint_auth_method="private_key_jwt" if key else None,
        )
        return OAuthClient(server_url, grant="client_credentials", client=pre, **common)
    if name == "auth/wif-jwt-bearer" and _str(ctx, "valid_jwt"):
        workload = PreRegistration(client_id=client_id) if client_id else None
        return OAuthClient(
            server_url,
            grant="jwt_bearer",
            client=workload,
            assertion=_str(ctx, "valid_jwt"),
            **common,
        )
    if name == "auth/enterprise-managed-authorization" and client_id:
        provider = IdJagProvider(
            idp_token_endpoint=_str(ctx, "idp_token_endpoint") or "",
            id_token=_str(ctx, "idp_id_token") or "",
            idp_client_id=_str(ctx, "idp_client_id"),
        )
        at_as = PreRegistration(client_id=client_id, client_secret=_str(ctx, "client_secret"))
        return OAuthClient(
            server_url, grant="jwt_bearer", client=at_as, assertion=provider, **common
        )
    pre_registered = None
    if client_id and _str(ctx, "client_secret"):
        pre_registered = PreRegistration(
            client_id=client_id,
            client_secret=_str(ctx, "client_secret"),
            issuer=_str(ctx, "issuer"),
        )
    return OAuthClient(
        server_url, client=pre_registered, client_metadata_url=CONFORMANCE_CIMD_URL, **common
    )

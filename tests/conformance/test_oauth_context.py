"""client_auth_from_context: one OAuthClient per conformance scenario shape."""

from __future__ import annotations

from _oauth_context import CONFORMANCE_CIMD_URL, client_auth_from_context

from mcpkit.contrib.auth import HeadlessAuthorizer


def test_default_scenarios_use_cimd_then_dcr_headlessly() -> None:
    auth = client_auth_from_context({"name": "auth/metadata-default"})
    assert auth.grant == "authorization_code"
    assert auth.client is None
    assert auth.client_metadata_url == CONFORMANCE_CIMD_URL
    assert isinstance(auth.redirect_handler, HeadlessAuthorizer)
    assert auth.callback_handler is auth.redirect_handler


def test_pre_registration_is_bound_to_the_issuer() -> None:
    ctx = {
        "name": "auth/pre-registration",
        "client_id": "pre-registered-client",
        "client_secret": "pre-registered-secret",
        "issuer": "http://localhost:1234",
    }
    auth = client_auth_from_context(ctx)
    assert auth.client is not None
    assert (auth.client.client_id, auth.client.issuer) == ("pre-registered-client", ctx["issuer"])
    assert "pre-registered-secret" not in repr(auth.client)


def test_client_credentials_variants() -> None:
    basic = client_auth_from_context(
        {"name": "auth/client-credentials-basic", "client_id": "c", "client_secret": "s"}
    )
    assert basic.grant == "client_credentials"
    assert basic.client is not None and basic.client.token_endpoint_auth_method is None
    jwt_ctx = {
        "name": "auth/client-credentials-jwt",
        "client_id": "c",
        "private_key_pem": "-----BEGIN PRIVATE KEY-----\n...",
        "signing_algorithm": "ES256",
    }
    auth = client_auth_from_context(jwt_ctx)
    assert auth.client is not None
    assert auth.client.token_endpoint_auth_method == "private_key_jwt"
    assert auth.client.signing_algorithm == "ES256"


def test_workload_identity_and_enterprise_scenarios() -> None:
    from mcpkit.contrib.auth import IdJagProvider

    wif = client_auth_from_context(
        {"name": "auth/wif-jwt-bearer", "client_id": "w", "valid_jwt": "a.b.c"}
    )
    assert wif.grant == "jwt_bearer" and wif.assertion == "a.b.c"
    ema = client_auth_from_context(
        {
            "name": "auth/enterprise-managed-authorization",
            "client_id": "c",
            "client_secret": "s",
            "idp_client_id": "idp-c",
            "idp_id_token": "ID.TOKEN.X",
            "idp_token_endpoint": "http://127.0.0.1:1/token",
        }
    )
    assert ema.grant == "jwt_bearer" and isinstance(ema.assertion, IdJagProvider)
    assert "ID.TOKEN.X" not in repr(ema.assertion)

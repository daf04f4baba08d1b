"""Token endpoint requests (OAuth 2.1 §3.2) with client authentication.

Supported client authentication: ``client_secret_basic`` (form-encoded id and secret in HTTP
Basic, RFC 6749 §2.3.1), ``client_secret_post``, ``private_key_jwt`` (RFC 7523 assertion
signed with the configured key, audience = the issuer) and ``none`` (public clients send
``client_id`` only). Grants: authorization code (+PKCE verifier), refresh token, client
credentials. Every grant carries ``resource`` (RFC 8707).
"""

from __future__ import annotations

import base64
import logging
import secrets
from typing import Any, Final
from urllib.parse import quote_plus

from mcpkit.contrib.auth._errors import OAuthFlowError, TokenRequestError
from mcpkit.contrib.auth._http import SafeHttp
from mcpkit.contrib.auth._metadata import AuthorizationServerMetadata
from mcpkit.contrib.auth._models import ClientInfo

__all__ = [
    "ASSERTION_LIFETIME",
    "JWT_BEARER_ASSERTION",
    "JWT_BEARER_GRANT",
    "TokenEndpoint",
    "make_client_assertion",
]

logger = logging.getLogger("mcpkit.contrib.auth")

ASSERTION_LIFETIME: Final = 300
"""Seconds a ``private_key_jwt`` client assertion stays valid."""
JWT_BEARER_ASSERTION: Final = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
JWT_BEARER_GRANT: Final = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def make_client_assertion(
    *, client_id: str, audience: str, private_key_pem: str, algorithm: str, now: float
) -> str:
    """A signed RFC 7523 client assertion (``iss`` = ``sub`` = client id, unique ``jti``)."""
    import jwt  # lazy: only private_key_jwt clients pay for PyJWT/cryptography

    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": int(now),
        "exp": int(now) + ASSERTION_LIFETIME,
        "jti": secrets.token_urlsafe(16),
    }
    try:
        token: str = jwt.encode(claims, private_key_pem, algorithm=algorithm)
    except (ValueError, TypeError, jwt.PyJWTError) as exc:
        raise OAuthFlowError(
            f"could not sign the client assertion with {algorithm}: {exc}"
        ) from exc
    return token


class TokenEndpoint:
    """Sends grants to one authorization server's token endpoint as one client."""

    def __init__(
        self,
        http: SafeHttp,
        meta: AuthorizationServerMetadata,
        client: ClientInfo,
        *,
        private_key_pem: str | None = None,
        signing_algorithm: str = "RS256",
        now: float,
    ) -> None:
        if not meta.token_endpoint:
            raise OAuthFlowError(f"the authorization server {meta.issuer} has no token_endpoint")
        self.http = http
        self.meta = meta
        self.client = client
        self.private_key_pem = private_key_pem
        self.signing_algorithm = signing_algorithm
        self.now = now

    def _authenticate(self, form: dict[str, str]) -> dict[str, str]:
        client = self.client
        method = client.token_endpoint_auth_method or "none"
        if method in ("client_secret_basic", "client_secret_post") and not client.client_secret:
            method = "none"
        headers: dict[str, str] = {}
        if method == "client_secret_basic":
            assert client.client_secret is not None
            raw = f"{quote_plus(client.client_id)}:{quote_plus(client.client_secret)}"
            headers["authorization"] = "Basic " + base64.b64encode(raw.encode()).decode("ascii")
        elif method == "client_secret_post":
            assert client.client_secret is not None
            form["client_id"] = client.client_id
            form["client_secret"] = client.client_secret
        elif method == "private_key_jwt":
            if not self.private_key_pem:
                raise OAuthFlowError(
                    "private_key_jwt needs a private key (PreRegistration.private_key_pem)"
                )
            form["client_id"] = client.client_id
            form["client_assertion_type"] = JWT_BEARER_ASSERTION
            form["client_assertion"] = make_client_assertion(
                client_id=client.client_id,
                audience=self.meta.issuer,
                private_key_pem=self.private_key_pem,
                algorithm=self.signing_algorithm,
                now=self.now,
            )
        elif method == "none":
            if client.client_id:  # a JWT-bearer grant may carry no client id at all
                form["client_id"] = client.client_id
        else:
            raise OAuthFlowError(f"unsupported token endpoint auth method {method!r}")
        return headers

    async def request(self, form: dict[str, str]) -> Any:
        """POST a grant; the decoded success body, or :class:`TokenRequestError`."""
        form = dict(form)
        headers = self._authenticate(form)
        assert self.meta.token_endpoint is not None
        reply = await self.http.post_form(self.meta.token_endpoint, form, headers)
        grant = form.get("grant_type", "?")
        try:
            data = reply.json()
        except OAuthFlowError:
            data = None
        if reply.status_code == 200 and isinstance(data, dict):
            logger.debug("token endpoint granted %s for client %s", grant, self.client.client_id)
            return data
        error = data.get("error") if isinstance(data, dict) else None
        desc = data.get("error_description") if isinstance(data, dict) else None
        error = error if isinstance(error, str) else None
        desc = desc if isinstance(desc, str) else None
        raise TokenRequestError(
            f"the token endpoint refused the {grant} grant (HTTP {reply.status_code}"
            + (f", {error}" if error else "")
            + (f": {desc}" if desc else "")
            + ")",
            error=error,
            description=desc,
            status_code=reply.status_code,
        )

    async def exchange_code(
        self, *, code: str, code_verifier: str, redirect_uri: str, resource: str
    ) -> Any:
        return await self.request(
            {
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": code_verifier,
                "redirect_uri": redirect_uri,
                "resource": resource,
            }
        )

    async def refresh(self, *, refresh_token: str, resource: str) -> Any:
        return await self.request(
            {"grant_type": "refresh_token", "refresh_token": refresh_token, "resource": resource}
        )

    async def jwt_bearer(self, *, assertion: str, resource: str, scopes: list[str]) -> Any:
        """RFC 7523 §2.1 authorization grant (workload identity, enterprise ID-JAG)."""
        form = {"grant_type": JWT_BEARER_GRANT, "assertion": assertion, "resource": resource}
        if scopes:
            form["scope"] = " ".join(scopes)
        return await self.request(form)

    async def client_credentials(self, *, resource: str, scopes: list[str]) -> Any:
        form = {"grant_type": "client_credentials", "resource": resource}
        if scopes:
            form["scope"] = " ".join(scopes)
        return await self.request(form)

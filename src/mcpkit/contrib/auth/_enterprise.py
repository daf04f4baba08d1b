"""Enterprise-managed authorization (SEP-990): an ID-JAG as the JWT-bearer assertion.

The user signs in to the enterprise identity provider once; for each MCP server the client
trades the IdP's ID token for an *Identity Assertion JWT Authorization Grant* (ID-JAG, RFC 8693
token exchange at the IdP, audience = the MCP server's authorization server, resource = the
MCP server) and presents it to that authorization server with the JWT-bearer grant::

    provider = IdJagProvider(idp_token_endpoint=..., id_token=..., idp_client_id=...)
    auth = OAuthClient(grant="jwt_bearer", client=PreRegistration(...), assertion=provider)
"""

from __future__ import annotations

from typing import Final

from mcpkit.contrib.auth._errors import TokenRequestError
from mcpkit.contrib.auth._grants import AssertionContext
from mcpkit.contrib.auth._http import SafeHttp, UrlPolicy
from mcpkit.contrib.auth._metadata import AuthorizationServerMetadata
from mcpkit.contrib.auth._models import ClientInfo
from mcpkit.contrib.auth._token_endpoint import TokenEndpoint

__all__ = ["ID_JAG_TOKEN_TYPE", "IdJagProvider"]

TOKEN_EXCHANGE_GRANT: Final = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE: Final = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TOKEN_TYPE: Final = "urn:ietf:params:oauth:token-type:id-jag"


class IdJagProvider:
    """An assertion provider that exchanges an IdP ID token for an ID-JAG per MCP server."""

    def __init__(
        self,
        *,
        idp_token_endpoint: str,
        id_token: str,
        idp_client_id: str | None = None,
        idp_client_secret: str | None = None,
        url_policy: UrlPolicy | None = None,
    ) -> None:
        self.idp_token_endpoint = idp_token_endpoint
        self.id_token = id_token
        self.url_policy = url_policy or UrlPolicy()
        method = "client_secret_basic" if idp_client_secret else "none"
        self.idp_client = ClientInfo(
            client_id=idp_client_id or "",
            client_secret=idp_client_secret,
            token_endpoint_auth_method=method,
            kind="pre-registered",
        )

    def __repr__(self) -> str:
        return f"IdJagProvider(idp_token_endpoint={self.idp_token_endpoint!r}, id_token=<redacted>)"

    async def __call__(self, context: AssertionContext) -> str:
        form = {
            "grant_type": TOKEN_EXCHANGE_GRANT,
            "subject_token": self.id_token,
            "subject_token_type": ID_TOKEN_TYPE,
            "requested_token_type": ID_JAG_TOKEN_TYPE,
            "audience": context.issuer,
            "resource": context.resource,
        }
        if context.scopes:
            form["scope"] = " ".join(context.scopes)
        idp = AuthorizationServerMetadata(issuer="", token_endpoint=self.idp_token_endpoint)
        async with SafeHttp(self.url_policy) as http:
            data = await TokenEndpoint(http, idp, self.idp_client, now=0.0).request(form)
        token = data.get("access_token")
        issued = data.get("issued_token_type", ID_JAG_TOKEN_TYPE)
        if not isinstance(token, str) or not token or issued != ID_JAG_TOKEN_TYPE:
            raise TokenRequestError("the identity provider did not return an ID-JAG")
        return token

"""What the client keeps: tokens and client registrations, grouped per authorization server.

Each struct redacts its secrets in ``repr`` so a stray ``logger.debug("%r", tokens)`` or a
traceback never prints a token.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from mcpkit.contrib.auth._errors import TokenRequestError

__all__ = ["ClientInfo", "IssuerRecord", "RegistrationKind", "TokenSet"]

RegistrationKind = Literal["pre-registered", "cimd", "dcr", "fallback"]


def _mask(value: str | None) -> str:
    return "None" if value is None else "'<redacted>'"


class TokenSet(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An access token (and maybe a refresh token) for one resource at one issuer."""

    access_token: str
    token_type: str = "Bearer"
    expires_at: float | None = None
    refresh_token: str | None = None
    scopes: list[str] = msgspec.field(default_factory=list)
    """Granted scopes: the response's ``scope``, else what was requested (RFC 6749 §5.1)."""

    def __repr__(self) -> str:
        return (
            f"TokenSet(access_token={_mask(self.access_token)}, token_type={self.token_type!r}, "
            f"expires_at={self.expires_at!r}, refresh_token={_mask(self.refresh_token)}, "
            f"scopes={self.scopes!r})"
        )

    def expires_within(self, seconds: float, now: float) -> bool:
        return self.expires_at is not None and self.expires_at - now <= seconds

    @classmethod
    def from_response(
        cls, data: Any, *, now: float, requested: list[str], previous: TokenSet | None = None
    ) -> TokenSet:
        """Validate a token endpoint success response (RFC 6749 §5.1)."""
        if not isinstance(data, dict):
            raise TokenRequestError(
                "the token endpoint answered with something other than a JSON object"
            )
        token = data.get("access_token")
        if not isinstance(token, str) or not token:
            raise TokenRequestError("the token response has no access_token")
        token_type = data.get("token_type", "Bearer")
        if not isinstance(token_type, str) or token_type.lower() != "bearer":
            raise TokenRequestError(
                f"the token endpoint issued a {token_type!r} token; only Bearer is supported"
            )
        expires_in = data.get("expires_in")
        if isinstance(expires_in, str) and expires_in.isdigit():
            expires_in = int(expires_in)
        if expires_in is not None and (not isinstance(expires_in, int | float) or expires_in < 0):
            raise TokenRequestError("the token response has an invalid expires_in")
        refresh = data.get("refresh_token")
        if refresh is not None and not isinstance(refresh, str):
            raise TokenRequestError("the token response has an invalid refresh_token")
        if refresh is None and previous is not None:
            refresh = previous.refresh_token  # no rotation: the old refresh token stays valid
        scope = data.get("scope")
        scopes = scope.split() if isinstance(scope, str) else list(requested)
        return cls(
            access_token=token,
            token_type="Bearer",
            expires_at=None if expires_in is None else now + float(expires_in),
            refresh_token=refresh or None,
            scopes=scopes,
        )


class ClientInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A client identity at one authorization server."""

    client_id: str
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    redirect_uris: list[str] = msgspec.field(default_factory=list)
    kind: RegistrationKind = "dcr"
    client_secret_expires_at: float | None = None

    def __repr__(self) -> str:
        return (
            f"ClientInfo(client_id={self.client_id!r}, client_secret={_mask(self.client_secret)}, "
            f"token_endpoint_auth_method={self.token_endpoint_auth_method!r}, kind={self.kind!r})"
        )


class IssuerRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Everything stored for one issuer (SEP-2352: never reused with another issuer)."""

    client: ClientInfo | None = None
    tokens: dict[str, TokenSet] = msgspec.field(default_factory=dict)
    """Tokens by canonical resource URI: one AS can serve several MCP servers."""

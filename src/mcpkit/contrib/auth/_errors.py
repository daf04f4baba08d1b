"""Errors raised by ``mcpkit.contrib.auth``.

Two families: :class:`OAuthFlowError` (the client could not obtain or use a token; the message
says which step failed and what to change) and the resource-server errors :class:`InvalidToken`
and :class:`InsufficientScope` (what a verifier or a scope check raises; the middleware turns
them into 401 and 403 responses). None of them ever carries a token or a secret.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcpkit.protocol import MCPError

__all__ = [
    "AuthError",
    "AuthorizationResponseError",
    "DiscoveryError",
    "InsecureURLError",
    "InsufficientScope",
    "InvalidToken",
    "OAuthFlowError",
    "RegistrationError",
    "TokenRequestError",
]


class AuthError(MCPError):
    """Base class of every error raised by ``mcpkit.contrib.auth``."""


class OAuthFlowError(AuthError):
    """The client side could not complete an OAuth step."""


class InsecureURLError(OAuthFlowError):
    """A URL was refused by the SSRF / scheme policy before anything was fetched or opened."""


class DiscoveryError(OAuthFlowError):
    """Protected-resource or authorization-server metadata was missing, invalid or untrusted."""


class RegistrationError(OAuthFlowError):
    """No usable client identity: no pre-registration, no CIMD support, DCR failed or absent."""


class AuthorizationResponseError(OAuthFlowError):
    """The authorization response was rejected (``iss``/``state`` mismatch) or was an error.

    ``error`` is the OAuth error code when the authorization server reported one *and* the
    response passed the issuer check; after a failed issuer check the server's text is never
    surfaced (RFC 9207 §2.4).
    """

    def __init__(self, message: str, *, error: str | None = None) -> None:
        super().__init__(message)
        self.error = error


class TokenRequestError(OAuthFlowError):
    """The token endpoint refused a grant (``error`` is the OAuth error code, if any)."""

    def __init__(
        self,
        message: str,
        *,
        error: str | None = None,
        description: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.error = error
        self.description = description
        self.status_code = status_code


class InvalidToken(AuthError):
    """A bearer token failed verification; ``reason`` is safe to show (never quotes the token)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InsufficientScope(AuthError):
    """The verified token lacks scopes an operation needs (answered with HTTP 403)."""

    def __init__(self, required: Iterable[str], description: str | None = None) -> None:
        self.required: tuple[str, ...] = tuple(dict.fromkeys(required))
        self.description = description or (
            "this operation requires the scope(s): " + " ".join(self.required)
        )
        super().__init__(self.description)

"""MCP authorization (OAuth 2.1) for both sides, behind the ``mcpkit[auth]`` extra.

Client: :class:`OAuthClient` is an ``httpx.Auth`` for the Streamable HTTP client; it
discovers, registers, authorizes (PKCE, ``resource``, RFC 9207 ``iss``), refreshes and steps
up scopes. Server: :class:`ProtectedResource` + :class:`RequireBearer` make an ASGI app an
OAuth resource server, with :class:`JWTVerifier` or :class:`IntrospectionVerifier`.

Names are imported lazily, so ``import mcpkit.contrib.auth`` costs nothing until one is used.
See ``docs/auth.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.contrib.auth._http import UrlPolicy, check_url
    from mcpkit.contrib.auth.browser import BrowserAuthorizer
    from mcpkit.contrib.auth.challenge import (
        BearerChallenge,
        format_bearer_challenge,
        parse_bearer_challenge,
    )
    from mcpkit.contrib.auth.client import OAuthClient
    from mcpkit.contrib.auth.enterprise import IdJagProvider
    from mcpkit.contrib.auth.errors import (
        AuthError,
        AuthorizationResponseError,
        DiscoveryError,
        InsecureURLError,
        InsufficientScope,
        InvalidToken,
        OAuthFlowError,
        RegistrationError,
        TokenRequestError,
    )
    from mcpkit.contrib.auth.grants import AssertionContext, AssertionProvider
    from mcpkit.contrib.auth.handlers import (
        AuthorizationResponse,
        CallbackHandler,
        HeadlessAuthorizer,
        RedirectHandler,
    )
    from mcpkit.contrib.auth.metadata import AuthorizationServerMetadata, ProtectedResourceMetadata
    from mcpkit.contrib.auth.middleware import AUTH_SCOPE_KEY, RequireBearer, access_token_of
    from mcpkit.contrib.auth.models import ClientInfo, IssuerRecord, TokenSet
    from mcpkit.contrib.auth.registration import ClientProfile, PreRegistration
    from mcpkit.contrib.auth.resource import ProtectedResource, check_scopes
    from mcpkit.contrib.auth.storage import FileTokenStorage, MemoryTokenStorage, TokenStorage
    from mcpkit.contrib.auth.verifier import (
        AccessToken,
        IntrospectionVerifier,
        JWTVerifier,
        TokenVerifier,
    )

__all__ = [
    "AUTH_SCOPE_KEY",
    "AccessToken",
    "AssertionContext",
    "AssertionProvider",
    "AuthError",
    "AuthorizationResponse",
    "AuthorizationResponseError",
    "AuthorizationServerMetadata",
    "BearerChallenge",
    "BrowserAuthorizer",
    "CallbackHandler",
    "ClientInfo",
    "ClientProfile",
    "DiscoveryError",
    "FileTokenStorage",
    "HeadlessAuthorizer",
    "IdJagProvider",
    "InsecureURLError",
    "InsufficientScope",
    "IntrospectionVerifier",
    "InvalidToken",
    "IssuerRecord",
    "JWTVerifier",
    "MemoryTokenStorage",
    "OAuthClient",
    "OAuthFlowError",
    "PreRegistration",
    "ProtectedResource",
    "ProtectedResourceMetadata",
    "RedirectHandler",
    "RegistrationError",
    "RequireBearer",
    "TokenRequestError",
    "TokenSet",
    "TokenStorage",
    "TokenVerifier",
    "UrlPolicy",
    "access_token_of",
    "check_scopes",
    "check_url",
    "format_bearer_challenge",
    "parse_bearer_challenge",
]

_WHERE: dict[str, str] = {
    "UrlPolicy": "_http",
    "check_url": "_http",
    "BrowserAuthorizer": "browser",
    "BearerChallenge": "challenge",
    "format_bearer_challenge": "challenge",
    "parse_bearer_challenge": "challenge",
    "OAuthClient": "client",
    "AuthError": "errors",
    "AuthorizationResponseError": "errors",
    "DiscoveryError": "errors",
    "InsecureURLError": "errors",
    "InsufficientScope": "errors",
    "InvalidToken": "errors",
    "OAuthFlowError": "errors",
    "RegistrationError": "errors",
    "TokenRequestError": "errors",
    "AssertionContext": "grants",
    "AssertionProvider": "grants",
    "IdJagProvider": "enterprise",
    "AuthorizationResponse": "handlers",
    "CallbackHandler": "handlers",
    "HeadlessAuthorizer": "handlers",
    "RedirectHandler": "handlers",
    "AuthorizationServerMetadata": "metadata",
    "ProtectedResourceMetadata": "metadata",
    "AUTH_SCOPE_KEY": "middleware",
    "RequireBearer": "middleware",
    "access_token_of": "middleware",
    "ClientInfo": "models",
    "IssuerRecord": "models",
    "TokenSet": "models",
    "ClientProfile": "registration",
    "PreRegistration": "registration",
    "ProtectedResource": "resource",
    "check_scopes": "resource",
    "FileTokenStorage": "storage",
    "MemoryTokenStorage": "storage",
    "TokenStorage": "storage",
    "AccessToken": "verifier",
    "IntrospectionVerifier": "verifier",
    "JWTVerifier": "verifier",
    "TokenVerifier": "verifier",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

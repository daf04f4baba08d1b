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
    from mcpkit.contrib.auth._browser import BrowserAuthorizer
    from mcpkit.contrib.auth._challenge import (
        BearerChallenge,
        format_bearer_challenge,
        parse_bearer_challenge,
    )
    from mcpkit.contrib.auth._client import OAuthClient
    from mcpkit.contrib.auth._enterprise import IdJagProvider
    from mcpkit.contrib.auth._errors import (
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
    from mcpkit.contrib.auth._grants import AssertionContext, AssertionProvider
    from mcpkit.contrib.auth._handlers import (
        AuthorizationResponse,
        CallbackHandler,
        HeadlessAuthorizer,
        RedirectHandler,
    )
    from mcpkit.contrib.auth._http import UrlPolicy, check_url
    from mcpkit.contrib.auth._metadata import AuthorizationServerMetadata, ProtectedResourceMetadata
    from mcpkit.contrib.auth._middleware import AUTH_SCOPE_KEY, RequireBearer, access_token_of
    from mcpkit.contrib.auth._models import ClientInfo, IssuerRecord, TokenSet
    from mcpkit.contrib.auth._registration import ClientProfile, PreRegistration
    from mcpkit.contrib.auth._resource import ProtectedResource, check_scopes
    from mcpkit.contrib.auth._storage import FileTokenStorage, MemoryTokenStorage, TokenStorage
    from mcpkit.contrib.auth._verifier import (
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
    "BrowserAuthorizer": "_browser",
    "BearerChallenge": "_challenge",
    "format_bearer_challenge": "_challenge",
    "parse_bearer_challenge": "_challenge",
    "OAuthClient": "_client",
    "AuthError": "_errors",
    "AuthorizationResponseError": "_errors",
    "DiscoveryError": "_errors",
    "InsecureURLError": "_errors",
    "InsufficientScope": "_errors",
    "InvalidToken": "_errors",
    "OAuthFlowError": "_errors",
    "RegistrationError": "_errors",
    "TokenRequestError": "_errors",
    "AssertionContext": "_grants",
    "AssertionProvider": "_grants",
    "IdJagProvider": "_enterprise",
    "AuthorizationResponse": "_handlers",
    "CallbackHandler": "_handlers",
    "HeadlessAuthorizer": "_handlers",
    "RedirectHandler": "_handlers",
    "AuthorizationServerMetadata": "_metadata",
    "ProtectedResourceMetadata": "_metadata",
    "AUTH_SCOPE_KEY": "_middleware",
    "RequireBearer": "_middleware",
    "access_token_of": "_middleware",
    "ClientInfo": "_models",
    "IssuerRecord": "_models",
    "TokenSet": "_models",
    "ClientProfile": "_registration",
    "PreRegistration": "_registration",
    "ProtectedResource": "_resource",
    "check_scopes": "_resource",
    "FileTokenStorage": "_storage",
    "MemoryTokenStorage": "_storage",
    "TokenStorage": "_storage",
    "AccessToken": "_verifier",
    "IntrospectionVerifier": "_verifier",
    "JWTVerifier": "_verifier",
    "TokenVerifier": "_verifier",
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

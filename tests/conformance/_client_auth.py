"""The target for ``auth/*`` scenarios: the server URL with an :class:`OAuthClient` attached.

``Client(url)`` resolves a bare URL to a transport without credentials; the OAuth client has to
ride in the Streamable HTTP transport's ``httpx`` client, so ``auth/*`` scenarios connect
through an :class:`~mcpkit.transports.http._client.transport.HttpClientConnector` with ``auth=``.
The
OAuth client itself comes from ``client_auth_from_context``: the suite's context
(pre-registered credentials, client-credentials keys) decides how it registers and which grant
it uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from _oauth_context import UNSUPPORTED_SCENARIOS, client_auth_from_context

from mcpkit.transports.http._client.transport import HttpClientConnector

__all__ = ["authorized_target", "unsupported_reason"]


def unsupported_reason(scenario: str) -> str | None:
    """Why an ``auth/*`` extension scenario cannot run, or ``None`` if it can."""
    if scenario in UNSUPPORTED_SCENARIOS:
        return f"{scenario} is an extension mcpkit.contrib.auth does not implement"
    return None


def authorized_target(url: str, scenario: str, context: Mapping[str, Any]) -> HttpClientConnector:
    """The ``Client`` target for ``url`` with the OAuth client this scenario calls for."""
    # The suite adds "name" only to scenarios that have a context; the grant depends on it.
    auth = client_auth_from_context({"name": scenario, **context}, server_url=url)
    return HttpClientConnector(url, auth=auth)

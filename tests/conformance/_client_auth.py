"""The target for ``auth/*`` scenarios: the server URL with an :class:`OAuthClient` attached.

``Client(url)`` resolves a URL to a plain :class:`~mcpkit.client.UrlConnector`; the OAuth
client has to ride in the Streamable HTTP transport's ``httpx`` client instead, so this is a
connector (the ``HttpConnector`` protocol) that opens the transport with ``auth=``. The
OAuth client itself comes from ``client_auth_from_context``: the suite's context (pre-registered
credentials, client-credentials keys) decides how it registers and which grant it uses.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from mcpkit.client import ExchangeTransport
from mcpkit.contrib.auth import OAuthClient
from mcpkit.contrib.auth.conformance import UNSUPPORTED_SCENARIOS, client_auth_from_context

__all__ = ["AuthorizedUrl", "unsupported_reason"]


def unsupported_reason(scenario: str) -> str | None:
    """Why an ``auth/*`` extension scenario cannot run, or ``None`` if it can."""
    if scenario in UNSUPPORTED_SCENARIOS:
        return f"{scenario} is an extension mcpkit.contrib.auth does not implement"
    return None


class AuthorizedUrl:
    """An ``HttpConnector``: the Streamable HTTP transport to ``url``, authorized by OAuth."""

    def __init__(self, url: str, scenario: str, context: Mapping[str, Any]) -> None:
        self.url = url
        # The suite adds "name" only to scenarios that have a context; the grant depends on it.
        self.auth: OAuthClient = client_auth_from_context(
            {"name": scenario, **context}, server_url=url
        )

    def describe(self) -> str:
        return f"{self.url} (OAuth)"

    @contextlib.asynccontextmanager
    async def connect_http(self) -> AsyncIterator[ExchangeTransport]:
        from mcpkit.transports.http import connect_http_client  # type: ignore[attr-defined]

        async with connect_http_client(self.url, auth=self.auth) as transport:
            yield transport

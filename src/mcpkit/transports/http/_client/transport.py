"""HTTP client transport (owned by the client-transport engineer; the server side lives in
asgi.py and friends).

The Streamable HTTP client, both eras, as the :class:`~mcpkit.client.Client` consumes it (the
``ExchangeTransport`` protocol of :mod:`mcpkit.client._connectors`)::

    async with connect_http_client("https://example.com/mcp", auth=oauth) as transport:
        answer = await transport.exchange(request, protocol_version=..., on_notification=...)
        async with transport.open_legacy_stream() as stream: ...   # a legacy session

``Client("https://...")`` does this for you (``UrlConnector`` calls :func:`connect_http_client`);
to give the client credentials or other options, pass an :class:`HttpClientConnector` as the
target: ``Client(HttpClientConnector(url, auth=OAuthClient(...)))``.

One ``httpx.AsyncClient`` per transport: a pooled connection per concurrent request, custom
headers on every request, and ``auth`` — any ``httpx.Auth``, such as
:class:`mcpkit.contrib.auth.OAuthClient` — applied to every request of both eras. Timeouts:
connecting is bounded (a dead host fails fast); reading is not, because a tool call or a listen
stream may legitimately stay quiet for long — per-request deadlines are the client's
(``Client(timeout=...)``), and they cancel the HTTP work.

* 2026-07-28 requests: :mod:`~mcpkit.transports.http._client.modern`.
* Legacy sessions, resumption, session expiry, the 2024-11-05 fallback:
  :mod:`~mcpkit.transports.http._client.legacy` and
  :mod:`~mcpkit.transports.http._client.legacy_sse`.

Era detection needs nothing extra here: the client probes with ``server/discover`` through
:meth:`HttpClientTransport.exchange` (a 400 with a modern JSON-RPC error comes back as that
error, so the probe sees a modern server; a rejection without one raises
``RemoteProtocolError``, which the probe reads as "legacy") and then opens
:meth:`HttpClientTransport.open_legacy_stream`, which itself falls back to HTTP+SSE.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from mcpkit._version import __version__
from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http._client.legacy import (
    SESSION_EXPIRED_NOTIFICATION,
    LegacySessionStream,
    SessionExpired,
    SessionExpiredCallback,
)
from mcpkit.transports.http._client.modern import ModernExchanger, NotificationSink
from mcpkit.transports.http._client.options import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_POOL_TIMEOUT,
    DEFAULT_WRITE_TIMEOUT,
    MAX_CONNECTIONS,
    MAX_KEEPALIVE_CONNECTIONS,
    HttpClientOptions,
)
from mcpkit.transports.http._client.scope import WorkScope
from mcpkit.types._jsonrpc import ErrorResponse, Request, Response

__all__ = [
    "DEFAULT_TIMEOUT",
    "SESSION_EXPIRED_NOTIFICATION",
    "USER_AGENT",
    "HttpClientConnector",
    "HttpClientOptions",
    "HttpClientTransport",
    "LegacySessionStream",
    "SessionExpired",
    "SessionExpiredCallback",
    "connect_http_client",
]

USER_AGENT = f"mcpkit/{__version__} httpx/{httpx.__version__}"
DEFAULT_TIMEOUT = httpx.Timeout(
    connect=DEFAULT_CONNECT_TIMEOUT,
    read=None,
    write=DEFAULT_WRITE_TIMEOUT,
    pool=DEFAULT_POOL_TIMEOUT,
)
"""Connect, write and pool waits bounded; reads unbounded (see the module docstring)."""


def _check_url(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise UsageError(f"{url!r} is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(f"{url!r} is not an http:// or https:// URL")
    return str(parsed)


class HttpClientTransport:
    """The ``ExchangeTransport`` over one ``httpx.AsyncClient``. Get one from
    :func:`connect_http_client`; it is usable until that context exits."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        *,
        options: HttpClientOptions | None = None,
        on_session_expired: SessionExpiredCallback | None = None,
    ) -> None:
        self.url = _check_url(url)
        self.http = http
        """The underlying httpx client (pool, headers, auth)."""
        self.options = options or HttpClientOptions()
        self._on_session_expired = on_session_expired
        self._scope = WorkScope(f"HTTP client for {self.url}")
        self._modern = ModernExchanger(http, self.url, self._scope, self.options)
        self._streams: set[LegacySessionStream] = set()

    async def exchange(
        self,
        request: Request,
        *,
        protocol_version: str,
        on_notification: NotificationSink,
        tool: Mapping[str, Any] | None = None,
    ) -> Response | ErrorResponse:
        """POST one 2026 request; see :mod:`~mcpkit.transports.http._client.modern`."""
        return await self._modern.exchange(
            request, protocol_version=protocol_version, on_notification=on_notification, tool=tool
        )

    @contextlib.asynccontextmanager
    async def open_legacy_stream(self) -> AsyncIterator[LegacySessionStream]:
        """A legacy session (Streamable HTTP, or 2024-11-05 HTTP+SSE if the server is that old)
        as a message stream; the session is DELETEd when the context exits."""
        if self._scope.closed:
            raise self._scope.closed_error()
        stream = LegacySessionStream(
            self.http, self.url, self.options, on_session_expired=self._on_session_expired
        )
        self._streams.add(stream)
        try:
            yield stream
        finally:
            self._streams.discard(stream)
            await stream.aclose()

    async def aclose(self) -> None:
        """Stop every exchange in flight (their callers get ``ConnectionClosed``) and close
        every legacy session this transport opened."""
        await self._scope.aclose()
        for stream in list(self._streams):
            await stream.aclose()

    def __repr__(self) -> str:
        return f"<HttpClientTransport {self.url}>"


@contextlib.asynccontextmanager
async def connect_http_client(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    auth: httpx.Auth | None = None,
    timeout: httpx.Timeout | None = None,
    options: HttpClientOptions | None = None,
    on_session_expired: SessionExpiredCallback | None = None,
    http_client: httpx.AsyncClient | None = None,
    follow_redirects: bool = True,
    verify: Any = True,
) -> AsyncIterator[HttpClientTransport]:
    """Open the HTTP client transport to the MCP endpoint ``url``.

    ``headers`` go on every request (API keys, tenant ids); ``auth`` is any ``httpx.Auth``
    (for OAuth, :class:`mcpkit.contrib.auth.OAuthClient`); ``timeout`` replaces
    :data:`DEFAULT_TIMEOUT`; ``verify`` is httpx's TLS setting (a path, an ``ssl.SSLContext``
    or ``False``). ``http_client`` uses an httpx client you configured yourself (proxies, mTLS,
    a mock transport): it is not closed here, and ``headers``/``auth``/``timeout``/``verify``
    must then be set on it instead. ``on_session_expired`` is told when a legacy session expired
    and was replaced.
    """
    checked = _check_url(url)
    if http_client is not None:
        if headers or auth is not None or timeout is not None or verify is not True:
            raise UsageError(
                "pass headers, auth, timeout and verify to your own httpx.AsyncClient, not "
                "alongside http_client="
            )
        transport = HttpClientTransport(
            http_client, checked, options=options, on_session_expired=on_session_expired
        )
        try:
            yield transport
        finally:
            await transport.aclose()
        return
    base_headers = {"User-Agent": USER_AGENT, **dict(headers or {})}
    async with httpx.AsyncClient(
        headers=base_headers,
        auth=auth,
        timeout=timeout or DEFAULT_TIMEOUT,
        limits=httpx.Limits(
            max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_KEEPALIVE_CONNECTIONS
        ),
        follow_redirects=follow_redirects,
        verify=verify,
    ) as http:
        transport = HttpClientTransport(
            http, checked, options=options, on_session_expired=on_session_expired
        )
        try:
            yield transport
        finally:
            await transport.aclose()


class HttpClientConnector:
    """A ``Client`` target for a Streamable HTTP server with options a bare URL cannot carry,
    for example ``Client(HttpClientConnector(url, auth=OAuthClient(...), headers={...}))``."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth: httpx.Auth | None = None,
        timeout: httpx.Timeout | None = None,
        options: HttpClientOptions | None = None,
        on_session_expired: SessionExpiredCallback | None = None,
        verify: Any = True,
    ) -> None:
        self.url = _check_url(url)
        self.headers = dict(headers or {})
        self.auth = auth
        self.timeout = timeout
        self.options = options
        self.on_session_expired = on_session_expired
        self.verify = verify

    def describe(self) -> str:
        return self.url

    @contextlib.asynccontextmanager
    async def connect_http(self) -> AsyncIterator[HttpClientTransport]:
        async with connect_http_client(
            self.url,
            headers=self.headers,
            auth=self.auth,
            timeout=self.timeout,
            options=self.options,
            on_session_expired=self.on_session_expired,
            verify=self.verify,
        ) as transport:
            yield transport

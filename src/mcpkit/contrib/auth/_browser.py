"""Authorization for people: the system browser plus a one-shot loopback callback server.

The authorization URL is checked before it reaches the browser (https, or http to a loopback
host; never ``javascript:``, ``data:``, ``file:``, ``vbscript:``...) and handed to
:func:`webbrowser.open`, which never goes through a shell. The redirect comes back to a tiny
HTTP/1.1 server bound to ``127.0.0.1`` that reads at most one bounded request head per
connection, answers with a static page (nothing from the request is echoed), and hands the
parameters to :meth:`BrowserAuthorizer.wait`. Callbacks whose ``state`` is not the one being
waited for are dropped, so another local process cannot complete someone else's flow.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import webbrowser
from collections.abc import Callable
from typing import Final
from urllib.parse import urlsplit

from mcpkit.contrib.auth._errors import AuthorizationResponseError, OAuthFlowError
from mcpkit.contrib.auth._handlers import AuthorizationResponse
from mcpkit.contrib.auth._urls import check_browser_url

__all__ = ["DEFAULT_CALLBACK_TIMEOUT", "BrowserAuthorizer"]

logger = logging.getLogger("mcpkit.contrib.auth")

DEFAULT_CALLBACK_TIMEOUT: Final = 300.0
"""Seconds a person gets to finish signing in."""
MAX_CALLBACK_REQUEST_BYTES: Final = 16 * 1024
"""Largest request head the callback server reads."""
CALLBACK_READ_TIMEOUT: Final = 10.0
"""Seconds a connection may take to send its request head."""
MAX_PENDING_CALLBACKS: Final = 8
"""Callbacks buffered before ``wait`` picks them up; more are dropped."""

_PAGE: Final = (
    b"<!doctype html><html><head><meta charset='utf-8'><title>Authorization</title></head>"
    b"<body><p>The authorization response was received. You can close this window.</p>"
    b"</body></html>"
)


class BrowserAuthorizer:
    """Opens the authorization URL in a browser and receives the redirect on loopback.

    ``port=0`` picks a free port per flow. Authorization servers must then accept any
    loopback port (RFC 8252 §7.3); if yours registers exact redirect URIs, pass a fixed
    ``port``. ``open_browser`` replaces :func:`webbrowser.open` (return ``False`` when no
    browser could be started: the URL is then logged for the user to open by hand).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        path: str = "/callback",
        timeout: float = DEFAULT_CALLBACK_TIMEOUT,
        open_browser: Callable[[str], bool] | None = None,
        allow_insecure_loopback: bool = True,
    ) -> None:
        if not path.startswith("/"):
            raise ValueError("the callback path must start with '/'")
        self.host = host
        self.port = port
        self.path = path
        self.timeout = timeout
        self.allow_insecure_loopback = allow_insecure_loopback
        self._open_browser = open_browser or webbrowser.open
        self._server: asyncio.Server | None = None
        self._queue: asyncio.Queue[AuthorizationResponse] = asyncio.Queue(MAX_PENDING_CALLBACKS)
        self.redirect_uri: str | None = None

    async def prepare(self) -> str:
        if self._server is None:
            self._queue = asyncio.Queue(MAX_PENDING_CALLBACKS)
            self._server = await asyncio.start_server(
                self._handle, self.host, self.port, limit=MAX_CALLBACK_REQUEST_BYTES
            )
            port = self._server.sockets[0].getsockname()[1]
            host = f"[{self.host}]" if ":" in self.host else self.host
            self.redirect_uri = f"http://{host}:{port}{self.path}"
        assert self.redirect_uri is not None
        return self.redirect_uri

    async def open(self, authorization_url: str) -> None:
        check_browser_url(authorization_url, allow_insecure_loopback=self.allow_insecure_loopback)
        opened = await asyncio.to_thread(self._open_browser, authorization_url)
        if not opened:
            logger.warning(
                "could not start a browser; open this URL to authorize: %s", authorization_url
            )

    async def wait(self, state: str) -> AuthorizationResponse:
        if self._server is None:
            raise OAuthFlowError("BrowserAuthorizer.wait() called before prepare()")
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    response = await self._queue.get()
                    if response.state is not None and hmac.compare_digest(response.state, state):
                        return response
                    logger.debug("dropping an authorization callback with an unexpected state")
        except TimeoutError:
            raise OAuthFlowError(
                f"no authorization callback arrived within {self.timeout:g} s"
            ) from None

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        status, body = 400, b"bad request"
        try:
            async with asyncio.timeout(CALLBACK_READ_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
            status, body = self._route(head)
        except (asyncio.LimitOverrunError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.write(
                    b"HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\n"
                    b"Content-Length: %d\r\nCache-Control: no-store\r\n"
                    b"Referrer-Policy: no-referrer\r\n"
                    b"X-Frame-Options: DENY\r\nConnection: close\r\n\r\n"
                    % (status, b"OK" if status == 200 else b"Error", len(body))
                    + body
                )
                await writer.drain()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _route(self, head: bytes) -> tuple[int, bytes]:
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split(" ")
        if len(parts) != 3 or parts[0] != "GET" or not parts[2].startswith("HTTP/1."):
            return 400, b"bad request"
        target = urlsplit(parts[1])
        if target.path != self.path:
            return 404, b"not found"
        try:
            response = AuthorizationResponse.from_query(target.query)
        except AuthorizationResponseError:
            return 400, b"bad request"
        try:
            self._queue.put_nowait(response)
        except asyncio.QueueFull:
            return 503, b"busy"
        return 200, _PAGE

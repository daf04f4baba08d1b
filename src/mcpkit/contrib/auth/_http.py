"""The one place the auth client touches the network, behind an SSRF policy.

Every URL the client learns from a server (metadata locations, authorization-server
endpoints) is attacker-influenced, so each fetch is checked first: http(s) only, https unless
the host is an explicit loopback name or literal (and the policy allows it), no user-info, and
no private / link-local / otherwise non-global address for any other host (checked on the
resolved addresses, including the IPv4 address an IPv6 address embeds: IPv4-mapped,
IPv4-compatible, NAT64 and 6to4 forms reach the IPv4 host they name). Loopback targets need
the explicit development opt-in (``allow_insecure_loopback`` or ``MCPKIT_AUTH_ALLOW_LOOPBACK=1``).

Responses are size-capped, and every fetch has one *total* deadline covering the address
check, the connection, the headers, the whole body and any redirects: httpx's own timeouts are
per read, so a server trickling one byte per second could otherwise hold a fetch open for as
long as it likes. Redirects are followed only within the same origin and each hop is checked
again. A resolver-level check cannot stop a DNS-rebinding race by itself: deployments that
need that guarantee add an egress proxy.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import logging
import os
import socket
import ssl
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

import httpx

from mcpkit.contrib.auth._errors import InsecureURLError, OAuthFlowError
from mcpkit.contrib.auth._urls import is_loopback_host, origin_of

__all__ = [
    "ALLOW_LOOPBACK_ENV",
    "DEFAULT_TIMEOUT",
    "HttpReply",
    "SafeHttp",
    "UrlPolicy",
    "check_url",
    "embedded_ipv4",
    "loopback_opt_in_from_env",
]

logger = logging.getLogger("mcpkit.contrib.auth")

DEFAULT_TIMEOUT: Final = 10.0
"""Seconds allowed for one whole fetch (address check, connect, headers, body, redirects)."""
ALLOW_LOOPBACK_ENV: Final = "MCPKIT_AUTH_ALLOW_LOOPBACK"
"""Set to ``1`` to make ``UrlPolicy()`` allow loopback hosts (development and tests only)."""
MAX_RESPONSE_BYTES: Final = 256 * 1024
"""Largest metadata / token / registration response body accepted."""
MAX_REDIRECTS: Final = 3
"""Same-origin redirects followed for one metadata fetch."""
RESOLVE_TIMEOUT: Final = 5.0
"""Seconds allowed for the DNS lookup done by the address check."""
_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL: Final = ipaddress.IPv6Network("64:ff9b:1::/48")
_IPV4_COMPATIBLE: Final = ipaddress.IPv6Network("::/96")


def loopback_opt_in_from_env() -> bool:
    """Whether :data:`ALLOW_LOOPBACK_ENV` asks for loopback fetches (``1``/``true``/``yes``)."""
    return os.environ.get(ALLOW_LOOPBACK_ENV, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    """What the auth client may fetch.

    ``allow_insecure_loopback`` permits loopback hosts named explicitly (``localhost``,
    ``127.0.0.1``, ``[::1]``) over http or https. It is a development opt-in: off by default
    (a discovered metadata URL pointing at loopback is what an SSRF reaches for), on when
    passed explicitly or when the environment sets ``MCPKIT_AUTH_ALLOW_LOOPBACK=1`` (how a
    process started by the CLI, or a test run, turns it on without code changes).
    ``allow_private_networks`` permits hosts that resolve to private, loopback or link-local
    addresses (an authorization server inside a corporate network); it is off by default.
    ``timeout`` is the total deadline of one fetch, redirects included.
    """

    allow_insecure_loopback: bool = field(default_factory=loopback_opt_in_from_env)
    allow_private_networks: bool = False
    timeout: float = DEFAULT_TIMEOUT
    max_response_bytes: int = MAX_RESPONSE_BYTES
    max_redirects: int = MAX_REDIRECTS
    ssl_context: ssl.SSLContext | None = None
    """TLS settings (e.g. a private CA); default: the system/certifi trust store, built once."""


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    # building a context loads the CA bundle (~80 ms): do it once per process, not per fetch
    return httpx.create_ssl_context()


def embedded_ipv4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 host an IPv6 address reaches, for the forms that embed one.

    IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d`` (deprecated, still routed
    by some stacks), NAT64 ``64:ff9b::a.b.c.d`` (RFC 6052: a NAT64 gateway forwards to the
    IPv4 host), 6to4 ``2002:aabb:ccdd::/48`` and Teredo (the client's IPv4 address). Python's
    ``is_global`` calls several of these global even when the IPv4 host is private.
    """
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    if addr in _NAT64 or (addr in _IPV4_COMPATIBLE and int(addr) > 1):
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    return None


def _address_is_public(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``addr`` is a public unicast address; an IPv6 form that embeds an IPv4 host is
    judged by that host alone, so the verdict does not depend on the Python version (3.13 stopped
    calling 6to4 ``is_global`` and started judging IPv4-mapped forms by their IPv4 host)."""
    if isinstance(addr, ipaddress.IPv6Address):
        if addr in _NAT64_LOCAL:  # RFC 8215 local-use translation: a private network
            return False
        inner = embedded_ipv4(addr)
        if inner is not None:
            return _address_is_public(inner)
    return addr.is_global and not addr.is_multicast


async def check_url(url: str, policy: UrlPolicy) -> None:
    """Raise :class:`InsecureURLError` unless ``policy`` allows fetching ``url``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in ("http", "https") or not host:
        raise InsecureURLError(f"refusing to fetch {url!r}: not an absolute http(s) URL")
    if parts.username is not None or parts.password is not None:
        raise InsecureURLError(f"refusing to fetch a URL with user credentials (host {host})")
    if is_loopback_host(host):
        if not policy.allow_insecure_loopback and not policy.allow_private_networks:
            raise InsecureURLError(
                f"refusing to fetch loopback URL {url!r}: set allow_insecure_loopback=True "
                "(development only)"
            )
        return
    if scheme != "https":
        raise InsecureURLError(
            f"refusing to fetch {url!r}: https is required for non-loopback hosts"
        )
    if policy.allow_private_networks:
        return
    try:
        literal: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(RESOLVE_TIMEOUT):
                infos = await loop.getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)
        except (OSError, TimeoutError) as exc:
            raise OAuthFlowError(f"could not resolve {host!r}: {exc}") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    for addr in addresses:
        if not _address_is_public(addr):
            raise InsecureURLError(
                f"refusing to fetch {url!r}: {host} resolves to non-public address {addr} "
                "(set allow_private_networks=True if this authorization server is internal)"
            )


@dataclass(slots=True)
class HttpReply:
    """A fully read, size-capped response."""

    status_code: int
    headers: httpx.Headers
    body: bytes
    url: str
    history: list[str] = field(default_factory=list)

    def json(self) -> Any:
        """The body as JSON, or raise :class:`OAuthFlowError` saying what came back instead."""
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError) as exc:
            ctype = self.headers.get("content-type", "?")
            raise OAuthFlowError(
                f"{self.url} answered {self.status_code} with a non-JSON body ({ctype})"
            ) from exc


class SafeHttp:
    """A short-lived HTTP client that applies :class:`UrlPolicy` to every request.

    Use as ``async with SafeHttp(policy) as http: ...``; one instance serves one discovery or
    token exchange, which keeps no connection state around between (rare) auth events.
    """

    def __init__(self, policy: UrlPolicy | None = None) -> None:
        self.policy = policy or UrlPolicy()
        self._client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> SafeHttp:
        self._client = httpx.AsyncClient(
            timeout=self.policy.timeout,
            follow_redirects=False,
            verify=self.policy.ssl_context or _default_ssl_context(),
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _deadline(self) -> float:
        return asyncio.get_running_loop().time() + self.policy.timeout

    async def _send(self, request: httpx.Request, deadline: float) -> HttpReply:
        assert self._client is not None, "use SafeHttp as an async context manager"
        try:
            async with asyncio.timeout_at(deadline):
                return await self._send_now(request)
        except TimeoutError:
            raise OAuthFlowError(
                f"request to {request.url} did not complete within {self.policy.timeout:g} s "
                "(the whole fetch, not one read, is bounded)"
            ) from None

    async def _send_now(self, request: httpx.Request) -> HttpReply:
        assert self._client is not None
        await check_url(str(request.url), self.policy)
        limit = self.policy.max_response_bytes
        try:
            response = await self._client.send(request, stream=True)
            try:
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise OAuthFlowError(
                            f"{request.url} sent more than {limit} bytes; refusing the response"
                        )
                    chunks.append(chunk)
            finally:
                await response.aclose()
        except httpx.HTTPError as exc:
            raise OAuthFlowError(f"request to {request.url} failed: {exc!r}") from exc
        return HttpReply(response.status_code, response.headers, b"".join(chunks), str(request.url))

    async def get(self, url: str, *, follow_same_origin: bool = True) -> HttpReply:
        """GET ``url``; follow at most ``max_redirects`` same-origin redirects."""
        assert self._client is not None, "use SafeHttp as an async context manager"
        history: list[str] = []
        current = url
        deadline = self._deadline()  # one budget for the whole chain of redirects
        while True:
            reply = await self._send(self._client.build_request("GET", current), deadline)
            location = reply.headers.get("location")
            if not (follow_same_origin and reply.status_code in _REDIRECT_STATUSES and location):
                reply.history = history
                return reply
            target = urljoin(current, location)
            if origin_of(target) != origin_of(current) or len(history) >= self.policy.max_redirects:
                logger.debug(
                    "not following redirect from %s to another origin or past the limit", current
                )
                reply.history = history
                return reply
            history.append(current)
            current = target

    async def post_form(
        self, url: str, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> HttpReply:
        """POST an ``application/x-www-form-urlencoded`` body (never follows redirects)."""
        assert self._client is not None, "use SafeHttp as an async context manager"
        hdrs = {"accept": "application/json", **(headers or {})}
        request = self._client.build_request("POST", url, data=data, headers=hdrs)
        return await self._send(request, self._deadline())

    async def post_json(self, url: str, body: dict[str, Any]) -> HttpReply:
        """POST a JSON body (never follows redirects)."""
        assert self._client is not None, "use SafeHttp as an async context manager"
        hdrs = {"accept": "application/json"}
        request = self._client.build_request("POST", url, json=body, headers=hdrs)
        return await self._send(request, self._deadline())

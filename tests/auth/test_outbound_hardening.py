"""Outbound fetches under attack: trickling servers, slow JWKS endpoints, IPv6-wrapped SSRF.

Every server here is real and listens on loopback; the attacker's pacing (a byte at a time) is
the attacker's own sleep, the tests themselves wait only on events with bounded timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpkit.contrib.auth import (
    InsecureURLError,
    InvalidToken,
    JWTVerifier,
    OAuthFlowError,
    ProtectedResource,
    RequireBearer,
)
from mcpkit.contrib.auth._http import ALLOW_LOOPBACK_ENV, SafeHttp, UrlPolicy, check_url

from ._issuer import LocalIssuer, Receive, Scope, Send, serve

BOUND = 10.0  # seconds a test waits before calling a hang a failure


@contextlib.asynccontextmanager
async def trickling_server(*, head_first: bool) -> AsyncIterator[tuple[str, asyncio.Event]]:
    """A raw TCP server that answers one byte every 50 ms for ~30 s.

    ``head_first``: send the whole header block at once, then trickle a 600-byte body (a body
    that never quite ends); otherwise trickle the status line and headers themselves.
    """
    served = asyncio.Event()
    handlers: set[asyncio.Task[object]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        served.set()
        body = b"{" + b" " * 598 + b"}"
        head = f"HTTP/1.1 200 OK\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        try:
            if head_first:
                writer.write(head)
                payload = body
            else:
                payload = head + body
            for i in range(len(payload)):
                writer.write(payload[i : i + 1])
                await writer.drain()
                await asyncio.sleep(0.05)  # the attacker's pace, well under any read timeout
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/slow", served
    finally:
        server.close()
        for task in handlers:
            task.cancel()
        async with asyncio.timeout(BOUND):
            await asyncio.gather(*handlers, return_exceptions=True)
            await server.wait_closed()


@pytest.mark.parametrize("head_first", [True, False], ids=["slow-body", "slow-headers"])
async def test_a_trickling_server_cannot_hold_a_fetch_past_its_total_deadline(
    head_first: bool,
) -> None:
    # Each byte arrives well within a per-read timeout of 1 s; only a total deadline stops it.
    policy = UrlPolicy(allow_insecure_loopback=True, timeout=1.0)
    async with trickling_server(head_first=head_first) as (url, served), SafeHttp(policy) as http:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(OAuthFlowError, match=r"did not complete within 1 s"):
            await asyncio.wait_for(http.get(url), BOUND)
        assert served.is_set()
        # the whole body would take 30 s at this pace; the fetch gave up at its deadline
        assert loop.time() - started < BOUND


async def test_the_deadline_covers_posts_too() -> None:
    policy = UrlPolicy(allow_insecure_loopback=True, timeout=1.0)
    async with trickling_server(head_first=True) as (url, _), SafeHttp(policy) as http:
        with pytest.raises(OAuthFlowError, match="did not complete"):
            await asyncio.wait_for(http.post_form(url, {"a": "b"}), BOUND)
        with pytest.raises(OAuthFlowError, match="did not complete"):
            await asyncio.wait_for(http.post_json(url, {"a": "b"}), BOUND)


class GatedJwks:
    """Serves an issuer's JWKS; once ``hold`` is set, requests wait until ``release`` is set."""

    def __init__(self, issuer: LocalIssuer) -> None:
        self.issuer = issuer
        self.fetches = 0
        self.hold = False
        self.arrived = asyncio.Event()
        self.release = asyncio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.fetches += 1
        if self.hold:
            self.arrived.set()
            await self.release.wait()
        body = json.dumps(self.issuer.jwks()).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def test_unknown_kid_refresh_never_stalls_tokens_the_cache_can_check() -> None:
    issuer = LocalIssuer(base_url="https://as.example")
    jwks = GatedJwks(issuer)
    async with serve(jwks) as base:
        verifier = JWTVerifier(
            issuer=issuer.issuer,
            audience="https://r",
            jwks_uri=base + "/jwks",
            url_policy=UrlPolicy(allow_insecure_loopback=True),
        )
        good = issuer.mint(aud="https://r", sub="alice")
        assert (await verifier.verify(good)).subject == "alice"
        assert jwks.fetches == 1

        jwks.hold = True  # the issuer now answers only when the test says so
        flood = [
            asyncio.create_task(verifier.verify(issuer.mint(aud="https://r", kid=f"evil-{i}")))
            for i in range(20)
        ]
        await asyncio.wait_for(jwks.arrived.wait(), BOUND)
        # the refresh is in flight and stuck: tokens with a cached kid still verify at once
        for n in range(10):
            token = issuer.mint(aud="https://r", sub=f"user-{n}")
            assert (await asyncio.wait_for(verifier.verify(token), BOUND)).subject == f"user-{n}"
        assert not any(task.done() for task in flood)  # the flood waits on the one fetch
        jwks.release.set()
        results = await asyncio.wait_for(asyncio.gather(*flood, return_exceptions=True), BOUND)
        assert all(isinstance(r, InvalidToken) for r in results), results
        assert jwks.fetches == 2  # twenty unknown kids, one shared refetch

        # within the interval, more unknown kids are refused at once without a fetch
        for i in range(5):
            with pytest.raises(InvalidToken, match="unknown key"):
                await verifier.verify(issuer.mint(aud="https://r", kid=f"later-{i}"))
        assert jwks.fetches == 2


async def test_an_expired_cache_keeps_serving_while_it_refreshes() -> None:
    issuer = LocalIssuer(base_url="https://as.example")
    jwks = GatedJwks(issuer)
    async with serve(jwks) as base:
        verifier = JWTVerifier(
            issuer=issuer.issuer,
            audience="https://r",
            jwks_uri=base + "/jwks",
            url_policy=UrlPolicy(allow_insecure_loopback=True),
            cache_ttl=0.0,  # every use finds the cache expired
        )
        await verifier.verify(issuer.mint(aud="https://r"))
        jwks.hold = True
        # expired: the next call starts a background refresh and still verifies at once
        await asyncio.wait_for(verifier.verify(issuer.mint(aud="https://r")), BOUND)
        await asyncio.wait_for(jwks.arrived.wait(), BOUND)
        for _ in range(5):
            await asyncio.wait_for(verifier.verify(issuer.mint(aud="https://r")), BOUND)
        assert jwks.fetches == 2  # one background refresh in flight, not one per call
        jwks.release.set()


async def test_shutdown_ends_a_jwks_refresh_in_flight_and_its_waiters() -> None:
    """The lifespan's shutdown, through :class:`RequireBearer`, closes the verifier: a JWKS fetch
    stuck on the issuer is cancelled before the loop closes, and a request waiting on it is
    refused (401-worthy) instead of hanging on a fetch nobody owns any more."""
    issuer = LocalIssuer(base_url="https://as.example")
    jwks = GatedJwks(issuer)

    async def lifespan_app(scope: Scope, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return

    async with serve(jwks) as base:
        verifier = JWTVerifier(
            issuer=issuer.issuer,
            audience="https://r",
            jwks_uri=base + "/jwks",
            # the fetch's own deadline is far beyond the test's bound: only the shutdown ends it
            url_policy=UrlPolicy(allow_insecure_loopback=True, timeout=10 * BOUND),
            min_refetch_interval=0.0,
        )
        await verifier.verify(issuer.mint(aud="https://r"))
        jwks.hold = True
        waiter = asyncio.create_task(verifier.verify(issuer.mint(aud="https://r", kid="rotated")))
        await asyncio.wait_for(jwks.arrived.wait(), BOUND)

        app = RequireBearer(lifespan_app, ProtectedResource("https://r", [issuer.issuer], verifier))
        inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
        sent: list[str] = []

        async def receive() -> dict[str, str]:
            return inbox.pop(0)

        async def send(message: Any) -> None:
            sent.append(message["type"])

        await asyncio.wait_for(app({"type": "lifespan"}, receive, send), BOUND)
        assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
        with pytest.raises(InvalidToken, match="unknown key"):
            await asyncio.wait_for(waiter, BOUND)
        assert not jwks.release.is_set()  # ended by the shutdown, not by the issuer answering
        jwks.release.set()


async def test_a_dead_jwks_endpoint_is_not_hammered() -> None:
    issuer = LocalIssuer(base_url="https://as.example")
    calls = 0

    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal calls
        calls += 1
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": b"down"})

    async with serve(broken) as base:
        verifier = JWTVerifier(
            issuer=issuer.issuer,
            audience="https://r",
            jwks_uri=base + "/jwks",
            url_policy=UrlPolicy(allow_insecure_loopback=True),
        )
        for _ in range(10):
            with pytest.raises(InvalidToken, match="unknown key"):
                await verifier.verify(issuer.mint(aud="https://r"))
        assert calls == 1


@pytest.mark.parametrize(
    "host",
    [
        "[64:ff9b::7f00:1]",  # NAT64 -> 127.0.0.1
        "[64:ff9b::a9fe:a9fe]",  # NAT64 -> 169.254.169.254 (cloud metadata)
        "[64:ff9b::c0a8:0101]",  # NAT64 -> 192.168.1.1
        "[64:ff9b:1::a00:1]",  # RFC 8215 local-use NAT64
        "[2002:7f00:1::]",  # 6to4 -> 127.0.0.1
        "[2002:a00:1::1]",  # 6to4 -> 10.0.0.1
        "[2002:a9fe:a9fe::]",  # 6to4 -> 169.254.169.254
        "[::127.0.0.1]",  # IPv4-compatible
        "[::10.1.2.3]",  # IPv4-compatible
        "[::ffff:127.0.0.1]",  # IPv4-mapped
        "[::ffff:169.254.169.254]",  # IPv4-mapped
        "[2001:0:4136:e378:8000:63bf:f5ff:fffe]",  # Teredo, client 10.0.0.1
    ],
)
async def test_ipv6_forms_that_embed_a_private_ipv4_are_refused(host: str) -> None:
    with pytest.raises(InsecureURLError, match="non-public"):
        await check_url(f"https://{host}/.well-known/oauth-authorization-server", UrlPolicy())


@pytest.mark.parametrize(
    "host", ["[64:ff9b::808:808]", "[2002:808:808::1]", "[2606:4700:4700::1111]", "8.8.8.8"]
)
async def test_embedded_public_ipv4_and_plain_public_ipv6_pass(host: str) -> None:
    await check_url(f"https://{host}/", UrlPolicy())


async def test_loopback_is_off_by_default_and_the_environment_opts_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ALLOW_LOOPBACK_ENV, raising=False)
    assert UrlPolicy().allow_insecure_loopback is False
    for url in ("http://127.0.0.1:9/", "http://localhost:9/.well-known/x", "https://[::1]/"):
        with pytest.raises(InsecureURLError, match="loopback"):
            await check_url(url, UrlPolicy())
    monkeypatch.setenv(ALLOW_LOOPBACK_ENV, "1")
    assert UrlPolicy().allow_insecure_loopback is True
    await check_url("http://127.0.0.1:9/", UrlPolicy())
    monkeypatch.setenv(ALLOW_LOOPBACK_ENV, "0")
    assert UrlPolicy().allow_insecure_loopback is False


async def test_discovery_of_a_loopback_metadata_url_is_refused_without_the_opt_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ALLOW_LOOPBACK_ENV, raising=False)
    hits = 0

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal hits
        hits += 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async with serve(app) as base, SafeHttp() as http:
        with pytest.raises(InsecureURLError, match="allow_insecure_loopback"):
            await http.get(base + "/.well-known/oauth-authorization-server")
    assert hits == 0  # refused before any connection was made


async def test_an_ipv4_mapped_loopback_is_not_loopback_on_any_python() -> None:
    """Python 3.13 calls ``::ffff:127.0.0.1`` loopback, 3.11 does not: the policy decides the same
    on both — only plain loopback literals use the development opt-in."""
    policy = UrlPolicy(allow_insecure_loopback=True)
    with pytest.raises(InsecureURLError, match="non-public"):
        await check_url("https://[::ffff:127.0.0.1]/token", policy)
    await check_url("http://[::1]:8080/token", policy)


async def test_an_ipv4_mapped_public_address_passes_on_any_python() -> None:
    await check_url("https://[::ffff:8.8.8.8]/token", UrlPolicy())

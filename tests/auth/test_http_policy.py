"""The SSRF policy and the guarded fetcher, against real loopback servers."""

from __future__ import annotations

import json
import socket

import pytest

from mcpkit.contrib.auth import BearerChallenge, InsecureURLError, OAuthFlowError, UrlPolicy
from mcpkit.contrib.auth._discovery import discover_protected_resource
from mcpkit.contrib.auth._http import SafeHttp, check_url

from ._issuer import Receive, Scope, Send, serve

DEFAULT = UrlPolicy(allow_insecure_loopback=False)
DEV = UrlPolicy(allow_insecure_loopback=True)


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/.well-known/x",
        "https://192.168.1.20/",
        "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:10.0.0.1]/",
        "https://[fd00::1]/",
        "https://[fe80::1]/",
        "https://100.64.0.1/",
        "https://224.0.0.1/",
        "https://0.0.0.0/",
    ],
)
async def test_non_public_addresses_are_refused(url: str) -> None:
    with pytest.raises(InsecureURLError, match="non-public"):
        await check_url(url, DEFAULT)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://as.example.com/", "https is required"),
        ("ftp://as.example.com/", "not an absolute"),
        ("https://user:pw@as.example.com/", "user credentials"),
        ("/relative", "not an absolute"),
    ],
)
async def test_scheme_and_userinfo_rules(url: str, message: str) -> None:
    with pytest.raises(InsecureURLError, match=message):
        await check_url(url, DEFAULT)


async def test_loopback_needs_the_development_flag() -> None:
    for url in ("http://127.0.0.1:9/", "http://localhost:9/", "https://[::1]:9/"):
        await check_url(url, DEV)
        with pytest.raises(InsecureURLError, match="loopback"):
            await check_url(url, DEFAULT)


async def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    host = socket.gethostname()  # resolves locally (to loopback or a private address)
    with pytest.raises(InsecureURLError, match="non-public"):
        await check_url(f"https://{host}/.well-known/x", DEFAULT)
    await check_url(f"https://{host}/", UrlPolicy(allow_private_networks=True))


async def test_public_literal_is_allowed() -> None:
    await check_url("https://93.184.216.34/", DEFAULT)  # no DNS: an IP literal


def _app(routes: dict[str, tuple[int, dict[str, str], bytes]]):  # type: ignore[no-untyped-def]
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        status, headers, body = routes.get(scope["path"], (404, {}, b"{}"))
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


async def test_oversized_bodies_are_refused() -> None:
    big = b"{" + b" " * 300_000 + b"}"
    async with serve(_app({"/big": (200, {}, big)})) as base, SafeHttp() as http:
        with pytest.raises(OAuthFlowError, match="more than"):
            await http.get(base + "/big")
        small = SafeHttp(UrlPolicy(max_response_bytes=10))
        async with small:
            with pytest.raises(OAuthFlowError, match="more than 10 bytes"):
                await small.get(base + "/big")


async def test_same_origin_redirects_followed_cross_origin_not() -> None:
    async with serve(_app({"/doc": (200, {}, b'{"ok": true}')})) as other:
        routes = {
            "/a": (302, {"location": "/b"}, b""),
            "/b": (301, {"location": "/doc"}, b""),
            "/doc": (200, {}, b'{"here": true}'),
            "/away": (302, {"location": other + "/doc"}, b""),
        }
        async with serve(_app(routes)) as base, SafeHttp() as http:
            reply = await http.get(base + "/a")
            assert reply.status_code == 200 and reply.json() == {"here": True}
            assert reply.history == [base + "/a", base + "/b"]
            reply = await http.get(base + "/away")
            assert reply.status_code == 302  # not followed to the other origin


async def test_prm_from_a_blocked_header_url_falls_back_to_well_known() -> None:
    prm = {"resource": "", "authorization_servers": ["https://as.example.com"]}
    routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
    async with serve(_app(routes)) as base:
        prm["resource"] = base + "/mcp"
        routes["/.well-known/oauth-protected-resource/mcp"] = (200, {}, json.dumps(prm).encode())
        challenge = BearerChallenge({"resource_metadata": "https://169.254.169.254/prm"})
        async with SafeHttp() as http:
            found = await discover_protected_resource(http, base + "/mcp", challenge)
        assert found is not None and found.resource == base + "/mcp"

"""The browser + loopback-callback authorizer, with a scripted 'browser'."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mcpkit.contrib.auth import BrowserAuthorizer, InsecureURLError, OAuthClient, OAuthFlowError

from .conftest import StartStack


def _state_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["state"][0]


async def test_callback_delivers_the_matching_state_and_drops_strays() -> None:
    redirect: dict[str, str] = {}

    def browser(url: str) -> bool:
        state = _state_of(url)
        with httpx.Client() as http:
            assert http.get(redirect["uri"] + "?code=stray&state=someone-else").status_code == 200
            assert http.get(redirect["uri"].replace("/callback", "/other")).status_code == 404
            page = http.get(redirect["uri"] + f"?code=good&state={state}&iss=https%3A%2F%2Fas")
            assert page.status_code == 200 and "close this window" in page.text
            assert page.headers["referrer-policy"] == "no-referrer"
        return True

    authorizer = BrowserAuthorizer(open_browser=browser, timeout=10)
    redirect["uri"] = await authorizer.prepare()
    assert redirect["uri"].startswith("http://127.0.0.1:")
    try:
        await authorizer.open("https://as.example.com/authorize?state=S1")
        response = await authorizer.wait("S1")
    finally:
        await authorizer.close()
    assert (response.code, response.state, response.iss) == ("good", "S1", "https://as")
    with pytest.raises(httpx.ConnectError):  # one-shot: the server is gone
        async with httpx.AsyncClient() as http:
            await http.get(redirect["uri"])


async def test_wait_is_bounded() -> None:
    authorizer = BrowserAuthorizer(open_browser=lambda url: True, timeout=0.2)
    await authorizer.prepare()
    try:
        with pytest.raises(OAuthFlowError, match="no authorization callback"):
            await authorizer.wait("S")
    finally:
        await authorizer.close()


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "vbscript:x"]
)
async def test_dangerous_urls_never_reach_the_browser(url: str) -> None:
    opened: list[str] = []
    authorizer = BrowserAuthorizer(open_browser=lambda u: opened.append(u) or True)
    with pytest.raises(InsecureURLError):
        await authorizer.open(url)
    assert opened == []


async def test_garbage_on_the_callback_port_is_answered_and_ignored() -> None:
    authorizer = BrowserAuthorizer(open_browser=lambda url: True, timeout=5)
    uri = await authorizer.prepare()
    port = urlsplit(uri).port
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"BREW /callback HTCPCP/1.0\r\n\r\n")
        await writer.drain()
        assert (await reader.read()).startswith(b"HTTP/1.1 400")
        writer.close()
        async with httpx.AsyncClient() as http:
            assert (await http.get(uri + "?code=a&code=b&state=S")).status_code == 400
            assert (await http.get(uri + "?code=ok&state=S")).status_code == 200
        assert (await authorizer.wait("S")).code == "ok"
    finally:
        await authorizer.close()


async def test_full_flow_through_a_browser_and_loopback_callback(start_stack: StartStack) -> None:
    stack = await start_stack()

    def browser(url: str) -> bool:
        """Follow the authorization URL like a browser: AS redirect, then the callback."""
        with httpx.Client(follow_redirects=False) as http:
            location = http.get(url).headers["location"]
            assert location.startswith("http://127.0.0.1:")
            assert http.get(location).status_code == 200
        return True

    authorizer = BrowserAuthorizer(open_browser=browser, timeout=10)
    auth = OAuthClient(redirect_handler=authorizer)  # also its callback handler
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    registration = stack.issuer.events[0][1]
    assert registration["application_type"] == "native"
    assert registration["redirect_uris"][0].startswith("http://127.0.0.1:")

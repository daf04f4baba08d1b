"""URL targets take headers and a bearer token (``--header``, ``--bearer``, ``$MCPKIT_BEARER``):
against a real HTTP server that refuses requests without them."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator

import pytest

from ._process import Running
from ._run import FIXTURES, mcpkit

STOP_TIMEOUT = 30.0


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    running = Running([sys.executable, str(FIXTURES / "guarded_server.py")])
    try:
        yield running.wait_stdout("http://").strip()
    finally:
        running.process.send_signal(signal.SIGINT)
        running.process.wait(STOP_TIMEOUT)


def test_without_credentials_the_refusal_says_how_to_give_them(guarded_url: str) -> None:
    ran = mcpkit("call", guarded_url, "ping", env={"MCPKIT_BEARER": ""})
    assert ran.code == 4, ran
    assert ran.err.startswith("mcpkit: error: the server refused us"), ran
    assert "hint: give credentials: --bearer TOKEN (or set MCPKIT_BEARER)" in ran.err


def test_bearer_and_header_options_reach_the_server(guarded_url: str) -> None:
    ran = mcpkit("call", guarded_url, "ping", "--bearer", "s3cret-token", "-H", "X-Team: blue")
    assert ran.code == 0, ran
    assert ran.out.strip() == "pong"


def test_the_bearer_token_can_come_from_the_environment(guarded_url: str) -> None:
    ran = mcpkit("list", guarded_url, "--header", "X-Team: blue",
                 env={"MCPKIT_BEARER": "s3cret-token"})  # fmt: skip
    assert ran.code == 0, ran
    assert "ping" in ran.out


def test_headers_are_refused_for_a_stdio_server() -> None:
    ran = mcpkit("list", str(FIXTURES / "failing_server.py"), "--header", "X-Team: blue")
    assert ran.code == 2, ran
    assert "--header and --bearer apply to URL servers" in ran.err


async def test_the_libraries_401_hint_names_real_keyword_arguments(guarded_url: str) -> None:
    """The hint says how to pass credentials; following it literally works."""
    import inspect
    import re

    from mcpkit.client import Client
    from mcpkit.protocol._errors import AuthorizationError
    from mcpkit.transports.http import HttpClientConnector

    with pytest.raises(BaseException) as caught:  # unwrapped below
        async with Client(guarded_url, timeout=STOP_TIMEOUT):
            pass
    error: BaseException = caught.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, AuthorizationError), repr(error)
    named = re.findall(r"HttpClientConnector\(url, (\w+)=", str(error))
    assert named == ["auth", "headers"], str(error)
    parameters = inspect.signature(HttpClientConnector).parameters
    assert all(name in parameters for name in named)
    headers = {"Authorization": "Bearer s3cret-token", "X-Team": "blue"}
    async with Client(HttpClientConnector(guarded_url, headers=headers)) as client:
        result = await client.call_tool("ping")
    assert result.content[0].text == "pong"  # type: ignore[union-attr]

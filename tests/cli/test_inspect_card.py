"""``mcpkit inspect --card URL`` (experimental): the Server Card fetched before connecting and
verified against the connection, against a real HTTP server on loopback."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from collections.abc import Iterator

from ._process import Running
from ._run import FIXTURES, mcpkit

STOP_TIMEOUT = 30.0


@contextlib.contextmanager
def serving(*flags: str) -> Iterator[str]:
    running = Running([sys.executable, str(FIXTURES / "carded_server.py"), *flags])
    try:
        yield running.wait_stdout("http://").strip()
    finally:
        running.process.send_signal(signal.SIGINT)
        running.process.wait(STOP_TIMEOUT)


def test_a_matching_card_is_shown_and_verified() -> None:
    with serving() as url:
        ran = mcpkit("inspect", url, "--card", "--json")
        assert ran.code == 0, ran
        report = json.loads(ran.out)
        assert report["serverCard"]["version"] == "3.0.0"
        assert report["serverCard"]["remotes"][0]["url"] == url
        assert report["serverCardProblems"] == []
        assert "the Server Card agrees with the server" in ran.err
        text = mcpkit("inspect", url, "--card")
        assert text.code == 0, text
        assert "server card" in text.out and '"name": "1.0.0.127/carded"' in text.out


def test_a_card_naming_another_endpoint_fails_with_the_reason() -> None:
    with serving("--public-url", "https://elsewhere.example/mcp") as url:
        ran = mcpkit("inspect", url, "--card")
        assert ran.code == 4, ran
        assert "the Server Card disagrees with the server" in ran.err
        assert "https://elsewhere.example/mcp" in ran.err


def test_card_needs_a_url_and_a_server_that_publishes_one() -> None:
    ran = mcpkit("inspect", "examples/shop_server.py", "--card")
    assert ran.code == 2, ran
    assert "--card needs a URL target" in ran.err
    running = Running([sys.executable, str(FIXTURES / "guarded_server.py")])
    try:
        url = running.wait_stdout("http://").strip()
        ran = mcpkit("inspect", url, "--card")
    finally:
        running.process.send_signal(signal.SIGINT)
        running.process.wait(STOP_TIMEOUT)
    assert ran.code == 3, ran
    assert "not a Server Card" in ran.err

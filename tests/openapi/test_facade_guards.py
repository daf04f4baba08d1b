"""`mcpkit rest` has the MCP endpoint's web guards on by default (issue 28): a web page cannot
make the browser run tools (foreign Host by DNS rebinding, foreign Origin, text/plain bodies),
and the serve path's connection limits and the facade's body deadline hold.

`mcpkit rest` is a real subprocess in front of a real stdio server; the body deadline is checked
on the facade served by real uvicorn on loopback.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from mcpkit.contrib.openapi import rest_app

from . import _counter_server
from .conftest import serve

SERVER_SCRIPT: Final = Path(_counter_server.__file__)
START_TIMEOUT: Final = 30.0
ATTACKER: Final = "127.0.0.2"


@pytest.fixture(scope="module")
def rest_url() -> Iterator[str]:
    """`mcpkit rest` in front of the counter server over stdio, on a free loopback port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpkit.cli", "rest", f"{sys.executable} {SERVER_SCRIPT}",
         "--port", "0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = asyncio.run(
            asyncio.wait_for(asyncio.to_thread(process.stderr.readline), START_TIMEOUT)
        )
        assert "serving" in line, line
        yield line.split(" at ")[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=30)


def _calls(http: httpx.Client) -> int:
    answer = http.post("/tools/calls", json={})
    assert answer.status_code == 200, answer.text
    count: int = answer.json()["result"]
    return count


def test_a_web_page_cannot_run_tools(rest_url: str) -> None:
    with httpx.Client(base_url=rest_url, timeout=30) as http:
        before = _calls(http)
        rebound = http.post("/tools/bump", json={}, headers={"host": "evil.example:8000"})
        assert rebound.status_code == 421, rebound.text
        assert "allowed_hosts" in rebound.json()["detail"]
        foreign = http.post("/tools/bump", json={}, headers={"origin": "https://evil.example"})
        assert foreign.status_code == 403, foreign.text
        simple = http.post(  # what a page's fetch() sends without a CORS preflight
            "/tools/bump", content=b"{}", headers={"content-type": "text/plain"}
        )
        assert simple.status_code == 415, simple.text
        untyped = http.post("/tools/bump", content=b"{}")  # a Blob without a type
        assert untyped.status_code == 415, untyped.text
        assert _calls(http) == before  # none of them ran the tool
        same_origin = http.post(
            "/tools/bump", json={}, headers={"origin": rest_url.replace("127.0.0.1", "localhost")}
        )
        assert same_origin.status_code == 200, same_origin.text
        assert _calls(http) == before + 1


def test_repeated_host_headers_are_refused(rest_url: str) -> None:
    host, port = rest_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /tools/bump HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n"
            b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        )
        head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 400 "), head


def test_the_serve_path_guard_is_in_front(rest_url: str) -> None:
    """One peer gets at most 100 connections (the default serve path's per-peer cap)."""
    host, port = rest_url.removeprefix("http://").split(":")
    held = []
    try:
        for _ in range(100):
            held.append(socket.create_connection((host, int(port)), source_address=(ATTACKER, 0)))
        extra = socket.create_connection((host, int(port)), source_address=(ATTACKER, 0))
        extra.settimeout(10)
        with extra:
            assert extra.recv(4096).startswith(b"HTTP/1.1 503 ")
        with httpx.Client(base_url=rest_url, timeout=30) as http:  # other peers are served
            assert http.post("/tools/calls", json={}).status_code == 200
    finally:
        for sock in held:
            sock.close()


async def test_a_slow_body_is_cut_at_its_deadline() -> None:
    async with serve(rest_app(_counter_server.server, body_timeout=0.3), lifespan="on") as url:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(
                b"POST /tools/bump HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"
            )
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            assert head.startswith(b"HTTP/1.1 408 "), head
        finally:
            writer.close()


async def test_bodies_no_server_could_take_are_400_not_500() -> None:
    """Issue 28: deep nesting raised RecursionError and lone surrogates UnicodeEncodeError deep in
    the call (500 from uvicorn, a traceback in its log)."""
    json_type = {"content-type": "application/json"}
    async with (
        serve(rest_app(_counter_server.server), lifespan="on") as url,
        httpx.AsyncClient(base_url=url, timeout=30) as http,
    ):
        deep = b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        for body in (deep, b'{"x": "\\ud800"}', b'{"x": ["ok", {"y": "\\udfff!"}]}'):
            answer = await http.post("/tools/bump", content=body, headers=json_type)
            assert answer.status_code == 400, answer.text
            assert answer.headers["content-type"] == "application/problem+json"
        paired = await http.post(
            "/tools/calls", content=b'{"\\ud83d\\ude00": 1}', headers=json_type
        )
        assert paired.status_code == 400  # a valid pair, but an argument calls does not take
        assert "nested" not in paired.text and "surrogate" not in paired.text
        assert (await http.post("/tools/calls", json={})).json() == {"result": 0}


async def test_unexpected_exception_text_is_not_served_to_the_web() -> None:
    """Issue 28: a tool's exception text (paths, SQL, secrets in messages) reached REST clients
    verbatim. The facade hides the text of unexpected exceptions by default (a deliberate
    ``ToolError`` passes); an mcpkit server can hide it from MCP clients too (``mask_errors``)."""
    from mcpkit.server import Server, ToolError

    def build(**options: Any) -> Server:
        server = Server("leaky", "1.0.0", **options)

        @server.tool
        def explode() -> str:
            """Fail unexpectedly."""
            raise RuntimeError("password=hunter2 at /srv/app/secrets.py")

        @server.tool
        def refuse() -> str:
            """Fail on purpose."""
            raise ToolError("that is not allowed")

        return server

    json_type = {"content-type": "application/json"}
    async with (
        serve(rest_app(build()), lifespan="on") as url,
        httpx.AsyncClient(base_url=url, timeout=30) as http,
    ):
        exploded = await http.post("/tools/explode", content=b"{}", headers=json_type)
        assert exploded.status_code == 422
        assert "hunter2" not in exploded.text and "internal error" in exploded.json()["detail"]
        refused = await http.post("/tools/refuse", content=b"{}", headers=json_type)
        assert refused.json()["detail"] == "that is not allowed"  # deliberate: it passes
    async with (
        serve(rest_app(build(), mask_errors=False), lifespan="on") as url,
        httpx.AsyncClient(base_url=url, timeout=30) as http,
    ):
        verbatim = await http.post("/tools/explode", content=b"{}", headers=json_type)
        assert "hunter2" in verbatim.json()["detail"]  # the operator's choice
    from mcpkit.testing import connect

    async with connect(build(mask_errors=True)) as client:  # the MCP path
        result = await client.call_tool("explode", {})
        assert result.is_error and "hunter2" not in result.content[0].text
        assert "reference" in result.content[0].text
        deliberate = await client.call_tool("refuse", {})
        assert deliberate.content[0].text == "that is not allowed"

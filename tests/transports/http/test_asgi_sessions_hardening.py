"""Session and header hardening of the HTTP server, through real uvicorn: the idle-session reaper
runs from startup (its real background task, short timeouts) and frees what a session pins; one
peer cannot fill the session table; repeated ``Host``/``Origin`` headers are refused."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import httpx
import pytest
from _asgi_harness import ACCEPT_BOTH, LegacyPeer, bound, call_body, initialize_body, running

from mcpkit.server import Context, Server
from mcpkit.transports.http import McpHttpApp
from mcpkit.transports.http._server.event_store import MemoryEventStore
from mcpkit.transports.http._server.peers import peer_key

ELICIT = {"elicitation": {}}


def _asking_server(asked: asyncio.Event, failed: list[BaseException]) -> Server:
    server = Server("reaper-tests", "1.0.0")

    @server.tool
    async def ask(ctx: Context) -> str:
        """Elicit, and record how the wait ended (the client will never answer)."""
        asked.set()
        try:
            await ctx.elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        except BaseException as exc:
            failed.append(exc)
            raise
        return "answered"

    @server.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


async def test_the_reaper_runs_from_startup_and_frees_what_an_abandoned_session_pins() -> None:
    asked = asyncio.Event()
    failed: list[BaseException] = []
    events = MemoryEventStore()
    app: McpHttpApp = _asking_server(asked, failed).http_app(
        session_idle_timeout=0.3, reap_interval=0.05, event_store=events, sse_after=0.0
    )
    sessions = app.endpoint.sessions
    assert sessions is not None
    reaped: asyncio.Queue[list[str]] = asyncio.Queue()
    sessions.on_reaped = reaped.put_nowait
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize(ELICIT)  # the first session: the table was empty at startup
        assert app.reaper_running
        # The client starts a call that elicits, then walks away from the stream and the session.
        async with http.stream("POST", "/mcp", json=call_body(2, "ask"), headers=peer.headers()):
            await bound(asked.wait())
        assert len(events) >= 1  # the abandoned stream's events are kept for a resume
        gone = await bound(reaped.get())  # the real background task, not a hand call to reap()
        assert gone == [peer.session_id]
        assert app.session_count == 0
        assert len(failed) == 1  # the handler waiting on the elicitation was released
        await bound(app.wait_idle())
        assert app.task_count == 0
        assert len(events) == 0  # and the session's event log was dropped
        late = await peer.post({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert late.status_code == 404
        # A session that keeps working is not reaped.
        busy = LegacyPeer(http)
        await busy.initialize()
        for i in range(4, 10):
            params = {"name": "add", "arguments": {"a": i, "b": 1}}
            assert (await busy.call(i, "tools/call", params))["result"]
        assert app.session_count == 1
    assert not app.reaper_running


def _app(**options: Any) -> McpHttpApp:
    asked = asyncio.Event()
    app: McpHttpApp = _asking_server(asked, []).http_app(**options)
    return app


async def test_one_peer_cannot_fill_the_session_table() -> None:
    """A peer at its cap loses its own least recently used idle session; others still get in."""
    app = _app(max_sessions=6, max_sessions_per_peer=3)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        first = LegacyPeer(http)
        await first.initialize()
        others = [LegacyPeer(http) for _ in range(2)]
        for other in others:
            await other.initialize()
        assert (await first.call(2, "tools/list"))["result"]  # first is now the most recent
        flood = []
        for _ in range(20):  # a client that never sends DELETE
            response = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
            assert response.status_code == 200, response.text
            flood.append(response.headers["mcp-session-id"])
        assert app.session_count == 3  # never more than the peer's cap
        sessions = app.endpoint.sessions
        assert sessions is not None and sessions.held_by(peer_key(("127.0.0.1", 1))) == 3
        # the newest sessions survive; the older idle ones were ended (404 → initialize again)
        newest = LegacyPeer(http)
        newest.session_id = flood[-1]
        assert (await newest.call(3, "tools/list"))["result"]
        assert (await first.post({"jsonrpc": "2.0", "id": 4, "method": "ping"})).status_code == 404
    # A different peer (as seen by the server) still gets a session: not the whole table is used.


async def test_a_peer_whose_sessions_are_all_busy_gets_429() -> None:
    release = asyncio.Event()
    started = asyncio.Event()
    server = Server("busy", "1.0.0")

    @server.tool
    async def hold() -> str:
        """Hold until released."""
        started.set()
        await release.wait()
        return "done"

    app: McpHttpApp = server.http_app(max_sessions_per_peer=1, sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        async with http.stream("POST", "/mcp", json=call_body(2, "hold"), headers=peer.headers()):
            await bound(started.wait())
            refused = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
            assert refused.status_code == 429, refused.text
            assert "max_sessions_per_peer" in refused.json()["error"]["message"]
            release.set()
        assert (await peer.call(3, "tools/list"))["result"]  # the busy session was kept


def test_peer_keys_group_ipv6_by_prefix() -> None:
    assert peer_key(("192.0.2.7", 5000)) == "192.0.2.7"
    assert peer_key(("2001:db8::1", 1)) == peer_key(("2001:db8::ffff:1", 2)) == "2001:db8::/64"
    assert peer_key(("2001:db8:0:1::1", 1)) != peer_key(("2001:db8::1", 1))
    assert peer_key(("::ffff:192.0.2.7", 1)) == "192.0.2.7"
    assert peer_key(None) == "-"


async def _raw_request(url: str, header_lines: list[str]) -> tuple[int, bytes]:
    """Send a request whose header lines are given verbatim (httpx would merge duplicates)."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port), family=socket.AF_INET)
    body = json.dumps(initialize_body()).encode()
    head = [
        "POST /mcp HTTP/1.1",
        *header_lines,
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await writer.drain()
    data = await bound(reader.read())
    writer.close()
    status = int(data.split(b" ", 2)[1])
    return status, data


@pytest.mark.parametrize("impl", ["h11", "httptools"])
async def test_repeated_host_or_origin_headers_get_400(impl: str) -> None:
    """h11 already refuses a second ``Host`` itself; httptools passes both to the app."""
    async with running(_app(), http=impl) as url:
        for hosts in (["127.0.0.1", "evil.example"], ["evil.example", "127.0.0.1"]):
            status, data = await _raw_request(url, [f"Host: {h}" for h in hosts])
            assert status == 400, data
            assert impl == "h11" or b"more than one Host header" in data
        status, data = await _raw_request(
            url,
            ["Host: 127.0.0.1", "Origin: http://127.0.0.1", "Origin: http://evil.example"],
        )
        assert status == 400 and b"more than one Origin header" in data
        # one of each is still served
        status, data = await _raw_request(url, ["Host: 127.0.0.1", "Origin: http://localhost"])
        assert status == 200, data


@pytest.mark.parametrize("impl", ["h11", "httptools"])
async def test_a_pair_accepted_before_does_not_let_a_repeat_through(impl: str) -> None:
    """The app skips the Host/Origin policy for a pair it accepted before: a request repeating
    the header, with that pair's value first, still gets 400 (it is not that pair)."""
    async with running(_app(), http=impl) as url:
        good = ["Host: 127.0.0.1", "Origin: http://127.0.0.1"]
        status, data = await _raw_request(url, good)
        assert status == 200, data
        status, data = await _raw_request(url, [*good, "Origin: http://evil.example"])
        assert status == 400 and b"more than one Origin header" in data
        if impl == "httptools":  # (h11 refuses a second Host before the app sees it)
            status, data = await _raw_request(url, [*good, "Host: evil.example"])
            assert status == 400 and b"more than one Host header" in data
        status, data = await _raw_request(url, good)
        assert status == 200, data


async def test_a_few_peers_at_their_cap_do_not_keep_the_others_out() -> None:
    """Issue 28: 5 addresses x 2 550 initializes filled the 10 000 table and every other peer got
    503 for up to 30 minutes. Scaled down: 2 peers fill a table of 6 (3 each); a third peer gets
    in, at the expense of the least recently used idle session of the peer holding the most,
    up to an equal share."""
    app = _app(max_sessions=6, max_sessions_per_peer=3)
    sessions = app.endpoint.sessions
    assert sessions is not None

    def from_address(address: str) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        return httpx.AsyncClient(base_url=url, transport=transport)

    async with running(app) as url:
        for address in ("127.0.0.2", "127.0.0.3"):
            async with from_address(address) as http:
                for _ in range(3):
                    answer = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
                    assert answer.status_code == 200, answer.text
        assert app.session_count == 6  # the table is full
        async with from_address("127.0.0.4") as http:
            for _ in range(2):
                answer = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
                assert answer.status_code == 200, answer.text
            # an equal share reached: nobody holds more than the newcomer, so the table is full
            full = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
            assert full.status_code == 503, full.text
        assert app.session_count == 6
        held = [sessions.held_by(peer_key((f"127.0.0.{n}", 1))) for n in (2, 3, 4)]
        assert held == [2, 2, 2], held


async def test_a_session_belongs_to_the_caller_that_created_it() -> None:
    """Issue 28: with authentication in front, another principal could use or DELETE a legacy
    session whose id it learned. It is now answered as if the session did not exist."""
    from mcpkit.gateway._identity import StaticBearer

    tokens = {"alice-token-0123456789abcdef": "alice", "bob-token-0123456789abcdef": "bob"}
    app = _app()
    async with running(StaticBearer(app, tokens)) as url:
        alice_auth = {"authorization": "Bearer alice-token-0123456789abcdef"}
        bob_auth = {"authorization": "Bearer bob-token-0123456789abcdef"}
        async with (
            httpx.AsyncClient(base_url=url, headers=alice_auth) as alice_http,
            httpx.AsyncClient(base_url=url, headers=bob_auth) as bob_http,
        ):
            alice = LegacyPeer(alice_http)
            await alice.initialize()
            bob = LegacyPeer(bob_http)
            bob.session_id, bob.version = alice.session_id, alice.version
            used = await bob.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            assert used.status_code == 404, used.text
            ended = await bob_http.delete("/mcp", headers=bob.headers())
            assert ended.status_code == 404, ended.text
            listened = await bob_http.get(
                "/mcp", headers={**bob.headers(), "accept": "text/event-stream"}
            )
            assert listened.status_code == 404, listened.text
            assert (await alice.call(3, "tools/list"))["result"]["tools"]  # still alice's
            assert (await alice_http.delete("/mcp", headers=alice.headers())).status_code == 200

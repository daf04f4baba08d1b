"""Slow and idle request headers cannot starve legitimate requests on the default serve path.

The server is a real process started through ``server.run("http")`` (``_asgi_servers.py``), so
the guard in front of uvicorn's protocol is the one users get. The attacking sockets connect from
``127.0.0.2`` (still loopback: Linux routes all of 127/8 to ``lo``) so the server sees them as a
different peer than the legitimate client on ``127.0.0.1``.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
from typing import Final

import httpx
from _asgi_harness import ACCEPT_BOTH, bound, initialize_body
from _asgi_process import server_process

SLOW_SOCKETS: Final = 1_000
ATTACKER: Final = "127.0.0.2"
PARTIAL_HEADER: Final = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def _enough_descriptors(needed: int) -> None:
    """Both processes need a descriptor per socket; raise the soft limit (the server inherits)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= needed, "RLIMIT_NOFILE too low"


async def _slow_socket(
    port: int,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, local_addr=(ATTACKER, 0), family=socket.AF_INET
    )
    writer.write(PARTIAL_HEADER)
    await writer.drain()
    return reader, writer


async def test_a_thousand_idle_header_sockets_do_not_starve_a_good_request() -> None:
    _enough_descriptors(3 * SLOW_SOCKETS)
    async with server_process() as url:
        port = int(url.rsplit(":", 1)[1])
        pairs = await bound(asyncio.gather(*(_slow_socket(port) for _ in range(SLOW_SOCKETS))))
        try:
            # queued behind all of them in the accept backlog, from another peer
            async with httpx.AsyncClient(base_url=url) as http:
                good = await bound(http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH))
                assert good.status_code == 200, good.text
                assert good.json()["result"]["protocolVersion"]
            # the attacker's sockets beyond its per-peer share were answered 503 and closed
            answers = await bound(asyncio.gather(*(reader.read() for reader, _ in pairs[-50:])))
            assert all(b" 503 " in answer.split(b"\r\n", 1)[0] for answer in answers), answers[0]
        finally:
            for _, writer in pairs:
                writer.close()


async def test_a_trickled_header_is_cut_at_the_header_deadline() -> None:
    async with server_process("--header-timeout", "1.0") as url:
        port = int(url.rsplit(":", 1)[1])
        reader, writer = await _slow_socket(port)
        silent_reader, silent_writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(ATTACKER, 0), family=socket.AF_INET
        )

        async def trickle() -> None:
            while not writer.is_closing():  # one byte every 0.1 s: each read alone is quick
                writer.write(b"a")
                await writer.drain()
                await asyncio.sleep(0.1)

        trickler = asyncio.create_task(trickle())
        try:
            async with httpx.AsyncClient(base_url=url) as http:  # served meanwhile
                health = await bound(http.get("/healthz"))
                assert health.status_code == 200
            answer = await bound(reader.read(), 5.0)  # a total deadline, not a per-read one
            assert answer.startswith(b"HTTP/1.1 408 "), answer
            assert await bound(silent_reader.read(), 5.0) == b""  # sent nothing: just closed
        finally:
            trickler.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await trickler
            writer.close()
            silent_writer.close()


async def test_a_kept_alive_connection_idle_between_requests_is_not_cut() -> None:
    """The deadline covers headers only: the pause between two requests on one connection is
    uvicorn's keep-alive (30 s), not the header deadline (1 s here)."""
    async with server_process("--header-timeout", "1.0") as url:
        port = int(url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        try:
            for _ in range(2):
                writer.write(request)
                await writer.drain()
                head = await bound(reader.readuntil(b"\r\n\r\n"))
                assert head.startswith(b"HTTP/1.1 200 "), head
                assert await bound(reader.readuntil(b"}"))
                await asyncio.sleep(1.5)  # the client idles past the header deadline on purpose
        finally:
            writer.close()


ADDRESSES: Final = tuple(f"127.0.0.{n}" for n in range(2, 14))
"""Twelve attacking peers: each stays under the per-peer cap, together they are many sockets."""


async def _trickler(port: int, address: str, stop: asyncio.Event, cuts: list[bytes]) -> None:
    """Hold one socket with a partial header; when the server cuts it, open another."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(address, 0), family=socket.AF_INET
            )
        except OSError:
            continue
        try:
            writer.write(PARTIAL_HEADER)
            await writer.drain()
            read = asyncio.ensure_future(reader.read())
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait((read, stopped), return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if read.done():
                cuts.append(read.result())
            else:
                read.cancel()
        except ConnectionError:
            cuts.append(b"")
        finally:
            writer.close()


async def _good_requests(url: str, count: int) -> list[int]:
    """``count`` complete requests from 127.0.0.1, each on a fresh connection."""
    statuses = []
    for _ in range(count):
        async with httpx.AsyncClient(base_url=url) as http:
            answer = await bound(http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH))
            statuses.append(answer.status_code)
    return statuses


async def test_trickling_sockets_from_many_addresses_do_not_take_serving_slots() -> None:
    """Issue 28: 12 addresses x 10 trickling sockets (each address under its cap) against a
    limit of 40 requests served at once; complete requests are still all answered, because
    only requests being served count against the limit, not sockets still sending headers."""
    per_address = 10
    _enough_descriptors(4 * len(ADDRESSES) * per_address)
    async with server_process("--uvicorn", "limit_concurrency=40") as url:
        port = int(url.rsplit(":", 1)[1])
        stop = asyncio.Event()
        cuts: list[bytes] = []
        attackers = [
            asyncio.create_task(_trickler(port, address, stop, cuts))
            for address in ADDRESSES
            for _ in range(per_address)
        ]
        try:
            async with httpx.AsyncClient(base_url=url) as http:  # every trickler is connected
                await bound(http.get("/healthz"))
            assert await _good_requests(url, 20) == [200] * 20
            assert cuts == []  # nobody had to be cut: the sockets are simply not counted
        finally:
            stop.set()
            await bound(asyncio.gather(*attackers, return_exceptions=True))


async def test_at_the_connection_cap_the_longest_waiting_socket_makes_room() -> None:
    """Issue 28: with room for 60 sockets and 96 tricklers reopening whenever cut, complete
    requests are served: a new connection cuts the one that waited longest for its headers
    (answered 408, it had sent part of a request)."""
    per_address = 8
    _enough_descriptors(4 * len(ADDRESSES) * per_address)
    async with server_process("--uvicorn", "max_connections=60") as url:
        port = int(url.rsplit(":", 1)[1])
        stop = asyncio.Event()
        cuts: list[bytes] = []
        attackers = [
            asyncio.create_task(_trickler(port, address, stop, cuts))
            for address in ADDRESSES
            for _ in range(per_address)
        ]
        try:
            assert await _good_requests(url, 20) == [200] * 20
            assert cuts, "the tricklers were never cut"
            assert all(cut.startswith(b"HTTP/1.1 408 ") for cut in cuts if cut), cuts[:3]
        finally:
            stop.set()
            await bound(asyncio.gather(*attackers, return_exceptions=True))

"""Kill the server process mid-stream, restart it on the same SQLite event store, and resume:
every message the dead process produced arrives, once, in order.

The server is a real process (``_asgi_servers.py``) so it can be SIGKILLed; the client speaks the
wire by hand, reading part of a stream, then reconnecting with ``Last-Event-ID`` to the new
process, which has never seen the session but finds the stream in the shared store.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import httpx
from _asgi_harness import LegacyPeer, bound, collect_sse, sse_messages

from mcpkit.client import Client
from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http import SQLiteEventStore

SERVER: Final = Path(__file__).with_name("_asgi_servers.py")
START_TIMEOUT_S: Final = 20.0
"""A cold Python start that imports mcpkit and uvicorn on a busy 2-core machine."""
STORE_POLL_S: Final = 0.02
"""Between two looks at the SQLite file for the last stored event (no event to wait on)."""
EVENTS: Final = 30
READ_BEFORE_KILL: Final = 5


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def _server(port: int, db: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """Start the server process; ready once it prints where it serves (bounded)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        "--port",
        str(port),
        "--event-store",
        str(db),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    seen: list[bytes] = []
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while b"mcpkit: serving" not in (line := await process.stderr.readline()):
                seen.append(line)
                assert line, f"the server exited before listening: {b''.join(seen)!r}"
        drain = asyncio.create_task(process.stderr.read())  # keep the log pipe from filling up
        try:
            yield process
        finally:
            drain.cancel()
    finally:
        if process.returncode is None:
            process.kill()
        await bound(process.wait())


async def _stored_until_closed(db: Path, session_id: str, after: str) -> int:
    """Wait (bounded) until the stream after ``after`` is complete in the store; its length."""
    async with SQLiteEventStore(db) as probe, asyncio.timeout(10):
        while True:
            replay = await probe.replay_after(session_id, after)
            if replay.closed:
                return len(replay.events)
            await asyncio.sleep(STORE_POLL_S)


async def test_server_killed_mid_stream_resumes_from_sqlite_after_restart(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    received: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        async with _server(port, db) as first:
            peer = LegacyPeer(http)
            await peer.initialize()
            assert peer.session_id is not None
            body = {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {
                    "name": "burst",
                    "arguments": {"count": EVENTS},
                    "_meta": {"progressToken": "b"},
                },
            }
            decoder = SSEDecoder()
            prime: str | None = None
            last_seen = ""
            with contextlib.suppress(httpx.HTTPError):
                async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
                    assert r.headers["content-type"] == "text/event-stream"
                    async for chunk in r.aiter_bytes():
                        for event in decoder.feed(chunk):
                            prime = prime or event.id
                            if event.data and len(received) < READ_BEFORE_KILL:
                                received.append(decode_json(event.data))
                                last_seen = event.id or ""
                        if len(received) >= READ_BEFORE_KILL:
                            break
                    assert prime is not None and last_seen
                    # everything the tool produced is on disk, though we stopped reading: kill now
                    stored = await _stored_until_closed(db, peer.session_id, prime)
                    assert stored == EVENTS + 1  # every progress event and the response
                    first.send_signal(signal.SIGKILL)
                    await bound(first.wait())
            assert first.returncode == -signal.SIGKILL

        async with _server(port, db):
            headers = peer.headers(accept="text/event-stream", **{"last-event-id": last_seen})
            async with http.stream("GET", "/mcp", headers=headers) as r:
                assert r.status_code == 200, await r.aread()
                rest = sse_messages(await bound(collect_sse(r)))
            # the new process has no such session: the client must initialize again
            again = await peer.post({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
            assert again.status_code == 404

    everything = received + rest
    progress = [
        m["params"]["progress"] for m in everything if m.get("method") == "notifications/progress"
    ]
    assert progress == list(range(1, EVENTS + 1))  # none lost, none twice, in order
    final = everything[-1]
    assert final["id"] == 7 and final["result"]["content"][0]["text"] == f"burst of {EVENTS}"


def _closed_post_streams(db: Path, session_id: str) -> list[str]:
    """Keys of the session's finished POST streams. The store has no listing API, so this reads
    its documented schema (``event_store_sqlite._SCHEMA``) read-only."""
    if not db.exists():  # created by the server on its first event
        return []
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as db_conn:
        try:
            rows = db_conn.execute(
                "SELECT key FROM mcpkit_streams WHERE session_id = ? AND closed = 1 "
                "AND stream_id LIKE 'post-%'",
                (session_id,),
            ).fetchall()
        except sqlite3.OperationalError:  # the schema is not there yet
            return []
    return [row[0] for row in rows]


async def test_mcpkit_client_resumes_across_a_server_restart(tmp_path: Path) -> None:
    """End to end with mcpkit's own client: the server closes the stream (polling), stores the
    rest, dies, comes back; the client's reconnect after ``retry`` gets everything."""
    db = tmp_path / "events.db"
    port = _free_port()
    progress: list[float] = []
    async with (
        _server(port, db) as first,
        Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", timeout=60) as client,
    ):
        session_id = client.negotiated.session_id
        assert session_id is not None
        call = asyncio.create_task(
            client.call_tool(
                "polled_burst",
                {"count": EVENTS, "retry_ms": 1500},
                progress_callback=lambda p, t, m: progress.append(p),
            )
        )
        async with asyncio.timeout(10):
            while not _closed_post_streams(db, session_id):  # noqa: ASYNC110  (another process)
                await asyncio.sleep(STORE_POLL_S)
        first.send_signal(signal.SIGKILL)  # before the client's reconnect (1.5 s after close)
        await bound(first.wait())
        async with _server(port, db):
            result = await bound(call, 60)
            assert result.content[0].text == f"polled burst of {EVENTS}"  # type: ignore[union-attr]
            assert progress == [float(n) for n in range(1, EVENTS + 1)]
            # the restarted process does not know the session: the client starts a new one
            tools = await bound(client.list_tools())
            assert "polled_burst" in {t.name for t in tools}


async def test_a_request_whose_process_died_ends_with_an_error_on_resume(tmp_path: Path) -> None:
    """The handler died with its process: resuming its stream on the restarted server replays
    what was stored and ends with a JSON-RPC error for the request (stored too: a second resume
    gets the same), not with a stream that ends without an answer."""
    db = tmp_path / "events.db"
    port = _free_port()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        async with _server(port, db) as first:
            peer = LegacyPeer(http)
            await peer.initialize()
            body = {
                "jsonrpc": "2.0",
                "id": "call-9",
                "method": "tools/call",
                "params": {"name": "poll", "arguments": {"retry_ms": 50}},
            }
            # ``poll`` closes the connection at once, then waits forever: the stream stays open
            async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
                events = await bound(collect_sse(r))
            prime = next(e.id for e in events if e.id)
            first.send_signal(signal.SIGKILL)
            await bound(first.wait())
        async with _server(port, db):
            headers = peer.headers(accept="text/event-stream", **{"last-event-id": prime})
            for _ in range(2):
                async with http.stream("GET", "/mcp", headers=headers) as r:
                    assert r.status_code == 200, await r.aread()
                    rest = sse_messages(await bound(collect_sse(r)))
                assert [m["id"] for m in rest] == ["call-9"], rest
                assert rest[0]["error"]["code"] == -32603
                assert "stopped before answering" in rest[0]["error"]["message"]

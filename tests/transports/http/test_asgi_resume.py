"""Resumable legacy streams: priming ids and ``retry``, server-side close (polling), ``GET`` +
``Last-Event-ID`` replaying that stream only, forged ids, both event stores."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from _asgi_harness import LegacyPeer, bound, collect_sse, running, sse_messages
from _asgi_servers import Probe, build_server

from mcpkit.protocol._sse import SSEEvent
from mcpkit.transports.http import EventStore, McpHttpApp, MemoryEventStore, SQLiteEventStore

StoreFactory = Callable[[Path], contextlib.AbstractAsyncContextManager[EventStore]]


@contextlib.asynccontextmanager
async def _memory(_: Path) -> AsyncIterator[EventStore]:
    yield MemoryEventStore()


@contextlib.asynccontextmanager
async def _sqlite(tmp: Path) -> AsyncIterator[EventStore]:
    async with SQLiteEventStore(tmp / "events.db") as store:
        yield store


STORES = [pytest.param(_memory, id="memory"), pytest.param(_sqlite, id="sqlite")]


def _app(probe: Probe, store: EventStore, **options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server(probe).http_app(event_store=store, **options)
    return app


def _call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": request_id}},
    }


async def _polled(
    http: httpx.AsyncClient, peer: LegacyPeer, body: dict[str, Any]
) -> list[SSEEvent]:
    """POST a call to the ``poll`` tool; the server closes the connection after priming."""
    async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
        assert r.headers["content-type"] == "text/event-stream"
        return await bound(collect_sse(r))


async def _resume(http: httpx.AsyncClient, peer: LegacyPeer, last_event_id: str) -> list[SSEEvent]:
    headers = peer.headers(accept="text/event-stream", **{"last-event-id": last_event_id})
    async with http.stream("GET", "/mcp", headers=headers) as r:
        assert r.status_code == 200, await r.aread()
        return await bound(collect_sse(r))


@pytest.mark.parametrize("factory", STORES)
async def test_polling_close_then_resume_while_running_and_after_the_end(
    factory: StoreFactory, tmp_path: Path
) -> None:
    async with factory(tmp_path) as store:
        probe = Probe()
        async with running(_app(probe, store)) as url, httpx.AsyncClient(base_url=url) as http:
            peer = LegacyPeer(http)
            await peer.initialize()
            first = await _polled(http, peer, _call(2, "poll", steps=3, retry_ms=40))
            # the priming event: an id, empty data, the reconnection delay; then the close
            assert len(first) == 1 and first[0].data == "" and first[0].id
            assert first[0].retry == 40
            await bound(probe.poll_closed.wait())
            resumed_live = await _resume_after_release(http, peer, first[0].id, probe)
            messages = sse_messages(resumed_live)
            assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2, 3]
            assert messages[-1]["id"] == 2 and "closed=True" in str(messages[-1]["result"])
            # resuming again from the start replays the same stream, now finished
            replayed = await _resume(http, peer, first[0].id)
            assert sse_messages(replayed) == messages
            assert [e.id for e in replayed] == [e.id for e in resumed_live if e.data]
            # and from the middle: only what came after
            middle = next(e.id for e in replayed if e.data)
            assert middle is not None
            assert sse_messages(await _resume(http, peer, middle)) == messages[1:]


async def _resume_after_release(
    http: httpx.AsyncClient, peer: LegacyPeer, last_event_id: str, probe: Probe
) -> list[SSEEvent]:
    """Resume while the handler still runs, then let it finish: events arrive live."""
    headers = peer.headers(accept="text/event-stream", **{"last-event-id": last_event_id})
    async with http.stream("GET", "/mcp", headers=headers) as r:
        assert r.status_code == 200
        probe.release.set()
        return await bound(collect_sse(r))


@pytest.mark.parametrize("factory", STORES)
async def test_replay_never_crosses_streams_or_sessions(
    factory: StoreFactory, tmp_path: Path
) -> None:
    async with factory(tmp_path) as store:
        probe = Probe()
        probe.release.set()
        async with running(_app(probe, store)) as url, httpx.AsyncClient(base_url=url) as http:
            peer, other = LegacyPeer(http), LegacyPeer(http)
            await peer.initialize()
            await other.initialize()
            one = (await _polled(http, peer, _call(2, "poll", steps=2)))[0].id
            two = (await _polled(http, peer, _call(3, "poll", steps=4)))[0].id
            assert one and two and one != two
            first = sse_messages(await _resume(http, peer, one))
            second = sse_messages(await _resume(http, peer, two))
            assert {m.get("id") for m in first} == {None, 2}
            assert [m["params"]["progress"] for m in first if "method" in m] == [1, 2]
            assert {m.get("id") for m in second} == {None, 3}
            assert [m["params"]["progress"] for m in second if "method" in m] == [1, 2, 3, 4]
            # another session may not read this session's stream, even with a genuine id
            foreign = await http.get(
                "/mcp", headers=other.headers(accept="text/event-stream", **{"last-event-id": one})
            )
            assert foreign.status_code == 400 and "unknown event id" in foreign.text
            forged = await http.get(
                "/mcp",
                headers=peer.headers(
                    accept="text/event-stream", **{"last-event-id": "AAAAAAAAAAAAAAAA.1"}
                ),
            )
            assert forged.status_code == 400
            garbage = await http.get(
                "/mcp",
                headers=peer.headers(accept="text/event-stream", **{"last-event-id": "../../etc"}),
            )
            assert garbage.status_code == 400
            nobody = await http.get(
                "/mcp",
                headers=peer.headers(
                    accept="text/event-stream", **{"mcp-session-id": "gone", "last-event-id": one}
                ),
            )
            assert nobody.status_code == 404


async def test_get_stream_is_primed_and_resumable(tmp_path: Path) -> None:
    store = MemoryEventStore()
    async with running(_app(Probe(), store)) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        headers = peer.headers(accept="text/event-stream")
        async with http.stream("GET", "/mcp", headers=headers) as stream:
            chunk = await bound(anext(stream.aiter_bytes()))
        prime = next(line for line in chunk.decode().splitlines() if line.startswith("id:"))
        last = prime.split(":", 1)[1].strip()
        # while no GET is open, the change is kept for the stream (it is resumable)
        await peer.call(2, "tools/call", {"name": "change", "arguments": {}})
        resume = peer.headers(accept="text/event-stream", **{"last-event-id": last})
        async with http.stream("GET", "/mcp", headers=resume) as stream:
            decoder_events: list[dict[str, Any]] = []
            from mcpkit.protocol._sse import SSEDecoder

            decoder = SSEDecoder()
            async for data in stream.aiter_bytes():
                decoder_events += sse_messages(decoder.feed(data))
                if decoder_events:
                    break
        assert decoder_events[0]["method"] == "notifications/tools/list_changed"


async def test_without_an_event_store_nothing_is_primed_and_close_stream_refuses() -> None:
    probe = Probe()
    probe.release.set()
    app: McpHttpApp = build_server(probe).http_app(sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        async with http.stream("POST", "/mcp", json=_call(2, "poll"), headers=peer.headers()) as r:
            events = await bound(collect_sse(r))
        assert all(e.id is None for e in events)
        assert "closed=False" in str(sse_messages(events)[-1]["result"])

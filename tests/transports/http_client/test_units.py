"""Small parts of the HTTP client on their own, and a leak check over a real connection."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import ConnectionBroken, ConnectionClosed, UsageError
from mcpkit.transports.http import HttpClientConnector, HttpClientOptions, connect_http_client
from mcpkit.transports.http._client.inbox import Inbox
from mcpkit.transports.http._client.scope import WorkScope
from mcpkit.transports.http._client.wire import is_modern_rejection, snippet
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Notification

from ._harness import WAIT, kit_argv, peer


def test_backoff_starts_at_the_servers_retry_and_doubles_up_to_the_cap() -> None:
    options = HttpClientOptions(reconnect_delay=1.0, max_reconnect_delay=5.0)
    assert [options.backoff(None, n) for n in range(4)] == [1.0, 2.0, 4.0, 5.0]
    assert [options.backoff(500, n) for n in range(3)] == [0.5, 1.0, 2.0]
    assert options.backoff(30_000, 3) == 30.0  # never shorter than what the server asked


@pytest.mark.parametrize(
    "bad",
    [
        {"reconnect_attempts": -1},
        {"reconnect_delay": 2.0, "max_reconnect_delay": 1.0},
        {"endpoint_timeout": 0},
        {"max_event_bytes": 0},
    ],
)
def test_options_refuse_nonsense(bad: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        HttpClientOptions(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["ftp://example.com/mcp", "not a url", "http://"])
async def test_only_http_urls(url: str) -> None:
    with pytest.raises(UsageError):
        async with connect_http_client(url):
            pass
    with pytest.raises(UsageError):
        HttpClientConnector(url)


async def test_own_httpx_client_takes_its_own_settings() -> None:
    async with httpx.AsyncClient() as http:
        with pytest.raises(UsageError, match="your own httpx"):
            async with connect_http_client(
                "http://127.0.0.1:1/mcp", http_client=http, headers={"a": "b"}
            ):
                pass
        async with connect_http_client("http://127.0.0.1:1/mcp", http_client=http) as transport:
            assert transport.http is http
        assert not http.is_closed  # not ours to close


def test_modern_rejections_are_recognised_by_status_and_code() -> None:
    def err(code: int) -> ErrorResponse:
        return ErrorResponse(1, ErrorObject(code, "x"))

    assert all(is_modern_rejection(400, err(code)) for code in (-32020, -32021, -32022))
    assert is_modern_rejection(404, err(-32601))
    assert not is_modern_rejection(400, err(-32600))  # a legacy server's complaint
    assert not is_modern_rejection(404, err(-32022))
    assert not is_modern_rejection(400, None)


def test_snippets_are_short_and_printable() -> None:
    assert snippet(b"") == "(empty body)"
    assert len(snippet(b"x" * 10_000)) < 300
    assert snippet("caf\xe9".encode("latin-1")) == repr("caf\ufffd")


async def test_inbox_delivers_in_order_then_the_failure() -> None:
    inbox = Inbox(2)
    await inbox.put(Notification("a"))
    await inbox.put(Notification("b"))
    blocked = asyncio.create_task(inbox.put(Notification("c")))  # full: waits
    await asyncio.sleep(0)
    assert not blocked.done()
    assert (await inbox.get()) == Notification("a")
    await blocked
    inbox.fail(ConnectionBroken("gone"))
    assert [await inbox.get(), await inbox.get()] == [Notification("b"), Notification("c")]
    with pytest.raises(ConnectionBroken, match="gone"):
        await inbox.get()


async def test_inbox_close_releases_waiting_producers_and_the_reader() -> None:
    inbox = Inbox(1)
    await inbox.put(Notification("a"))
    producer = asyncio.create_task(inbox.put(Notification("b")))
    await asyncio.sleep(0)
    inbox.close()
    async with asyncio.timeout(WAIT):
        await producer  # released, its item dropped
    assert await inbox.get() is None


async def test_scope_close_stops_work_with_connection_closed() -> None:
    scope = WorkScope("test scope")
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    work = asyncio.create_task(scope.run(forever()))
    await started.wait()
    await scope.aclose()
    with pytest.raises(ConnectionClosed, match="test scope was closed"):
        await work
    with pytest.raises(ConnectionClosed):
        await scope.run(forever())


async def test_scope_passes_the_callers_cancellation_through() -> None:
    scope = WorkScope("test scope")
    started = asyncio.Event()
    stopped = asyncio.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    work = asyncio.create_task(scope.run(forever()))
    await started.wait()
    work.cancel()
    with pytest.raises(asyncio.CancelledError):
        await work
    assert stopped.is_set()  # the HTTP work was stopped too (closing the connection)


async def test_no_task_outlives_the_client(tmp_path: Path) -> None:
    """Calls, a GET stream, a listen stream: after ``aclose`` nothing of ours is left running."""
    before = asyncio.all_tasks()
    async with peer(kit_argv(), tmp_path / "server.log") as server:
        for mode in ("auto", "legacy"):
            async with Client(server.url(), mode=mode) as client:
                await client.call_tool("add", {"a": 1, "b": 2})
                async with client.listen(tools=True) as changes:
                    await anext(changes)
            leftover = asyncio.all_tasks() - before - {asyncio.current_task()}
            assert not leftover, leftover

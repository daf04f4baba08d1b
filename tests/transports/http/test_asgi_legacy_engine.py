"""A legacy Streamable HTTP session runs on the same protocol engine as stdio and memory.

Every message the client POSTs to a session is fed to the session's
:class:`~mcpkit.protocol._connection.ServerConnection`, and every message the server writes to the
client leaves through its one send point: so an error the endpoint answers inside a session is
seen by the outbound observers with the session's revision (exactly once), a reused in-flight id
is the engine's -32600, and a server→client request the server stops waiting for is cancelled on
the wire (its late answer dropped), as on stdio.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
from _asgi_harness import LEGACY_VERSION, LegacyPeer, bound, call_body, running

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.server import Context, Server
from mcpkit.transports.http import McpHttpApp
from mcpkit.types._jsonrpc import ErrorResponse, Message

FORM = {"type": "object", "properties": {"name": {"type": "string"}}}
ELICIT_CAPS = {"elicitation": {"form": {}}}


class _Seen:
    """An outbound observer: every message the server is about to send, with its revision."""

    def __init__(self) -> None:
        self.messages: list[tuple[Message, str | None, str | None]] = []

    def __call__(self, message: Message, version: str | None, method: str | None) -> None:
        self.messages.append((message, version, method))

    def errors(self, code: int) -> list[tuple[ErrorResponse, str | None]]:
        return [
            (message, version)
            for message, version, _ in self.messages
            if isinstance(message, ErrorResponse) and message.error.code == code
        ]


@contextlib.contextmanager
def _observed() -> Iterator[_Seen]:
    seen = _Seen()
    add_outbound_observer(seen)
    try:
        yield seen
    finally:
        remove_outbound_observer(seen)


def _server() -> tuple[Server, asyncio.Event, asyncio.Event]:
    server = Server("legacy-engine")
    started = asyncio.Event()
    release = asyncio.Event()

    @server.tool
    async def hold() -> str:
        started.set()
        await release.wait()
        return "released"

    @server.tool
    async def add(a: int, b: int) -> int:
        return a + b

    @server.tool
    async def ask_briefly(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", FORM, timeout=0.3)
        return str(answer.action)

    @server.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", FORM)
        return str(answer.action)

    return server, started, release


def _app(server: Server, **options: Any) -> McpHttpApp:
    app: McpHttpApp = server.http_app(**options)
    return app


@contextlib.asynccontextmanager
async def _get_stream(peer: LegacyPeer) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
    """The session's GET stream, its JSON-RPC messages put on a queue as they arrive."""
    messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    opened = asyncio.Event()

    async def read() -> None:
        headers = peer.headers(accept="text/event-stream")
        async with peer.http.stream("GET", peer.path, headers=headers) as response:
            assert response.status_code == 200
            opened.set()
            decoder = SSEDecoder()
            async for chunk in response.aiter_bytes():
                for event in decoder.feed(chunk):
                    if event.data:
                        messages.put_nowait(decode_json(event.data))

    reader = asyncio.create_task(read())
    try:
        await bound(opened.wait())
        yield messages
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await reader


async def _next(messages: asyncio.Queue[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = await bound(messages.get())
    return message


async def test_an_error_answered_in_a_session_passes_its_send_point_with_its_revision() -> None:
    """The endpoint's own error answer inside a session (a version header naming another
    revision) is observed once, with the session's revision: shaped for it like any message."""
    server, _, _ = _server()
    async with running(_app(server)) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        with _observed() as seen:
            wrong = await peer.post(
                call_body(2, "add", a=1, b=2), **{"mcp-protocol-version": "2025-06-18"}
            )
        assert wrong.status_code == 400
        assert wrong.json()["error"]["code"] == -32600
        assert [version for _, version in seen.errors(-32600)] == [LEGACY_VERSION]


async def test_a_reused_in_flight_id_is_refused_by_the_engine_and_the_session_lives_on() -> None:
    server, started, release = _server()
    async with (
        running(_app(server, json_response=True)) as url,
        httpx.AsyncClient(base_url=url) as http,
    ):
        peer = LegacyPeer(http)
        await peer.initialize()
        first = asyncio.create_task(peer.post(call_body(7, "hold")))
        await bound(started.wait())
        with _observed() as seen:
            again = await peer.post(call_body(7, "add", a=1, b=2))
        assert again.status_code == 200  # a valid request refused in a legacy session: 200
        error = again.json()["error"]
        assert error["code"] == -32600 and "in flight" in error["message"], error
        assert [version for _, version in seen.errors(-32600)] == [LEGACY_VERSION]
        release.set()
        done = await bound(first)
        assert done.json()["result"]["content"][0]["text"] == "released"
        # the id is free again once answered, and the session still serves
        reused = await peer.post(call_body(7, "add", a=2, b=3))
        assert reused.json()["result"]["content"][0]["text"] == "5"


async def test_a_server_request_that_times_out_is_cancelled_and_its_late_answer_dropped() -> None:
    server, _, _ = _server()
    app = _app(server, json_response=True)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize(ELICIT_CAPS)
        async with _get_stream(peer) as stream:
            call = asyncio.create_task(peer.post(call_body(2, "ask_briefly")))
            asked = await _next(stream)
            assert asked["method"] == "elicitation/create"
            cancelled = await _next(stream)  # nobody answered within the tool's timeout
            assert cancelled["method"] == "notifications/cancelled"
            assert cancelled["params"]["requestId"] == asked["id"]
            answer = await bound(call)
            assert answer.status_code == 200
            assert "error" in answer.json() or answer.json()["result"]["isError"] is True
            late = {"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}}
            assert (await peer.post(late)).status_code == 202  # dropped, never answered
            bogus = {"jsonrpc": "2.0", "id": "no-such-request", "result": {}}
            assert (await peer.post(bogus)).status_code == 202
        sessions = app.endpoint.sessions
        assert sessions is not None
        state = await sessions.find(peer.session_id or "")
        assert state is not None and not state.engine.outbound
        again = await peer.post(call_body(3, "add", a=1, b=1))
        assert again.json()["result"]["content"][0]["text"] == "2"


async def test_a_cancelled_tool_call_cancels_the_question_it_was_waiting_on() -> None:
    server, _, _ = _server()
    app = _app(server, json_response=True)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize(ELICIT_CAPS)
        async with _get_stream(peer) as stream:
            call = asyncio.create_task(peer.post(call_body(4, "ask")))
            asked = await _next(stream)
            assert asked["method"] == "elicitation/create"
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 4, "reason": "user gave up"},
            }
            assert (await peer.post(cancel)).status_code == 202
            told = await _next(stream)
            assert told["method"] == "notifications/cancelled"
            assert told["params"]["requestId"] == asked["id"]
            answer = await bound(call)
            assert answer.content == b"" or "event-stream" in answer.headers["content-type"]
        await bound(app.wait_idle())
        sessions = app.endpoint.sessions
        assert sessions is not None
        state = await sessions.find(peer.session_id or "")
        assert state is not None
        assert not state.engine.outbound and not state.engine.inbound


async def test_no_question_goes_to_the_client_before_notifications_initialized() -> None:
    server, _, _ = _server()
    async with (
        running(_app(server, json_response=True)) as url,
        httpx.AsyncClient(base_url=url) as http,
    ):
        peer = LegacyPeer(http)
        response = await http.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY_VERSION,
                    "capabilities": ELICIT_CAPS,
                    "clientInfo": {"name": "early", "version": "1"},
                },
            },
            headers=peer.headers(),
        )
        peer.session_id = response.headers["mcp-session-id"]
        early = await peer.post(call_body(2, "ask"))  # before notifications/initialized
        assert early.status_code == 200
        result = early.json()["result"]
        assert result["isError"] is True
        assert "before the client sent notifications/initialized" in result["content"][0]["text"]


async def _hold_then_leave(app: McpHttpApp, peer: LegacyPeer, started: asyncio.Event) -> None:
    """POST a ``hold`` call, then hang up once it runs (and a task watches the connection)."""
    post = asyncio.create_task(peer.post(call_body(9, "hold")))
    await bound(started.wait())

    async def watched() -> None:  # a handler task, or an inline request's writer task
        while app.task_count < 1:  # noqa: ASYNC110  (no event to wait on)
            await asyncio.sleep(0.01)

    await bound(watched())
    post.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await post


async def test_a_disconnect_does_not_stop_a_session_request() -> None:
    """A client hanging up is not a cancellation in a legacy session (whether the handler runs
    in a task of its own or in the HTTP request's): the handler runs on, and the session's
    engine forgets the request once it is answered."""
    for options in ({"json_response": True}, {"sse_after": 30.0}):
        server, started, release = _server()
        app = _app(server, **options)
        async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
            peer = LegacyPeer(http)
            await peer.initialize()
            async with httpx.AsyncClient(base_url=url) as leaving:
                gone = LegacyPeer(leaving)
                gone.session_id, gone.version = peer.session_id, peer.version
                await _hold_then_leave(app, gone, started)
            sessions = app.endpoint.sessions
            assert sessions is not None
            state = await sessions.find(peer.session_id or "")
            assert state is not None and state.busy, options  # still running after the hang-up
            release.set()
            await bound(app.wait_idle())
            assert not state.engine.inbound, options
            again = await peer.post(call_body(9, "add", a=4, b=5))  # the id is free again
            assert again.json()["result"]["content"][0]["text"] == "9", options


async def test_ending_a_session_stops_its_running_request_without_an_answer() -> None:
    server, started, _ = _server()
    app = _app(server, sse_after=30.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        post = asyncio.create_task(peer.post(call_body(5, "hold")))
        await bound(started.wait())
        assert (await http.delete("/mcp", headers=peer.headers())).status_code == 200
        answer = await bound(post)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        assert b"jsonrpc" not in answer.content  # stopped: no JSON-RPC answer at all
        await bound(app.wait_idle())

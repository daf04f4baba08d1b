"""The legacy leg against scripted servers: session and version headers, DELETE, era detection
and the HTTP+SSE fallback decisions, resumption of a POST stream and of the GET stream with
``Last-Event-ID`` after ``retry``, and failures that must stay confined to one call.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import (
    MissingServerCapability,
    RemoteProtocolError,
    UnsupportedProtocolVersion,
)
from mcpkit.transports.http import HttpClientConnector, HttpClientOptions
from mcpkit.types._notifications import ToolListChangedNotification

from ._harness import WAIT, Receive, Send, end_body, respond, running, start_sse
from ._scripted import (
    INITIALIZE_RESULT,
    LEGACY,
    Scripted,
    Seen,
    accepted,
    answer,
    encode,
    error,
    result,
    status,
    wait_disconnect,
)

SESSION = "sess-1"
TEXT = {"content": [{"type": "text", "text": "ok"}]}


def legacy_routes(**overrides: Any) -> dict[str, Any]:
    routes: dict[str, Any] = {
        "server/discover": status(400, b"", None),
        "initialize": answer(INITIALIZE_RESULT, headers=(("mcp-session-id", SESSION),)),
        "notifications/initialized": accepted,
        "tools/list": answer({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        "tools/call": answer(TEXT),
        "GET": status(405, b"", None),
        "DELETE": status(200, b"", None),
    }
    routes.update(overrides)
    return routes


async def event(
    send: Send, data: bytes, event_id: str | None = None, retry: int | None = None
) -> None:
    lines = []
    if event_id is not None:
        lines.append(b"id: " + event_id.encode())
    if retry is not None:
        lines.append(b"retry: %d" % retry)
    lines.append(b"data: " + data)
    await send(
        {"type": "http.response.body", "body": b"\n".join(lines) + b"\n\n", "more_body": True}
    )


async def test_session_and_version_headers_then_delete() -> None:
    app = Scripted(legacy_routes())
    async with running(app) as base:
        async with Client(base + "/mcp", mode="legacy") as client:
            assert client.negotiated.session_id == SESSION
            await client.call_tool("t", {})
        (init,) = app.of("initialize")
        assert "mcp-protocol-version" not in init.headers
        assert "mcp-session-id" not in init.headers
        later = [s for s in app.seen if s.method not in ("initialize",)]
        assert later and all(s.headers.get("mcp-session-id") == SESSION for s in later)
        assert all(s.headers.get("mcp-protocol-version") == LEGACY for s in later)
        assert app.of("GET"), "the GET stream was tried (405: no stream, not an error)"
        (delete,) = app.of("DELETE")
        assert delete.headers["mcp-session-id"] == SESSION


@pytest.mark.parametrize(
    "refusal",
    [b"", error(None, -32600, "Bad Request: no session"), b"<html>Bad Request</html>"],
    ids=["empty", "jsonrpc-invalid-request", "html"],
)
async def test_a_probe_refused_without_a_modern_error_falls_back(refusal: bytes) -> None:
    app = Scripted(legacy_routes(**{"server/discover": status(400, refusal, "application/json")}))
    async with running(app) as base, Client(base + "/mcp") as client:
        assert client.era == "legacy"
    assert [s.method for s in app.seen[:2]] == ["server/discover", "initialize"]


async def test_initialize_refused_with_a_modern_error_is_not_a_fallback() -> None:
    refusal = error(None, -32022, "Unsupported", {"supported": ["2026-07-28"], "requested": LEGACY})
    app = Scripted(legacy_routes(initialize=status(400, refusal, "application/json")))
    async with running(app) as base:
        with pytest.raises(UnsupportedProtocolVersion):
            async with Client(base + "/mcp", mode="legacy"):
                pass
    assert not app.of("GET")  # a modern server: no HTTP+SSE attempt


async def test_neither_kind_of_endpoint_says_so() -> None:
    app = Scripted({})  # 404 for everything
    async with running(app) as base:
        with pytest.raises(RemoteProtocolError, match="neither a Streamable HTTP nor an HTTP"):
            async with Client(base + "/mcp", mode="legacy"):
                pass
    assert [s.http_method for s in app.seen] == ["POST", "GET"]


async def test_an_endpoint_on_another_origin_is_refused() -> None:
    async def sse(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        body = b"event: endpoint\ndata: http://evil.example:9/messages\n\n"
        await send({"type": "http.response.body", "body": body, "more_body": True})
        await wait_disconnect(receive, asyncio.Event())

    app = Scripted({"POST": status(405, b"", None), "GET": sse})
    async with running(app) as base:
        with pytest.raises(RemoteProtocolError, match="another origin"):
            async with Client(base + "/sse", mode="legacy"):
                pass


async def test_a_malformed_session_id_is_refused() -> None:
    app = Scripted(
        legacy_routes(initialize=answer(INITIALIZE_RESULT, headers=(("mcp-session-id", "bad id"),)))
    )
    async with running(app) as base:
        with pytest.raises(RemoteProtocolError, match="malformed Mcp-Session-Id"):
            async with Client(base + "/mcp", mode="legacy"):
                pass


async def test_a_garbage_answer_fails_only_that_call() -> None:
    calls = 0

    async def flaky(seen: Seen, receive: Receive, send: Send) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await respond(send, 200, b"{garbage")
        else:
            await respond(send, 200, result(seen, TEXT))

    app = Scripted(legacy_routes(**{"tools/call": flaky}))
    async with running(app) as base, Client(base + "/mcp", mode="legacy") as client:
        with pytest.raises(RemoteProtocolError, match="garbage"):
            await client.call_tool("t", {})
        assert client.connected
        assert (await client.call_tool("t", {})).content[0].text == "ok"  # type: ignore[union-attr]


async def test_a_post_stream_is_resumed_with_last_event_id_after_retry() -> None:
    times: dict[str, float] = {}

    async def call(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await event(send, b"", event_id="p1", retry=150)  # priming
        times["closed"] = time.monotonic()
        await end_body(send)  # the server closes the connection (polling)

    async def resume(seen: Seen, receive: Receive, send: Send) -> None:
        times["resumed"] = time.monotonic()
        assert seen.headers.get("last-event-id") == "p1"
        call_id = app.of("tools/call")[0].id
        await start_sse(send)
        await event(send, encode({"jsonrpc": "2.0", "id": call_id, "result": TEXT}), event_id="p2")
        await end_body(send)

    app = Scripted(legacy_routes(**{"tools/call": call, "GET": resume}))
    options = HttpClientOptions(listen_stream=False)
    async with running(app) as base:
        target = HttpClientConnector(base + "/mcp", options=options)
        async with Client(target, mode="legacy") as client:
            outcome = await client.call_tool("t", {})
    assert outcome.content[0].text == "ok"  # type: ignore[union-attr]
    assert times["resumed"] - times["closed"] >= 0.15


async def test_a_stream_the_server_cannot_resume_fails_only_that_call() -> None:
    async def call(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await event(send, b"", event_id="p1", retry=10)
        await end_body(send)

    app = Scripted(legacy_routes(**{"tools/call": call, "GET": status(404, b"", None)}))
    async with running(app) as base:
        target = HttpClientConnector(base + "/mcp", options=HttpClientOptions(listen_stream=False))
        async with Client(target, mode="legacy") as client:
            with pytest.raises(RemoteProtocolError, match="cannot resume"):
                await client.call_tool("t", {})
            assert client.connected
            assert len(await client.list_tools()) == 1


async def test_the_get_stream_is_reopened_after_retry_with_last_event_id() -> None:
    gets: list[tuple[float, str | None]] = []
    changed = asyncio.Event()
    reopened = asyncio.Event()

    async def get(seen: Seen, receive: Receive, send: Send) -> None:
        gets.append((time.monotonic(), seen.headers.get("last-event-id")))
        await start_sse(send)
        if len(gets) == 2:
            reopened.set()
        if len(gets) == 1:
            await event(send, b"", event_id="g1", retry=120)
            note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            await event(send, encode(note), event_id="g2")
            await end_body(send)
            return
        await wait_disconnect(receive, asyncio.Event())

    def on_note(note: Any) -> None:
        if isinstance(note, ToolListChangedNotification):
            changed.set()

    app = Scripted(legacy_routes(GET=get))
    async with (
        running(app) as base,
        Client(base + "/mcp", mode="legacy", notification_handler=on_note),
    ):
        async with asyncio.timeout(WAIT):
            await changed.wait()
            await reopened.wait()
    (first_at, first_id), (second_at, second_id) = gets[:2]
    assert (first_id, second_id) == (None, "g2")
    assert second_at - first_at >= 0.12


async def test_an_unreachable_server_ends_an_idle_session() -> None:
    """Nothing pending, but the GET stream breaks and cannot be re-opened: the client learns the
    server is gone (so a host can restart it) instead of finding out at the next call."""
    listening = asyncio.Event()
    crash = asyncio.Event()

    async def get(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await event(send, b"", event_id="g1", retry=20)
        listening.set()
        await crash.wait()
        raise RuntimeError("the server dies")  # uvicorn drops the connection

    app = Scripted(legacy_routes(GET=get))
    async with running(app) as base:
        target = HttpClientConnector(base + "/mcp", options=HttpClientOptions(reconnect_attempts=2))
        client = Client(target, mode="legacy")
        await client.connect()
        async with asyncio.timeout(WAIT):
            await listening.wait()
    try:  # the server no longer accepts connections; now its open stream breaks too
        crash.set()
        async with asyncio.timeout(WAIT):
            await client.wait_disconnected()
        assert not client.connected
    finally:
        await client.aclose()


async def test_an_answer_on_the_get_stream_ends_the_resumption() -> None:
    """The call's own stream ends early, and the server sends the answer on the GET stream
    instead: the call completes as soon as it arrives, without waiting out ``retry``."""
    call_seen = asyncio.Event()

    async def call(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await event(send, b"", event_id="p1", retry=30_000)
        call_seen.set()
        await end_body(send)

    async def get(seen: Seen, receive: Receive, send: Send) -> None:
        if seen.headers.get("last-event-id"):
            await respond(send, 404, b"", None)  # a resume attempt would fail the call
            return
        await start_sse(send)
        await call_seen.wait()
        (called,) = app.of("tools/call")
        await event(send, result(called, TEXT), event_id="g1")
        await wait_disconnect(receive, asyncio.Event())

    app = Scripted(legacy_routes(**{"tools/call": call, "GET": get}))
    async with running(app) as base, Client(base + "/mcp", mode="legacy") as client:
        async with asyncio.timeout(WAIT):
            outcome = await client.call_tool("t", {})
        assert outcome.content[0].text == "ok"  # type: ignore[union-attr]
    assert not [s for s in app.of("GET") if s.headers.get("last-event-id")]


def expiring_routes(new_revision: str, new_capabilities: dict[str, Any]) -> dict[str, Any]:
    """The first session (``sess-1``, 2025-11-25) is forgotten at the first ``tools/call``; the
    replacement session (``sess-2``) negotiates ``new_revision`` with ``new_capabilities``."""
    initialized = 0

    async def initialize(seen: Seen, receive: Receive, send: Send) -> None:
        nonlocal initialized
        initialized += 1
        if initialized == 1:
            body, session = dict(INITIALIZE_RESULT), SESSION
        else:
            body = {**INITIALIZE_RESULT, "protocolVersion": new_revision}
            body["capabilities"] = new_capabilities
            session = "sess-2"
        await respond(send, 200, result(seen, body), headers=(("mcp-session-id", session),))

    async def call(seen: Seen, receive: Receive, send: Send) -> None:
        if seen.headers.get("mcp-session-id") == SESSION:
            await respond(send, 404, b"", None)  # the server forgot the first session
            return
        await respond(send, 200, result(seen, TEXT))

    return legacy_routes(initialize=initialize, **{"tools/call": call})


async def test_a_new_session_with_another_revision_updates_header_and_connection() -> None:
    """The replacement session's ``initialize`` goes through the connection's lifecycle: the
    revision it negotiates is the client's from then on, and the version header follows the
    connection (it was the transport's own copy, leaving the connection on the old one)."""
    app = Scripted(expiring_routes("2025-06-18", INITIALIZE_RESULT["capabilities"]))
    async with running(app) as base:
        async with Client(base + "/mcp", mode="legacy") as client:
            assert client.protocol_version == LEGACY
            await client.call_tool("t", {})
            assert client.protocol_version == "2025-06-18"
            await client.call_tool("t", {})
            after = client.protocol_version
        first, second = app.of("initialize")
        assert "mcp-session-id" not in second.headers
        assert "mcp-protocol-version" not in second.headers
        renewed = app.seen[app.seen.index(second) + 1 :]
        posts = [s for s in renewed if s.http_method == "POST"]
        assert [s.method for s in posts][:2] == ["notifications/initialized", "tools/call"]
        assert all(s.headers.get("mcp-session-id") == "sess-2" for s in renewed)
        assert all(s.headers.get("mcp-protocol-version") == after for s in renewed)
        before = app.seen[app.seen.index(first) + 1 : app.seen.index(second)]
        assert before and all(s.headers.get("mcp-protocol-version") == LEGACY for s in before)


async def test_the_new_sessions_capabilities_gate_what_is_sent() -> None:
    """The new verdict is the connection's: a replacement session without ``tools`` refuses the
    call that met the expiry, when it is sent again, with the local missing-capability error a
    fresh client would get, and the next ``tools/list`` too; neither is sent to anyone."""
    app = Scripted(expiring_routes(LEGACY, {}))
    async with running(app) as base:
        async with Client(base + "/mcp", mode="legacy") as client:
            with pytest.raises(MissingServerCapability) as refused:
                await client.call_tool("t", {})  # expires the first session
            assert refused.value.method == "tools/call"
            assert client.server_capabilities == {}
            with pytest.raises(MissingServerCapability):
                await client.list_tools()
        second = app.of("initialize")[1]
        later = [s.method for s in app.seen[app.seen.index(second) :]]
        assert "tools/call" not in later and "tools/list" not in later

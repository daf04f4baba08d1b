"""The 2026-07-28 leg against scripted servers: the exact headers sent, and every way an answer
can go wrong — HeaderMismatch (re-list, retry once), 404 + -32601, broken streams (re-sent with
a new id only when safe), a cancelled call closing its stream, garbage, wrong media types,
oversized events, HTTP errors without a JSON-RPC body, and an auth hook.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Generator
from typing import Any

import httpx
import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import (
    ConnectionBroken,
    ConnectionClosed,
    HeaderMismatch,
    MethodNotFound,
    RemoteProtocolError,
    RequestTimeout,
)
from mcpkit.protocol._http_headers import validate_request_headers
from mcpkit.transports.http import HttpClientConnector, HttpClientOptions, connect_http_client
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response

from ._harness import WAIT, Receive, Send, end_body, respond, running, sse_event, start_sse
from ._scripted import (
    DISCOVER_RESULT,
    MODERN,
    Scripted,
    Seen,
    answer,
    encode,
    error,
    result,
    status,
    wait_disconnect,
)

META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}
TEXT = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}


def tool(name: str, header: str | None = None, **annotations: Any) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": "string"}
    if header is not None:
        prop["x-mcp-header"] = header
    definition: dict[str, Any] = {
        "name": name,
        "inputSchema": {"type": "object", "properties": {"region": prop}},
    }
    if annotations:
        definition["annotations"] = annotations
    return definition


def listing(*tools: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "complete", "tools": list(tools)}


class Bearer(httpx.Auth):
    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


async def no_notes(note: Notification) -> None:
    raise AssertionError(f"unexpected {note.method}")


async def test_request_metadata_and_custom_headers() -> None:
    app = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": answer(listing(tool("weather", "Region"), tool("météo"))),
            "tools/call": answer(TEXT),
        }
    )
    async with running(app) as base:
        target = HttpClientConnector(
            base + "/mcp", headers={"X-Tenant": "acme"}, auth=Bearer("s3cret")
        )
        async with Client(target) as client:
            await client.list_tools()
            await client.call_tool("weather", {"region": "Zürich"})
            await client.call_tool("météo", {})
    weather, meteo = app.of("tools/call")
    h = weather.headers
    assert h["mcp-protocol-version"] == MODERN
    assert h["mcp-method"] == "tools/call"
    assert h["mcp-name"] == "weather"
    assert (
        h["mcp-param-region"] == "=?base64?" + base64.b64encode("Zürich".encode()).decode() + "?="
    )
    assert h["x-tenant"] == "acme" and h["authorization"] == "Bearer s3cret"
    assert h["user-agent"].startswith("mcpkit/")
    assert h["content-type"] == "application/json"
    assert "application/json" in h["accept"] and "text/event-stream" in h["accept"]
    assert (
        meteo.headers["mcp-name"]
        == "=?base64?" + base64.b64encode("météo".encode()).decode() + "?="
    )
    assert "mcp-param-region" not in meteo.headers  # absent argument: no header
    for seen in app.seen:  # what a 2026 server checks, on every request we sent
        schema = None
        if seen.method == "tools/call":
            schema = tool("weather", "Region")["inputSchema"]
        validate_request_headers(seen.headers, seen.body, tool_input_schema=schema)
    assert all(s.headers["mcp-method"] == s.method for s in app.seen)


async def test_header_mismatch_relists_the_tool_and_retries_once() -> None:
    current = {"header": "Region"}

    async def tools_list(seen: Seen, receive: Receive, send: Send) -> None:
        await respond(send, 200, result(seen, listing(tool("weather", current["header"]))))
        current["header"] = "Zone"  # the schema changes after the first listing

    async def tools_call(seen: Seen, receive: Receive, send: Send) -> None:
        schema = tool("weather", current["header"])["inputSchema"]
        try:
            validate_request_headers(seen.headers, seen.body, tool_input_schema=schema)
        except HeaderMismatch as exc:
            await respond(send, 400, error(seen, exc.code, exc.message))
            return
        await respond(send, 200, result(seen, TEXT))

    app = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": tools_list,
            "tools/call": tools_call,
        }
    )
    async with running(app) as base, Client(base + "/mcp") as client:
        await client.list_tools()
        outcome = await client.call_tool("weather", {"region": "eu"})
        assert outcome.content[0].text == "ok"  # type: ignore[union-attr]
    methods = [s.method for s in app.seen if s.method != "server/discover"]
    assert methods == ["tools/list", "tools/call", "tools/list", "tools/call"]
    first, second = app.of("tools/call")
    assert first.headers.get("mcp-param-region") == "eu"
    assert second.headers.get("mcp-param-zone") == "eu"
    assert first.id != second.id  # a retry is a new request

    # A server that keeps refusing gets exactly one retry, then the caller sees the error.
    current["header"] = "Other"

    async def stubborn_list(seen: Seen, receive: Receive, send: Send) -> None:
        await respond(send, 200, result(seen, listing(tool("weather", "Region"))))

    app2 = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": stubborn_list,
            "tools/call": tools_call,
        }
    )
    async with running(app2) as base, Client(base + "/mcp") as client:
        with pytest.raises(HeaderMismatch):
            await client.call_tool("weather", {"region": "eu"})
    assert len(app2.of("tools/call")) == 2


async def exchange(base: str, method: str, **options: Any) -> Response | ErrorResponse:
    async with connect_http_client(base + "/mcp", options=options.pop("options", None)) as http:
        return await http.exchange(
            Request(7, method, {"_meta": META}),
            protocol_version=MODERN,
            on_notification=options.pop("sink", no_notes),
        )


async def test_unknown_method_is_404_with_method_not_found() -> None:
    app = Scripted({"nope/nothing": status(404, error(None, -32601, "no such method"))})
    async with running(app) as base:
        answer_ = await exchange(base, "nope/nothing")
    assert isinstance(answer_, ErrorResponse)
    assert answer_.id == 7 and answer_.error.code == -32601  # the id-less body gets ours


async def test_unknown_method_through_the_client() -> None:
    app = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": status(404, error(None, -32601, "tools/list is not here")),
        }
    )
    async with running(app) as base, Client(base + "/mcp") as client:
        with pytest.raises(MethodNotFound, match="not here"):
            await client.list_tools()


async def broken_once(seen: Seen, receive: Receive, send: Send) -> None:
    """First attempt: a notification, then the stream ends without an answer."""
    if str(seen.id).endswith("-1"):
        await respond(send, 200, result(seen, listing(tool("look", readOnlyHint=True))))
        return
    await start_sse(send)
    note = {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "x"},
    }
    await sse_event(send, encode(note))
    await end_body(send)


async def test_a_broken_read_only_request_is_sent_again_with_a_new_id() -> None:
    app = Scripted({"server/discover": answer(DISCOVER_RESULT), "tools/list": broken_once})
    async with running(app) as base, Client(base + "/mcp") as client:
        tools = await client.list_tools()
    assert [t.name for t in tools] == ["look"]
    first, second = app.of("tools/list")
    assert second.id == f"{first.id}-1"


async def test_a_broken_tool_call_is_resent_only_if_the_tool_is_read_only() -> None:
    async def calls(seen: Seen, receive: Receive, send: Send) -> None:
        if str(seen.id).endswith("-1"):
            await respond(send, 200, result(seen, TEXT))
            return
        await start_sse(send)
        await end_body(send)  # no answer

    listed = listing(tool("look", readOnlyHint=True), tool("write"))
    app = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": answer(listed),
            "tools/call": calls,
        }
    )
    async with running(app) as base, Client(base + "/mcp") as client:
        assert (await client.call_tool("look", {})).content[0].text == "ok"  # type: ignore[union-attr]
        with pytest.raises(RemoteProtocolError, match="tools/call request was lost"):
            await client.call_tool("write", {})
    names = [s.params.get("name") for s in app.of("tools/call")]
    assert names == ["look", "look", "write"]


async def test_a_connection_dropped_mid_stream_is_connection_broken() -> None:
    async def crash(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await sse_event(send, b"")  # priming
        raise RuntimeError("the server process dies here")  # uvicorn drops the connection

    app = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": answer(listing(tool("write"))),
            "tools/call": crash,
        }
    )
    async with running(app) as base, Client(base + "/mcp") as client:
        with pytest.raises(ConnectionBroken, match="lost"):
            await client.call_tool("write", {})
        # Stateless HTTP: the next request is independent and works.
        assert [t.name for t in await client.list_tools()] == ["write"]


async def test_cancelling_a_call_closes_its_stream() -> None:
    disconnected = asyncio.Event()

    async def hold(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await sse_event(send, b"")
        await wait_disconnect(receive, disconnected)

    app = Scripted(
        {
            "server/discover": answer(DISCOVER_RESULT),
            "tools/list": answer(listing(tool("write"))),
            "tools/call": hold,
        }
    )
    async with running(app) as base, Client(base + "/mcp") as client:
        with pytest.raises(RequestTimeout):
            await client.call_tool("write", {}, timeout=0.3)
        async with asyncio.timeout(WAIT):
            await disconnected.wait()  # the server saw the close: that is the 2026 cancel


async def test_notifications_arrive_in_order_and_server_requests_are_ignored() -> None:
    async def chatty(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        for i in (1, 2):
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": i},
            }
            await sse_event(send, encode(note))
            ask = {"jsonrpc": "2.0", "id": 99, "method": "roots/list"}  # forbidden in 2026
            await sse_event(send, encode(ask))
        await sse_event(send, result(seen, {"resultType": "complete"}))
        await end_body(send)

    got: list[Notification] = []

    async def sink(note: Notification) -> None:
        got.append(note)

    app = Scripted({"x/chatty": chatty})
    async with running(app) as base:
        outcome = await exchange(base, "x/chatty", sink=sink)
    assert isinstance(outcome, Response) and outcome.id == 7
    assert [n.params["progress"] for n in got if n.params] == [1, 2]


BAD = {
    "garbage": status(200, b"{not json", "application/json"),
    "html": status(200, b"<html>hi</html>", "text/html"),
    "no-type": status(200, b"{}", None),
    "plain-500": status(500, b"upstream exploded", "text/plain"),
    "unauthorized": status(401, b"", None),
    "accepted": status(202),
    "notification-body": status(
        200, encode({"jsonrpc": "2.0", "method": "notifications/progress"}), "application/json"
    ),
}
EXPECTED = {
    "garbage": "not a JSON-RPC message",
    "html": "unexpected Content-Type 'text/html'",
    "no-type": "unexpected Content-Type 'none'",
    "plain-500": "HTTP 500 .*upstream exploded",
    "unauthorized": "HTTP 401 .*auth=",
    "accepted": "HTTP 202 with no body",
    "notification-body": "not a response",
}


@pytest.mark.parametrize("case", list(BAD))
async def test_unusable_answers_are_remote_protocol_errors(case: str) -> None:
    app = Scripted({f"bad/{case}": BAD[case]})
    async with running(app) as base:
        with pytest.raises(RemoteProtocolError, match=EXPECTED[case]):
            await exchange(base, f"bad/{case}")


async def test_garbage_inside_an_sse_stream() -> None:
    async def garbage(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await sse_event(send, b"{oops")
        await end_body(send)

    app = Scripted({"bad/sse": garbage})
    async with running(app) as base:
        with pytest.raises(RemoteProtocolError, match=r"not a JSON-RPC message.*oops"):
            await exchange(base, "bad/sse")


async def test_an_oversized_event_is_refused() -> None:
    async def huge(seen: Seen, receive: Receive, send: Send) -> None:
        await start_sse(send)
        await sse_event(send, result(seen, {"resultType": "complete", "blob": "x" * 4096}))
        await end_body(send)

    app = Scripted({"big/event": huge, "big/json": answer({"blob": "x" * 4096})})
    options = HttpClientOptions(max_event_bytes=1024)
    async with running(app) as base:
        with pytest.raises(RemoteProtocolError, match="larger than 1024 bytes"):
            await exchange(base, "big/event", options=options)
        with pytest.raises(RemoteProtocolError, match="1024-byte limit"):
            await exchange(base, "big/json", options=options)


async def test_closing_the_transport_stops_calls_in_flight() -> None:
    entered = asyncio.Event()

    async def never(seen: Seen, receive: Receive, send: Send) -> None:
        entered.set()
        await wait_disconnect(receive, asyncio.Event())

    app = Scripted({"x/never": never})
    async with running(app) as base, connect_http_client(base + "/mcp") as http:
        call = asyncio.create_task(
            http.exchange(
                Request(1, "x/never", {"_meta": META}),
                protocol_version=MODERN,
                on_notification=no_notes,
            )
        )
        async with asyncio.timeout(WAIT):
            await entered.wait()
        await http.aclose()
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(WAIT):
                await call

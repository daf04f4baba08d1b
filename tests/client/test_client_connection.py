"""The client runs on a ``ClientConnection``: the handshake lifecycle, the negotiated revision and
capability gating of both sides live in ``mcpkit.protocol``, and the real client obeys them.

The server here is the far end of an in-memory pair driven message by message by the test, so
each test sends exactly what a server would (including what a careless one would) and sees
exactly what the client wrote. "Nothing else was sent" is proven by the very next message.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Final

import pytest

from mcpkit.client import Client
from mcpkit.protocol._connection import ClientConnection
from mcpkit.protocol._errors import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    LocalProtocolError,
    MessageDecodeError,
    MissingServerCapability,
)
from mcpkit.protocol._lifecycle import ClientState
from mcpkit.transports._memory import MemoryStream, memory_pair
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    JSONObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
)

WAIT: Final = 10.0
VERSION: Final = "2025-06-18"


class PeerConnector:
    """A stream connector whose server end is driven by the test."""

    def __init__(self, stream: MemoryStream) -> None:
        self._stream = stream

    def describe(self) -> str:
        return "scripted peer"

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[MemoryStream]:
        yield self._stream


class Peer:
    """The server's end of the pair."""

    def __init__(self, stream: MemoryStream) -> None:
        self.stream = stream

    async def send(self, message: Message) -> None:
        await self.stream.send(message)

    async def receive(self) -> Message:
        item = await asyncio.wait_for(self.stream.receive(), WAIT)
        assert item is not None and not isinstance(item, MessageDecodeError), item
        return item

    async def ask(
        self, request_id: RequestId, method: str, params: JSONObject | None = None
    ) -> Any:
        """Send the client a request; the next message from it must be the answer."""
        await self.send(Request(request_id, method, params))
        answer = await self.receive()
        assert isinstance(answer, Response | ErrorResponse) and answer.id == request_id, answer
        return answer

    async def initialize(
        self, capabilities: JSONObject, *, early: tuple[Request, ...] = ()
    ) -> list[Any]:
        """Take the client's initialize, send ``early`` requests before its result, answer it,
        and take ``notifications/initialized``; returns the early requests' answers."""
        request = await self.receive()
        assert isinstance(request, Request) and request.method == "initialize", request
        answers: list[Any] = []
        for question in early:
            answers.append(await self.ask(question.id, question.method, question.params))
        result = {
            "protocolVersion": VERSION,
            "capabilities": capabilities,
            "serverInfo": {"name": "peer", "version": "1"},
        }
        await self.send(Response(request.id, result))
        initialized = await self.receive()
        assert isinstance(initialized, Notification), initialized
        assert initialized.method == "notifications/initialized"
        return answers

    async def next_is_ping(self, client: Client) -> None:
        """Prove nothing else was sent: the client's next message is this ping."""
        pinging = asyncio.ensure_future(client.ping())
        request = await self.receive()
        assert isinstance(request, Request) and request.method == "ping", request
        await self.send(Response(request.id, {}))
        await asyncio.wait_for(pinging, WAIT)


@contextlib.asynccontextmanager
async def legacy_client(
    capabilities: JSONObject, *, early: tuple[Request, ...] = (), **client_kwargs: Any
) -> AsyncIterator[tuple[Client, Peer, list[Any]]]:
    ours, theirs = memory_pair()
    peer = Peer(theirs)
    client = Client(PeerConnector(ours), mode="legacy", **client_kwargs)  # type: ignore[arg-type]
    connecting = asyncio.ensure_future(client.connect())
    try:
        answers = await peer.initialize(capabilities, early=early)
        await asyncio.wait_for(connecting, WAIT)
        yield client, peer, answers
    finally:
        connecting.cancel()
        await client.aclose()
        await theirs.aclose()


async def test_the_negotiated_revision_lives_in_the_connection() -> None:
    async with legacy_client({"tools": {}}) as (client, _, _):
        session = client._session
        assert session is not None
        connection = session.connection
        assert isinstance(connection, ClientConnection)
        assert connection.lifecycle.state is ClientState.OPERATING
        assert connection.protocol_version == VERSION
        assert client.protocol_version == session.protocol_version == VERSION
        assert connection.server_capabilities == client.server_capabilities == {"tools": {}}


async def test_a_request_before_the_initialize_result_is_refused_locally() -> None:
    ours, theirs = memory_pair()
    peer = Peer(theirs)
    client = Client(PeerConnector(ours), mode="legacy")  # type: ignore[arg-type]
    connecting = asyncio.ensure_future(client.connect())
    try:
        initialize = await peer.receive()
        assert isinstance(initialize, Request) and initialize.method == "initialize"
        session = client._session
        assert session is not None
        with pytest.raises(LocalProtocolError, match="before the initialize result"):
            await session.send_request("tools/list")
        # nothing was written: the next message after the result is notifications/initialized
        await peer.send(
            Response(
                initialize.id,
                {"protocolVersion": VERSION, "capabilities": {}, "serverInfo": {"name": "p"}},
            )
        )
        initialized = await peer.receive()
        assert isinstance(initialized, Notification)
        assert initialized.method == "notifications/initialized"
        await asyncio.wait_for(connecting, WAIT)
    finally:
        connecting.cancel()
        await client.aclose()
        await theirs.aclose()


async def test_a_server_request_before_the_initialize_result_is_refused() -> None:
    """Until the handshake completes the server may only ping; the connection answers anything
    else with -32600 (and the same request is served once the handshake is done)."""
    early = (Request("early-ping", "ping"), Request("early-roots", "roots/list"))
    async with legacy_client({}, early=early, roots=[{"uri": "file:///r"}]) as (
        _,
        peer,
        answers,
    ):
        pong, refused = answers
        assert isinstance(pong, Response)
        assert isinstance(refused, ErrorResponse) and refused.error.code == INVALID_REQUEST
        later = await peer.ask("later-roots", "roots/list")
        assert isinstance(later, Response)
        assert later.result == {"roots": [{"uri": "file:///r"}]}


@pytest.mark.parametrize(
    ("call", "needs"),
    [
        (lambda c: c.subscribe_resource("file:///a"), "resources.subscribe"),
        (lambda c: c.set_logging_level("debug"), "logging"),
        (lambda c: c.complete({"type": "ref/prompt", "name": "p"}, "a", "v"), "completions"),
        (lambda c: c.get_prompt("p"), "prompts"),
        (lambda c: c.list_prompts(), "prompts"),
        (lambda c: c.call_tool("t", output_validation="off"), "tools"),
    ],
    ids=["subscribe", "setLevel", "complete", "get_prompt", "list_prompts", "call_tool"],
)
async def test_a_capability_the_server_did_not_declare_is_refused_locally(
    call: Any, needs: str
) -> None:
    async with legacy_client({"resources": {}}) as (client, peer, _):
        with pytest.raises(MissingServerCapability, match=needs) as info:
            await call(client)
        assert info.value.capability == tuple(needs.split("."))
        await peer.next_is_ping(client)


@pytest.mark.parametrize(
    ("method", "params", "code", "says"),
    [
        (
            "sampling/createMessage",
            {"messages": [], "maxTokens": 5},
            METHOD_NOT_FOUND,
            "did not declare the 'sampling' capability",
        ),
        ("roots/list", None, METHOD_NOT_FOUND, "did not declare the 'roots' capability"),
        (
            "elicitation/create",
            {"mode": "url", "url": "https://x"},
            INVALID_PARAMS,
            "'url' mode (it declared: form)",
        ),
    ],
)
async def test_a_question_the_client_did_not_declare_gets_the_spec_s_error(
    method: str, params: JSONObject | None, code: int, says: str
) -> None:
    async def form_only(params: Any, context: Any) -> dict[str, Any]:
        raise AssertionError("the handler must not be asked")

    async with legacy_client({}, elicitation_handler=form_only) as (_, peer, _):
        answer = await peer.ask(7, method, params)
        assert isinstance(answer, ErrorResponse) and answer.error.code == code
        assert says in answer.error.message  # the connection's answer: no handler was asked


async def test_a_2026_server_may_send_the_client_no_request() -> None:
    """In 2026-07-28 a server's questions travel inside results; a request from it is answered
    -32601 by the connection, whatever the client declared."""
    ours, theirs = memory_pair()
    peer = Peer(theirs)

    async def never(params: Any, context: Any) -> dict[str, Any]:
        raise AssertionError("the handler must not be asked")

    client = Client(PeerConnector(ours), mode="2026-07-28", sampling_handler=never)  # type: ignore[arg-type]
    connecting = asyncio.ensure_future(client.connect())
    try:
        probe = await peer.receive()
        assert isinstance(probe, Request) and probe.method == "server/discover", probe
        discovered = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
        }
        await peer.send(Response(probe.id, discovered))
        await asyncio.wait_for(connecting, WAIT)
        assert client.era == "modern"
        assert client._channel is not None and client._channel.connection.modern
        answer = await peer.ask(11, "sampling/createMessage", {"messages": [], "maxTokens": 5})
        assert isinstance(answer, ErrorResponse) and answer.error.code == METHOD_NOT_FOUND
        assert "2026-07-28" in answer.error.message
    finally:
        connecting.cancel()
        await client.aclose()
        await theirs.aclose()

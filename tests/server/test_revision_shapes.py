"""The negotiated revision shapes everything a server sends (issue #11).

A feature-rich server (tests/server/fixtures/rich_server.py) is driven through the same
conversation in every revision, over memory and over a real stdio subprocess. Every message the
server sends is validated against that revision's official schema *and* the strict check that no
field outside the schema is present (tests/_schema_check.py): in process by the autouse
``schema_check`` fixture, for the subprocess from its wire log. On top, the test asserts what
each revision receives: the fields it lacks are gone, content types it lacks are converted, and
requests it cannot carry are refused to the tool author instead of being sent.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from _schema_check import SchemaCheck, check_message
from mcpkit._runtime.session import RequestContext, Session
from mcpkit._runtime.stream import MessageStream
from mcpkit.client import Client
from mcpkit.protocol._errors import JSONRPCError
from mcpkit.server import Context
from mcpkit.transports._stdio_client import StdioServerParameters, stdio_client
from mcpkit.transports.http._client.transport import connect_http_client
from mcpkit.types._versions import ALL_VERSIONS, LEGACY_VERSIONS

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
sys.path.insert(0, str(Path(__file__).parents[1] / "transports" / "http"))
import rich_server
from _asgi_harness import running  # a real uvicorn on loopback

FIXTURE = str(Path(__file__).parent / "fixtures" / "rich_server.py")
MODERN = "2026-07-28"
CAPABILITIES: dict[str, Any] = {
    "elicitation": {"form": {}, "url": {}},
    "sampling": {"tools": {}},
    "roots": {},
}
"""The client claims everything, so only the revision decides what the server may ask."""


def at_least(revision: str, first: str) -> bool:
    return ALL_VERSIONS.index(revision) >= ALL_VERSIONS.index(first)


async def answer(ctx: RequestContext) -> dict[str, Any]:
    method = ctx.request.method
    if method == "elicitation/create":
        if (ctx.request.params or {}).get("mode") == "url":
            return {"action": "accept"}
        return {"action": "accept", "content": {"name": "Ada"}}
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m1"}
    if method == "roots/list":
        return {"roots": []}
    raise AssertionError(f"unexpected request {method}")


class Conversation:
    """One client's requests in one revision (legacy: a session; modern: ``_meta`` per call)."""

    def __init__(self, session: Session, revision: str) -> None:
        self.session = session
        self.revision = revision

    async def start(self) -> dict[str, Any]:
        if self.revision == MODERN:
            return await self.call("server/discover")
        result = await self.session.send_request(
            "initialize",
            {
                "protocolVersion": self.revision,
                "capabilities": CAPABILITIES,
                "clientInfo": {"name": "shape-test", "version": "1"},
            },
        )
        assert result["protocolVersion"] == self.revision
        self.session.protocol_version = self.revision
        await self.session.send_notification("notifications/initialized")
        await self.call("logging/setLevel", {"level": "debug"})
        return result

    async def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.revision != MODERN:
            return await self.session.send_request(method, params)
        body = dict(params or {})
        body["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
            "io.modelcontextprotocol/clientInfo": {"name": "shape-test", "version": "1"},
            "io.modelcontextprotocol/logLevel": "debug",
            "progressToken": "p1",
        }
        return await self.session.send_request(method, body, protocol_version=MODERN)

    async def tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if self.revision != MODERN:
            params["_meta"] = {"progressToken": f"progress-{name}"}
        return await self.call("tools/call", params)


async def converse(session: Session, revision: str) -> None:
    """Every feature, with what ``revision`` must (not) receive asserted along the way."""
    talk = Conversation(session, revision)
    started = await talk.start()
    if revision != MODERN:
        capabilities = started["capabilities"]
        assert ("completions" in capabilities) == at_least(revision, "2025-03-26")
        assert "extensions" not in capabilities  # a 2026-07-28 field, 2025-11-25 included
        info = started["serverInfo"]
        assert ("title" in info) == at_least(revision, "2025-06-18")
        assert ("icons" in info) == at_least(revision, "2025-11-25")

    tools = {t["name"]: t for t in (await talk.call("tools/list"))["tools"]}
    weather = tools["weather"]
    assert ("annotations" in weather) == at_least(revision, "2025-03-26")
    assert ("title" in weather) == at_least(revision, "2025-06-18")
    assert ("outputSchema" in weather) == at_least(revision, "2025-06-18")
    assert ("icons" in weather) == at_least(revision, "2025-11-25")
    assert weather["inputSchema"]["required"] == ["city"]  # a user's schema is never trimmed

    forecast = await talk.tool("weather", {"city": "Oslo"})
    assert ("structuredContent" in forecast) == at_least(revision, "2025-06-18")
    assert "Oslo" in forecast["content"][0]["text"]

    media = (await talk.tool("media"))["content"]
    kinds = [block["type"] for block in media]
    audio_kind = "audio" if at_least(revision, "2025-03-26") else "text"
    link_kind = "resource_link" if at_least(revision, "2025-06-18") else "text"
    assert kinds == ["text", "image", audio_kind, link_kind, "resource"]
    if link_kind == "text":
        assert "file:///docs/readme.txt" in media[3]["text"]
    if audio_kind == "text":
        assert "audio/wav" in media[2]["text"] and "omitted" in media[2]["text"]

    resources = (await talk.call("resources/list"))["resources"]
    assert ("title" in resources[0]) == at_least(revision, "2025-06-18")
    templates = (await talk.call("resources/templates/list"))["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "file:///items/{item}"
    read = await talk.call("resources/read", {"uri": "file:///items/7"})
    assert read["contents"][0]["text"] == "item 7"

    prompts = (await talk.call("prompts/list"))["prompts"]
    assert ("title" in prompts[0]) == at_least(revision, "2025-06-18")
    prompt = await talk.call("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
    assert prompt["messages"][1]["content"]["type"] == link_kind
    completion = await talk.call(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "greet"},
            "argument": {"name": "name", "value": "A"},
        },
    )
    assert completion["completion"]["values"] == ["Ada", "Alan"]

    await questions(talk, revision)


async def questions(talk: Conversation, revision: str) -> None:
    """Requests the revision cannot carry are refused to the tool author, never sent."""
    cases = [
        ("sample_plain", "2024-11-05", "sampled:m1"),
        ("ask_form", "2025-06-18", "form:accept"),
        ("ask_url", "2025-11-25", "url:accept"),
        ("sample_tools", "2025-11-25", "sampled:m1"),
    ]
    for tool, since, expected in cases:
        if revision == MODERN:
            # 2026-07-28 asks by returning input_required (validated like any result)
            result = await talk.tool(tool)
            assert result["resultType"] == "input_required", tool
            continue
        if at_least(revision, since):
            result = await talk.tool(tool)
            assert result["content"][0]["text"] == expected, (tool, result)
        else:
            with pytest.raises(JSONRPCError) as caught:
                await talk.tool(tool)
            assert caught.value.code == -32600, tool
            message = caught.value.message
            assert "needs protocol revision" in message and revision in message, message


def read_wire_log(directory: Path) -> list[dict[str, Any]]:
    """What the subprocess logged it sent (MCPKIT_WIRE_LOG, one JSON line per message)."""
    return [
        msgspec.json.decode(line)
        for path in directory.glob("wire.*")
        for line in path.read_bytes().splitlines()
    ]


@contextlib.asynccontextmanager
async def memory_session() -> AsyncIterator[Session]:
    stream: MessageStream = rich_server.build().connect_in_memory()
    async with Session(stream, request_handler=answer, name="shape-memory") as session:
        yield session


@pytest.mark.parametrize("revision", ALL_VERSIONS)
async def test_every_revision_gets_its_own_shape_over_memory(
    revision: str, schema_check: SchemaCheck
) -> None:
    async with memory_session() as session:
        await converse(session, revision)
    # the strict schema check saw every message (a violation fails the test at teardown)
    assert schema_check.messages_checked > 20


@pytest.mark.parametrize("revision", ALL_VERSIONS)
async def test_every_revision_gets_its_own_shape_over_stdio(revision: str, tmp_path: Path) -> None:
    log = tmp_path / "wire"
    params = StdioServerParameters(sys.executable, [FIXTURE], env={"MCPKIT_WIRE_LOG": str(log)})
    async with (
        stdio_client(params) as stream,
        Session(stream, request_handler=answer, name="shape-stdio") as session,
    ):
        await converse(session, revision)
    sent = read_wire_log(tmp_path)
    methods = {entry["method"] for entry in sent}
    expected = {"tools/list", "tools/call", "resources/read", "prompts/get", "completion/complete"}
    assert expected <= methods, methods  # the server's wire log has the whole conversation
    if revision != MODERN:
        assert {"notifications/progress", "notifications/message"} <= methods
        assert "sampling/createMessage" in methods
        assert ("elicitation/create" in methods) == at_least(revision, "2025-06-18")
    violations = [
        v
        for entry in sent
        for v in check_message(entry["message"], entry["version"], entry["method"])
    ]
    assert violations == []
    versions = {entry["version"] for entry in sent if entry["method"] != "initialize"}
    assert versions == {revision}


@pytest.mark.parametrize("revision", LEGACY_VERSIONS)
async def test_every_legacy_revision_gets_its_own_shape_over_streamable_http(
    revision: str, schema_check: SchemaCheck
) -> None:
    """A real uvicorn on loopback; the server's answers, notifications and requests to the
    client leave through the HTTP send points (validated in process by ``schema_check``)."""
    app = rich_server.build().http_app()
    async with (
        running(app) as base,
        connect_http_client(f"{base}/mcp") as transport,
        transport.open_legacy_stream() as stream,
        Session(stream, request_handler=answer, name="shape-http") as session,
    ):
        await converse(session, revision)
    assert schema_check.messages_checked > 20


async def test_a_legacy_clients_initialize_carries_only_its_revisions_fields(
    schema_check: SchemaCheck,
) -> None:
    """``Client(extensions=...)`` in the handshake era: ``capabilities.extensions`` is a
    2026-07-28 field, so the ``initialize`` request (shaped for the revision it offers, and
    strictly checked for it) goes without it and the server never sees it."""
    server = rich_server.build()
    seen: list[dict[str, Any]] = []

    @server.tool
    def capabilities(ctx: Context) -> str:
        seen.append(dict(ctx.client_capabilities))
        return "ok"

    async with Client(server, mode="legacy", extensions={"com.example/x": {}}) as client:
        await client.call_tool("capabilities", {})
    assert seen and "extensions" not in seen[0], seen
    assert schema_check.messages_checked > 3

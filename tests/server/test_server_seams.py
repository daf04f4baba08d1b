"""Where a tool meets the client's capabilities and revision (issue #27), over real stdio (a
subprocess) and HTTP (uvicorn on loopback), in both eras where they apply.

* A tool raising "URL elicitation required" asks exactly as ``ctx.elicit_url()`` would: a
  client that did not declare URL elicitation gets the same refusal, never -32042 nor an
  ``inputRequests`` round it cannot answer.
* Elicitation answers are checked against a raw JSON Schema as they are against a type.
* A dataclass with a ``Literal`` field is a form.
* A 2025-06-18 session gets form schemas in its own words (no titled ``oneOf``, ``default`` on
  booleans only) and never a multi-select; a list-valued ``"type"`` is refused by name.
* A failed 2025-11-25 task says why (``statusMessage``); a ``ToolResult`` never becomes an
  ``outputSchema``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import pytest

from _loopback import serving
from mcpkit._runtime.session import RequestContext, Session
from mcpkit.client import Client, InputRequiredLoopExceeded, QuestionContext
from mcpkit.protocol._errors import (
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    MissingRequiredClientCapability,
    URLElicitationRequired,
    UsageError,
)
from mcpkit.server import Server, ToolResult
from mcpkit.transports._stdio_client import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
import seams_server

FIXTURE: Final = str(Path(__file__).parent / "fixtures" / "seams_server.py")
MODES: Final = ["2026-07-28", "legacy"]
TRANSPORTS: Final = ["stdio", "http"]
WAIT: Final = 10.0


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@contextlib.asynccontextmanager
async def client_for(transport: str, mode: str, **options: Any) -> AsyncIterator[Client]:
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            target: Any = [sys.executable, FIXTURE]
        else:
            base = await stack.enter_async_context(serving(seams_server.build().http_app()))
            target = f"{base}/mcp"
        yield await stack.enter_async_context(Client(target, mode=mode, timeout=WAIT, **options))


async def answer_with(content: dict[str, Any]) -> Any:
    async def handler(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": content}

    return handler


# -- "URL elicitation required" follows ctx.elicit_url()'s rule ----------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_url_required_is_refused_to_a_client_without_url_elicitation(
    transport: str, mode: str
) -> None:
    async def form_only(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        raise AssertionError("a client without URL mode must not be asked")

    async with client_for(transport, mode, elicitation_handler=form_only) as client:
        expected = MissingRequiredClientCapability if mode != "legacy" else InvalidRequest
        with pytest.raises(expected) as caught:
            await client.call_tool("needs_url")
    assert caught.value.code in (-32021, -32600)
    assert "URL elicitation required" in caught.value.message
    assert "url" in caught.value.message


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_url_required_reaches_a_client_that_declared_url_elicitation(
    transport: str, mode: str
) -> None:
    asked: list[Any] = []

    async def consent(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    async with client_for(
        transport, mode, elicitation_handler=consent, url_elicitation=True, max_input_rounds=2
    ) as client:
        if mode == "legacy":
            with pytest.raises(URLElicitationRequired):
                await client.call_tool("needs_url")
        else:
            # 2026: an input round asks it; this tool raises again on every retry
            with pytest.raises(InputRequiredLoopExceeded):
                await client.call_tool("needs_url")
            assert asked and asked[0].url == "https://example.com/login"


# -- elicitation answers are checked against a raw schema ----------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_raw_schema_answer_that_does_not_fit_never_reaches_the_body(
    transport: str, mode: str
) -> None:
    async def lying(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": {"age": -4}}  # minimum is 0: the client's check
        # passes the type, the server's catches the bound (both sides check the same schema)

    async with client_for(transport, mode, elicitation_handler=lying) as client:
        # the client does not send it (2026: UsageError; legacy: the server is told -32603,
        # which ends the call): the body never sees it
        with pytest.raises((UsageError, JSONRPCError)):
            await client.call_tool("ask_age")


async def test_the_server_checks_a_raw_schema_answer_itself() -> None:
    """A client that does not check (a raw peer) sends a string for an integer: -32602, and the
    tool body never runs with it."""
    requests: list[str] = []

    async def careless(ctx: RequestContext) -> dict[str, Any]:
        requests.append(ctx.request.method)
        return {"action": "accept", "content": {"age": "ten"}}

    params = StdioServerParameters(sys.executable, [FIXTURE])
    async with stdio_client(params) as stream, Session(stream, request_handler=careless) as s:
        await initialize(s, "2025-11-25")
        with pytest.raises(InvalidParams, match=r"\$\.age"):
            await s.send_request("tools/call", {"name": "ask_age", "arguments": {}})
    assert requests == ["elicitation/create"]


async def test_the_server_checks_typed_content_itself() -> None:
    """Content that does not fit the dataclass asked with is -32602 "does not fit" (sent by a
    raw peer: mcpkit's client would not send it)."""

    async def careless(ctx: RequestContext) -> dict[str, Any]:
        return {"action": "accept", "content": {"size": "xl"}}

    params = StdioServerParameters(sys.executable, [FIXTURE])
    async with stdio_client(params) as stream, Session(stream, request_handler=careless) as s:
        await initialize(s, "2025-11-25")
        with pytest.raises(InvalidParams, match="does not fit Order"):
            await s.send_request("tools/call", {"name": "ask_size", "arguments": {}})


async def test_the_server_checks_a_raw_schema_answer_in_2026_too() -> None:
    """The same careless answer in a 2026 retry's ``inputResponses``: -32602 naming the field."""
    params = StdioServerParameters(sys.executable, [FIXTURE])
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "seams-test", "version": "1"},
    }
    call = {"name": "ask_age", "arguments": {}, "_meta": meta}
    async with stdio_client(params) as stream, Session(stream) as session:
        first = await session.send_request("tools/call", call, protocol_version="2026-07-28")
        assert first["resultType"] == "input_required"
        (key,) = first["inputRequests"]
        retry = {
            **call,
            "inputResponses": {key: {"action": "accept", "content": {"age": "ten"}}},
            "requestState": first["requestState"],
        }
        with pytest.raises(InvalidParams, match=r"\$\.age"):
            await session.send_request("tools/call", retry, protocol_version="2026-07-28")


async def test_a_fitting_raw_schema_answer_reaches_the_body() -> None:
    async with client_for(
        "stdio", "legacy", elicitation_handler=await answer_with({"age": 40})
    ) as client:
        assert text_of(await client.call_tool("ask_age")) == "accept:{'age': 40}"


# -- a Literal field is a single-select --------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_dataclass_with_a_literal_field_is_a_form(transport: str, mode: str) -> None:
    seen: list[Any] = []

    async def pick(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        seen.append(params)
        return {"action": "accept", "content": {"size": "m"}}

    async with client_for(transport, mode, elicitation_handler=pick) as client:
        result = text_of(await client.call_tool("ask_size"))
    assert result == "accept:Order(size='m', gift=False)"
    size = seen[0].requested_schema.properties["size"]
    assert size["type"] == "string"
    assert sorted(size["enum"]) == ["l", "m", "s"]


# -- 2025-06-18 gets forms in its own words ------------------------------------------------------


async def initialize(session: Session, revision: str) -> None:
    result = await session.send_request(
        "initialize",
        {
            "protocolVersion": revision,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "seams-test", "version": "1"},
        },
    )
    assert result["protocolVersion"] == revision
    session.protocol_version = revision
    await session.send_notification("notifications/initialized")


@contextlib.asynccontextmanager
async def raw_session(transport: str, handler: Any) -> AsyncIterator[Session]:
    """A raw legacy session with the fixture (a stdio child, or its app on uvicorn)."""
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            params = StdioServerParameters(sys.executable, [FIXTURE])
            stream: Any = await stack.enter_async_context(stdio_client(params))
        else:
            from mcpkit.transports.http._client.transport import connect_http_client

            base = await stack.enter_async_context(serving(seams_server.build().http_app()))
            http = await stack.enter_async_context(connect_http_client(f"{base}/mcp"))
            stream = await stack.enter_async_context(http.open_legacy_stream())
        yield await stack.enter_async_context(Session(stream, request_handler=handler))


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
async def test_form_schemas_are_said_in_the_sessions_revision(
    revision: str, transport: str
) -> None:
    asked: list[dict[str, Any]] = []

    async def record(ctx: RequestContext) -> dict[str, Any]:
        asked.append(ctx.request.params or {})
        return {"action": "accept", "content": {"size": "s", "agree": True}}

    async with raw_session(transport, record) as s:
        await initialize(s, revision)
        result = await s.send_request("tools/call", {"name": "ask_rich", "arguments": {}})
        assert result["content"][0]["text"].startswith("accept:")
        if revision == "2025-06-18":
            with pytest.raises(InvalidRequest, match="multi-select"):
                await s.send_request("tools/call", {"name": "ask_multi", "arguments": {}})
        else:
            multi = await s.send_request("tools/call", {"name": "ask_multi", "arguments": {}})
            assert "isError" not in multi
    fields = asked[0]["requestedSchema"]["properties"]
    if revision == "2025-06-18":
        titled = {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}
        assert fields["size"] == titled
        assert fields["name"] == {"type": "string"}  # default: booleans only in 2025-06-18
        assert fields["agree"] == {"type": "boolean", "default": True}
        assert len(asked) == 1  # the multi-select was never sent
    else:
        assert fields == seams_server.RICH_FORM["properties"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_list_valued_type_is_refused_by_name(transport: str, mode: str) -> None:
    """The tool author's mistake is the tool's error, naming the field; the client is never
    asked (before: a TypeError from inside the schema check)."""
    asked: list[Any] = []

    async def record(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {}}

    async with client_for(transport, mode, elicitation_handler=record) as client:
        result = await client.call_tool("ask_nullable")
    assert result.is_error
    assert "elicitation field 'n'" in text_of(result) and "exactly one type" in text_of(result)
    assert asked == []


# -- failed tasks and ToolResult -----------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_failed_core_task_says_why(transport: str) -> None:
    async with client_for(transport, "legacy") as client:
        task = await client.call_tool_as_task("flaky")
        result = await task.result(timeout=WAIT)
        assert result.is_error
        info = await client.get_task(task.task_id or "")
    assert info.status == "failed"
    assert info.status_message == "the disk is full"


async def test_structured_output_never_publishes_the_tool_result_class() -> None:
    server = Server("t")

    def own() -> ToolResult:
        return ToolResult(content=[], structured_content={"n": 1})

    with pytest.raises(UsageError, match="ToolResult says for itself"):
        server.tool(own, structured_output=True)
    server.tool(own, name="own_plain")
    async with Client(server.connect_in_memory()) as client:
        (tool,) = await client.list_tools()
    assert tool.name == "own_plain" and tool.output_schema is None

"""What the conformance client does in each scenario, written against ``mcpkit.client.Client``.

Every scenario is an ordinary use of the public client API: connect (the era comes from the
revision the suite names), list, call, read. The suite's mock server judges the wire; these
functions additionally check the answers they get, so a scenario whose mock answers something
unexpected fails here with a message instead of passing silently. They never work around the
library: what the wire looks like is the library's doing.

``SCENARIOS`` maps every client scenario of the suite's 2025-11-25 and 2026-07-28 requirement
sets (and the not-scored ``json-schema-2020-12-preservation``) to its steps; every ``auth/*``
scenario runs :func:`authorized_tool_call` over an :class:`~mcpkit.contrib.auth.OAuthClient`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from _client_launch import Launch

from mcpkit.client import Client, QuestionContext
from mcpkit.types._content import TextContent
from mcpkit.types._tools import CallToolResult, Tool

__all__ = [
    "SCENARIOS",
    "Scenario",
    "ScenarioFailed",
    "accept_elicitation",
    "authorized_tool_call",
    "find_scenario",
    "sample_arguments",
]

SAMPLE_STRING: Final = "us-west1"
SAMPLE_INTEGER: Final = 1
SAMPLE_NUMBER: Final = 1.5
_SAMPLES: Final[Mapping[Any, Any]] = {
    "boolean": True,
    "string": SAMPLE_STRING,
    "integer": SAMPLE_INTEGER,
    "number": SAMPLE_NUMBER,
}
AUTH_TOOL: Final = "test-tool"
"""The one tool behind every ``auth/*`` mock resource server."""


class ScenarioFailed(Exception):
    """The server answered, but not what the scenario says it answers."""


Steps = Callable[[Client, Launch], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Scenario:
    """How to run one scenario: its steps, and whether the client answers elicitation."""

    steps: Steps
    answers_elicitation: bool = False


# -- helpers -----------------------------------------------------------------------------------


async def accept_elicitation(params: Any, ctx: QuestionContext) -> dict[str, Any]:
    """A user who accepts every form: the schema's defaults stand (the library fills them in,
    SEP-1034), and a field without a default gets an agreeable value of its type."""
    schema = getattr(params, "requested_schema", None) or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    content: dict[str, Any] = {}
    for name, prop in (properties or {}).items():
        if name in ctx.defaults or not isinstance(prop, Mapping):
            continue
        value = _agreeable(prop)
        if value is not None:
            content[name] = value
    return {"action": "accept", "content": content}


def _agreeable(prop: Mapping[str, Any]) -> Any:
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    return _SAMPLES.get(prop.get("type"))


def sample_arguments(tool: Tool) -> dict[str, Any]:
    """Values for a tool's required parameters, by declared type (strings get a region name)."""
    schema = tool.input_schema
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return {}
    arguments: dict[str, Any] = {}
    for name in required:
        prop = properties.get(name)
        if isinstance(prop, Mapping):
            arguments[name] = _agreeable(prop)
    return arguments


def text_of(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise ScenarioFailed(message)


async def call_expecting(
    client: Client, name: str, arguments: Mapping[str, Any], expected_text: str
) -> None:
    result = await client.call_tool(name, arguments)
    text = text_of(result)
    expect(
        not result.is_error and text == expected_text,
        f"tools/call {name}: expected {expected_text!r}, got {text!r} (isError={result.is_error})",
    )


def tools_by_name(tools: list[Tool]) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools}


# -- scenarios ---------------------------------------------------------------------------------


async def handshake_only(client: Client, launch: Launch) -> None:
    """``initialize``: the handshake is the scenario. The mock declares no capabilities, so
    listing tools would be a request the server never offered; the client stops here."""
    expect(client.era == "legacy", f"expected the initialize handshake, got era {client.era}")
    expect(bool(client.server_info.get("name")), "initialize returned no serverInfo.name")


async def negotiated_only(client: Client, launch: Launch) -> None:
    """``request-metadata``: the first request is refused with -32022 and the client must
    retry at a version the server lists; connecting is that exchange. The mock declares no
    capabilities, so nothing else is asked (every further request would repeat the checks)."""
    expect(
        client.protocol_version == launch.protocol_version,
        f"negotiated {client.protocol_version}, expected {launch.protocol_version}",
    )


async def add_numbers(client: Client, launch: Launch) -> None:
    tools = tools_by_name(await client.list_tools())
    expect("add_numbers" in tools, f"tools/list has no add_numbers: {sorted(tools)}")
    await call_expecting(client, "add_numbers", {"a": 5, "b": 3}, "The sum of 5 and 3 is 8")


async def elicitation_defaults(client: Client, launch: Launch) -> None:
    name = "test_client_elicitation_defaults"
    tools = tools_by_name(await client.list_tools())
    expect(name in tools, f"tools/list has no {name}: {sorted(tools)}")
    result = await client.call_tool(name, {})
    expect(not result.is_error, f"{name} failed: {text_of(result)!r}")


async def reconnecting_call(client: Client, launch: Launch) -> None:
    """``sse-retry``: the call's SSE stream ends before its result; the transport must resume
    it with GET + ``Last-Event-ID`` after the server's ``retry`` delay."""
    await client.list_tools()
    await call_expecting(
        client, "test_reconnection", {}, "Reconnection test completed successfully"
    )


async def request_state(client: Client, launch: Launch) -> None:
    """SEP-2322 (MRTR): echo ``requestState`` byte for byte, omit it when absent, keep calls
    isolated, and treat a result without ``resultType`` as complete."""
    tools = tools_by_name(await client.list_tools())
    expected = {
        "test_mrtr_echo_state": "echo-state-ok",
        "test_mrtr_no_state": "no-state-ok",
        "test_mrtr_unrelated": "unrelated-ok",
        "test_mrtr_no_result_type": "no-result-type-test-ok",
    }
    missing = sorted(set(expected) - set(tools))
    expect(not missing, f"tools/list lacks {missing}")
    for name, text in expected.items():
        await call_expecting(client, name, {}, text)


async def standard_headers(client: Client, launch: Launch) -> None:
    """SEP-2243 standard headers: one request of every kind (``Mcp-Method``; ``Mcp-Name`` for
    calls, reads and prompts, with the URI exactly as listed)."""
    tools = await client.list_tools()
    expect(bool(tools), "tools/list is empty")
    for tool in tools:
        await client.call_tool(tool.name, sample_arguments(tool))
    resources = await client.list_resources()
    expect(bool(resources), "resources/list is empty")
    for resource in resources:
        await client.read_resource(resource.uri)
    prompts = await client.list_prompts()
    expect(bool(prompts), "prompts/list is empty")
    for prompt in prompts:
        await client.get_prompt(prompt.name, {})


async def custom_headers(client: Client, launch: Launch) -> None:
    """SEP-2243 ``x-mcp-header``: make exactly the calls the context lists; the transport
    mirrors annotated parameters into ``Mcp-Param-*`` headers."""
    calls = launch.context.get("toolCalls")
    if not isinstance(calls, list) or not calls:
        raise ScenarioFailed("http-custom-headers needs toolCalls in MCP_CONFORMANCE_CONTEXT")
    tools = tools_by_name(await client.list_tools())
    for call in calls:
        name, arguments = call.get("name"), call.get("arguments") or {}
        expect(name in tools, f"context asks for tool {name!r}, not listed: {sorted(tools)}")
        await client.call_tool(name, arguments)


async def valid_tools_only(client: Client, launch: Launch) -> None:
    """Tools with invalid ``x-mcp-header`` annotations must be dropped by the client: call every
    tool the client still lists, so one it failed to drop shows up as a call the mock rejects."""
    tools = await client.list_tools()
    names = [tool.name for tool in tools]
    expect("valid_tool" in names, f"the client dropped valid_tool: {names}")
    for tool in tools:
        await client.call_tool(tool.name, sample_arguments(tool))


async def ref_without_fetching(client: Client, launch: Launch) -> None:
    """SEP-2106: a network ``$ref`` in an inputSchema is never fetched. List the tool and check
    arguments against its schema locally (compiling it is where a fetch would happen)."""
    tools = tools_by_name(await client.list_tools())
    expect("lookup_user" in tools, f"tools/list has no lookup_user: {sorted(tools)}")
    await client.check_arguments("lookup_user", {"id": "user-1"})


async def schema_echo(client: Client, launch: Launch) -> None:
    """Not scored: send ``json_schema_2020_12_tool``'s inputSchema back verbatim."""
    tools = tools_by_name(await client.list_tools())
    source = tools.get("json_schema_2020_12_tool")
    if source is None:
        raise ScenarioFailed(f"tools/list has no json_schema_2020_12_tool: {sorted(tools)}")
    result = await client.call_tool("json_schema_echo", {"schema": source.input_schema})
    expect(not result.is_error, f"json_schema_echo failed: {text_of(result)!r}")


async def authorized_tool_call(client: Client, launch: Launch) -> None:
    """Every ``auth/*`` scenario: the OAuth flow runs inside the HTTP requests (401 → discover,
    register, authorize, token; 403 → step up). Connecting, listing and calling the tool make
    the authenticated requests the scenarios look for (AS migration needs two or more)."""
    tools = tools_by_name(await client.list_tools())
    if AUTH_TOOL in tools:
        await call_expecting(client, AUTH_TOOL, {}, "test")


SCENARIOS: Final[Mapping[str, Scenario]] = {
    "initialize": Scenario(handshake_only),
    "tools_call": Scenario(add_numbers),
    "elicitation-sep1034-client-defaults": Scenario(elicitation_defaults, answers_elicitation=True),
    "sse-retry": Scenario(reconnecting_call),
    "request-metadata": Scenario(negotiated_only),
    "sep-2322-client-request-state": Scenario(request_state, answers_elicitation=True),
    "http-standard-headers": Scenario(standard_headers),
    "http-custom-headers": Scenario(custom_headers),
    "http-invalid-tool-headers": Scenario(valid_tools_only),
    "json-schema-ref-no-deref": Scenario(ref_without_fetching),
    "json-schema-2020-12-preservation": Scenario(schema_echo),
}
AUTH_SCENARIO: Final = Scenario(authorized_tool_call)


def find_scenario(name: str) -> Scenario | None:
    """The steps for ``name``; every ``auth/*`` name shares one flow. ``None`` if unknown."""
    if name.startswith("auth/"):
        return AUTH_SCENARIO
    return SCENARIOS.get(name)

"""The "everything" fixture server the official conformance suite tests, built with mcpkit.

Run: ``python tests/conformance/everything_server.py --port N`` (serves ``/mcp`` on 127.0.0.1).
Names, texts and shapes follow docs/notes/conformance.md (read from the suite's own scenarios).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import struct
import zlib
from typing import Annotated, Any

from mcpkit.protocol._errors import InternalError
from mcpkit.server import Context, Header, Message, Question, Server, ToolError, content
from mcpkit.server.tasks import start_task
from mcpkit.types import CreateMessageResult, TextContent, to_wire

# A real 1x1 PNG and a real (silent) 8 kHz WAV, built here rather than pasted as opaque base64.


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\x00\x00\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _wav() -> bytes:
    samples = b"\x00\x00" * 80
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


PNG = _png()
WAV = _wav()
PNG_B64 = base64.b64encode(PNG).decode()

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}

server = Server(
    "mcpkit-everything",
    "1.0.0",
    description="mcpkit's conformance fixture",
    instructions="A server that exercises every MCP feature for the conformance suite.",
    tasks=True,
)

# -- tools: content -----------------------------------------------------------------------------


@server.tool
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> list[dict[str, Any]]:
    """Returns an image."""
    return [content.image(PNG, "image/png")]


@server.tool
def test_audio_content() -> list[dict[str, Any]]:
    """Returns audio."""
    return [content.audio(WAV, "audio/wav")]


@server.tool
def test_embedded_resource() -> list[dict[str, Any]]:
    """Returns an embedded resource."""
    return [
        content.embedded_text(
            "test://embedded-resource", "This is an embedded resource content.", "text/plain"
        )
    ]


@server.tool
def test_multiple_content_types() -> list[dict[str, Any]]:
    """Returns text, an image and a resource."""
    return [
        content.text("Multiple content types test:"),
        content.image(PNG, "image/png"),
        content.embedded_text(
            "test://mixed-content-resource",
            json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
            "application/json",
        ),
    ]


@server.tool
def test_error_handling() -> str:
    """Always fails, as a tool error."""
    raise ToolError("This tool intentionally returns an error for testing")


# -- tools: logging and progress ----------------------------------------------------------------


@server.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Logs three messages while it runs."""
    await ctx.info("Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.info("Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Tool with logging executed successfully"


@server.tool
async def test_logging_tool(ctx: Context) -> str:
    """Logs only when the request asked for a log level (2026-07-28)."""
    await ctx.info("Logging tool ran")
    return "Logging tool executed"


@server.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50, 100 of 100."""
    await ctx.report_progress(0, 100)
    await asyncio.sleep(0.05)
    await ctx.report_progress(50, 100)
    await asyncio.sleep(0.05)
    await ctx.report_progress(100, 100)
    return "Progress test completed"


# -- tools: questions (legacy requests; MRTR in 2026) -------------------------------------------


def _sampled_text(result: CreateMessageResult) -> str:
    block = result.content
    return block.text if isinstance(block, TextContent) else json.dumps(to_wire(block))


@server.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's LLM."""
    answer = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {_sampled_text(answer)}"


@server.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a username and an email."""
    answer = await ctx.elicit(
        message,
        {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        },
    )
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicitation whose fields all carry defaults (SEP-1034)."""
    answer = await ctx.elicit(
        "Please review and update the form fields with defaults",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "description": "Verified", "default": True},
            },
            "required": [],
        },
    )
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicitation with the five enum forms (SEP-1330)."""
    answer = await ctx.elicit(
        "Please select options from the enum fields",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"],
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"},
                    ],
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"},
                        ]
                    },
                },
            },
            "required": [],
        },
    )
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


@server.tool(input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    """Tool with JSON Schema 2020-12 features"""
    return f"Received: {json.dumps(arguments, sort_keys=True)}"


@server.tool
async def test_reconnection(ctx: Context) -> str:
    """Closes its SSE stream mid-call; the result arrives after the client reconnects."""
    await ctx.close_stream(retry_ms=500)
    await asyncio.sleep(0.1)
    return "Reconnection test completed"


# -- tools: 2026-07-28 ---------------------------------------------------------------------------


@server.tool
async def test_missing_capability(ctx: Context) -> str:
    """Needs the client's sampling capability (-32021 without it)."""
    answer = await ctx.sample("ping", max_tokens=10)
    return f"sampled: {answer.model}"


@server.tool
async def test_streaming_elicitation(ctx: Context) -> str:
    """Asks a question: an InputRequiredResult in 2026, never a request on the stream."""
    answer = await ctx.elicit(
        "Streaming elicitation test",
        {"type": "object", "properties": {"value": {"type": "string"}}},
    )
    return f"action={answer.action}"


_TOGGLES = {"tool": 0, "prompt": 0}


def _dynamic_tool() -> str:
    return "dynamic"


def _dynamic_prompt() -> str:
    return "dynamic prompt"


@server.tool
def test_trigger_tool_change() -> str:
    """Adds or removes a tool, which announces tools/list_changed."""
    _TOGGLES["tool"] += 1
    if "dynamic_tool" in server._tools:
        server.remove_tool("dynamic_tool")
    else:
        server.tool(name="dynamic_tool", description="Appears and disappears")(_dynamic_tool)
    return "tool list changed"


@server.tool
def test_trigger_prompt_change() -> str:
    """Adds or removes a prompt, which announces prompts/list_changed."""
    if "dynamic_prompt" in server._prompts:
        server.remove_prompt("dynamic_prompt")
    else:
        server.prompt(name="dynamic_prompt", description="Appears and disappears")(_dynamic_prompt)
    return "prompt list changed"


@server.tool
def test_x_mcp_header(region: Annotated[str, Header("Region")]) -> str:
    """Echoes a parameter that is mirrored into the Mcp-Param-Region header."""
    return f"region={region}"


# -- tools: MRTR family (2026-07-28; the same bodies work as requests in legacy sessions) ------

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@server.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks for a name."""
    answer = await ctx.elicit("What is your name?", NAME_SCHEMA, key="user_name")
    name = answer.content.get("name") if answer.content else None
    if not isinstance(name, str):
        raise ToolError("user_name must be answered with a name")
    return f"Hello, {name}!"


@server.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Asks the client's LLM a question."""
    answer = await ctx.sample(
        "What is the capital of France?", max_tokens=100, key="capital_question"
    )
    return f"Sampling said: {_sampled_text(answer)}"


@server.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Asks for the client's roots."""
    roots = await ctx.list_roots(key="client_roots")
    return "Roots: " + ", ".join(str(r.get("uri")) for r in roots)


@server.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Needs a confirmation; the round trip carries a sealed requestState."""
    answer = await ctx.elicit(
        "Please confirm",
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        key="confirm",
    )
    return "state-ok: confirmed" if answer.accepted else "state-ok: declined"


@server.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Asks three things at once."""
    name, greeting, roots = await ctx.ask(
        Question.elicit("What is your name?", NAME_SCHEMA, key="user_name"),
        Question.sample("Generate a greeting", max_tokens=50, key="greeting"),
        Question.list_roots(key="client_roots"),
    )
    who = name.content.get("name") if name.content else "?"
    return f"{_sampled_text(greeting)} {who} ({len(roots)} roots)"


@server.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Two rounds: a name, then a colour."""
    first = await ctx.elicit("Step 1: What is your name?", NAME_SCHEMA, key="step1")
    second = await ctx.elicit(
        "Step 2: What is your favorite color?",
        {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]},
        key="step2",
    )
    name = first.content.get("name") if first.content else "?"
    color = second.content.get("color") if second.content else "?"
    return f"{name} likes {color}"


@server.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Like request_state; the suite tampers with the state."""
    answer = await ctx.elicit(
        "Please confirm",
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        key="confirm",
    )
    return f"confirmed: {answer.action}"


@server.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Asks only what the client declared it can answer."""
    questions = []
    if ctx.client_supports("elicitation"):
        questions.append(Question.elicit("What is your name?", NAME_SCHEMA, key="user_name"))
    if ctx.client_supports("sampling"):
        questions.append(Question.sample("Say hello", max_tokens=20, key="hello"))
    if ctx.client_supports("roots"):
        questions.append(Question.list_roots(key="client_roots"))
    if not questions:
        return "nothing to ask"
    answers = await ctx.ask(*questions)
    return f"answered {len(answers)} question(s)"


# -- resources -----------------------------------------------------------------------------------


@server.resource("test://static-text", name="static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (a PNG)."""
    return PNG


@server.resource("test://template/{id}/data", name="template", mime_type="application/json")
def template_data(id: str) -> str:
    """Data for an id."""
    return json.dumps(
        {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":")
    )


@server.resource("test://watched-resource", name="watched-resource", mime_type="text/plain")
def watched() -> str:
    """A resource clients can subscribe to."""
    return "Watched resource content"


# -- prompts -------------------------------------------------------------------------------------


@server.prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments.

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


EMBEDDED_TEXT = "Embedded resource content for testing."


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Message]:
    """A prompt that embeds a resource.

    Args:
        resourceUri: URI of the resource to embed
    """
    return [
        Message(
            content.embedded_text(
                resourceUri, "Embedded resource content for testing.", "text/plain"
            )
        ),
        Message("Please process the embedded resource above."),
    ]


@server.prompt
def test_prompt_with_image() -> list[Message]:
    """A prompt with an image."""
    return [Message(content.image(PNG, "image/png")), Message("Please analyze the image above.")]


@server.prompt
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that needs input first (MRTR on prompts/get)."""
    answer = await ctx.elicit(
        "What context should the prompt use?",
        {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]},
        key="user_context",
    )
    context = answer.content.get("context") if answer.content else ""
    return f"Use this context: {context}"


@server.completion(prompt="test_prompt_with_arguments", argument="arg1")
def complete_arg1(value: str, arguments: dict[str, str]) -> list[str]:
    return [v for v in ("test1", "test2", "testValue", "other") if v.startswith(value)]


# -- tools: Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28; the tasks-* scenarios) --

FAILING_JOB_SECONDS = 1.0
"""failing_job reports its tool error after about this long (the suite says "~1s")."""


@server.tool
def greet(name: str) -> str:
    """Greets someone; sync-only (never a task)."""
    return f"Hello, {name}!"


@server.tool(task_support="optional")
async def slow_compute(seconds: float = 1.0, label: str = "") -> str:
    """Sleeps `seconds` seconds, then reports; runs as a task when the client allows tasks."""
    await asyncio.sleep(seconds)
    return f"Computed {label or 'result'} after {seconds:g}s"


@server.tool(task_support="required")
async def failing_job() -> str:
    """Always ends with a tool execution error (isError) after about a second; task only."""
    await asyncio.sleep(FAILING_JOB_SECONDS)
    raise ToolError("failing_job failed, as it always does")


@server.tool(task_support="optional")
async def protocol_error_job() -> str:
    """Fails with a JSON-RPC error (a protocol error, so the task ends `failed`)."""
    await asyncio.sleep(0)
    raise InternalError("protocol_error_job hit an internal error on purpose")


@server.tool(task_support="optional")
async def confirm_delete(filename: str, ctx: Context) -> str:
    """Asks for confirmation (one elicitation), then reports the decision."""
    answer = await ctx.elicit(
        f"Delete {filename}?",
        {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
        key="confirm_delete",
    )
    confirmed = answer.accepted and bool((answer.content or {}).get("confirm"))
    return f"{'Deleted' if confirmed else 'Kept'} {filename}"


@server.tool(task_support="optional")
async def multi_input(ctx: Context) -> str:
    """Asks two questions at once, so two inputRequests are pending together."""
    name, confirm = await ctx.ask(
        Question.elicit("What is your name?", NAME_SCHEMA, key="name"),
        Question.elicit(
            "Proceed?",
            {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
            key="confirm",
        ),
    )
    who = (name.content or {}).get("name", "?")
    return f"name={who}, confirm={(confirm.content or {}).get('confirm')}"


@server.tool(task_support="required", task_start="explicit")
async def test_tool_with_task(ctx: Context) -> str:
    """Asks for a name by MRTR, then continues as a task that greets with it."""
    answer = await ctx.elicit("What is your name?", NAME_SCHEMA, key="user_name")
    await start_task(ctx)
    name = (answer.content or {}).get("name", "?")
    return f"Hello, {name}! (from a task)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=3001)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--event-store", default=None, help="SQLite path for resumability")
    parser.add_argument("--stdio", action="store_true", help="serve stdio (a gateway backend)")
    args = parser.parse_args()
    if args.stdio:
        server.run()
        return
    options: dict[str, Any] = {"host": args.host, "port": args.port}
    if args.event_store:
        options["event_store"] = args.event_store
    server.run("http", **options)


if __name__ == "__main__":
    main()

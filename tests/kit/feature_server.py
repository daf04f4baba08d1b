"""One server with every feature the cross-transport tests exercise.

Run as a script it serves itself: ``python feature_server.py`` on stdio,
``python feature_server.py --http --port N [--json | --sse]`` on loopback HTTP (``--json``:
every answer is ``application/json``; ``--sse``: every answer is an SSE stream). Tools wait on
the client (progress handlers, cancellation) instead of sleeping, so nothing here is timed.

The server runs in another process for stdio and HTTP, so whatever a test must check on the
server side comes back through the protocol: a tool answers with what it saw (the type an
elicitation answer was converted to, what the middleware saw), never a shared Python list.
Features are grouped by area (``_tools``, ``_questions``, ``_resources``, ``_prompts``); an
HTTP server is shared by a test module, so a tool that changes the server's lists takes the
name to add or remove from the test (a fresh one each time).
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import msgspec

from mcpkit.protocol._errors import ResourceNotFound, UsageError
from mcpkit.server import (
    Context,
    Message,
    RequestView,
    ResourceData,
    Server,
    ToolError,
    ToolResult,
    content,
)
from mcpkit.types import TextContent

SERVER_NAME = "kit-features"
SERVER_VERSION = "1.2.3"
INSTRUCTIONS = "Use add for sums."
PAGE_SIZE = 4
"""tools/list pages hold this many tools, so listing every tool takes several pages."""
EXTRA_TOOLS = 6
FILES_DIR = Path(__file__).with_name("files")
"""Served under ``file:///docs/`` (``add_directory``); the traversal tests aim above it."""
CANCELLED: list[str] = []
"""Names of the ``hang`` calls the server saw cancelled (read back through ``cancellations``)."""
MIDDLEWARE_SAW: dict[str, tuple[str, str, str]] = {}
"""What the middleware saw for a ``tools/call`` carrying ``arguments.label``, by label."""
TOOL_LOOP = [{"name": "get_weather", "inputSchema": {"type": "object"}}]
TOOL_USE = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "u1", "name": "get_weather", "input": {}}],
}


@dataclasses.dataclass
class Forecast:
    city: str
    degrees: int


@dataclasses.dataclass
class Product:
    name: str
    price: float


@dataclasses.dataclass
class BookingDC:
    nights: int
    city: str = "Lisbon"


class BookingStruct(msgspec.Struct):
    nights: int
    city: str = "Lisbon"


class BookingTD(TypedDict):
    nights: int
    city: str


BOOKINGS: dict[str, Any] = {
    "dataclass": BookingDC,
    "struct": BookingStruct,
    "typeddict": BookingTD,
}
"""The schema types ``book`` elicits with, by the ``kind`` argument (``pydantic`` is added on
first use: importing pydantic would slow every server start of the kit)."""


def _booking_type(kind: str) -> Any:
    if kind == "pydantic" and kind not in BOOKINGS:
        import pydantic

        class BookingModel(pydantic.BaseModel):
            nights: int
            city: str = "Lisbon"

        BOOKINGS[kind] = BookingModel
    return BOOKINGS[kind]


def build_server() -> Server:
    server = Server(
        SERVER_NAME, version=SERVER_VERSION, page_size=PAGE_SIZE, instructions=INSTRUCTIONS
    )
    _tools(server)
    _streaming_tools(server)
    _questions(server)
    _resources(server)
    _prompts(server)

    async def record(info: RequestView, call_next: Any) -> dict[str, Any]:
        arguments = info.params.get("arguments")
        if info.method == "tools/call" and isinstance(arguments, dict) and "label" in arguments:
            seen = (info.method, info.protocol_version, str(info.era))
            MIDDLEWARE_SAW[str(arguments["label"])] = seen
        result: dict[str, Any] = await call_next()
        return result

    server.add_middleware(record)
    return server


def _tools(server: Server) -> None:
    """Plain tools: text, structured output, the ways a tool fails, content blocks."""

    @server.tool
    async def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool(read_only=True, title="Adder")
    async def add(a: int, b: Annotated[int, "the second addend"] = 1) -> int:
        """Add two numbers.

        Args:
            a: the first addend
        """
        return a + b

    @server.tool
    async def forecast(city: str) -> Forecast:
        """A structured result (an object)."""
        return Forecast(city, 21)

    @server.tool
    def find(kind: Literal["shoe", "shirt"]) -> list[Product]:
        """A structured result (a list of dataclasses, wrapped)."""
        return [Product(f"{kind} one", 899.0)]

    @server.tool
    async def fail(reason: str) -> str:
        """Always fails with the given reason."""
        raise ToolError(reason)

    @server.tool
    def boom() -> str:
        raise RuntimeError("the database is down")

    @server.tool(timeout=0.05)
    async def forever() -> str:
        await asyncio.Event().wait()
        return "never"

    @server.tool
    def custom() -> ToolResult:
        return ToolResult(content=[content.text("partial")], is_error=True)

    @server.tool
    def picture() -> list[dict[str, Any]]:
        return [content.text("a pixel"), content.image(b"\x89PNG\r\n", "image/png")]

    @server.tool
    def lookup(uri: str) -> str:
        raise ResourceNotFound(f"no such thing: {uri}", {"uri": uri})

    @server.tool
    async def seen_by_middleware(label: str) -> list[str]:
        """What the middleware saw for this very call: method, protocol version, era."""
        return list(MIDDLEWARE_SAW.pop(label))

    @server.tool
    def grow(name: str) -> str:
        """Add a tool called ``name`` (from a worker thread: a sync tool)."""
        server.tool(name=name)(lambda: "grown")
        return "grew"

    @server.tool
    async def shrink(name: str) -> str:
        """Remove the tool called ``name``."""
        server.remove_tool(name)
        return "shrank"

    for i in range(EXTRA_TOOLS):
        server.tool(name=f"extra_{i}", description=f"Extra tool {i}")(_extra(i))


def _streaming_tools(server: Server) -> None:
    """Tools that send messages while they run: progress, log messages, change notices."""

    @server.tool
    async def count(ctx: Context, steps: int) -> str:
        """Report progress 0 (a valid first value) to `steps`, then answer."""
        for step in range(steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @server.tool
    async def chatty(ctx: Context, text: str) -> str:
        """Log `text` at debug, info and warning level, then answer."""
        for level in ("debug", "info", "warning"):
            await ctx.log(level, f"{level}: {text}")
        return "logged"

    @server.tool
    async def hang(ctx: Context, label: str) -> str:
        """Report one progress event, then wait until cancelled (recorded under `label`)."""
        await ctx.report_progress(1, None, "hanging")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            CANCELLED.append(label)
            raise
        return "never"

    @server.tool
    async def cancellations() -> list[str]:
        """The labels of the cancelled ``hang`` calls, oldest first."""
        return list(CANCELLED)

    @server.tool
    async def touch(uri: str) -> str:
        """Announce that a resource changed."""
        await server.notify_resource_updated(uri)
        return "touched"


def _questions(server: Server) -> None:
    """Tools that ask the client: elicitation (form, typed), sampling (plain, tool loops), roots."""

    @server.tool
    async def ask(ctx: Context, question: str) -> str:
        """Elicit a name, sample a reply and list the roots: every client question at once."""
        answer = await ctx.elicit(
            question,
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        )
        if not answer.accepted or not answer.content:
            raise ToolError("declined")
        reply = await ctx.sample(f"Greet {answer.content['name']}", max_tokens=20)
        roots = await ctx.list_roots()
        text = getattr(reply.content, "text", "?")
        return f"{answer.content['name']}|{text}|{roots[0]['uri']}"

    @server.tool
    async def interview(ctx: Context) -> str:
        """Ask everything the client can answer, in order: a form with a default, a sample,
        the roots."""
        name = await ctx.elicit(
            "Who are you?",
            {"type": "object", "properties": {"name": {"type": "string", "default": "anon"}}},
        )
        poem = await ctx.sample(f"Write a haiku for {name.content}", max_tokens=50)
        roots = await ctx.list_roots()
        text = poem.content.text if isinstance(poem.content, TextContent) else "?"
        return f"{name.action}:{name.content['name'] if name.content else '-'}|" + (
            f"{text}|{','.join(r['uri'] for r in roots)}"
        )

    @server.tool
    async def visit(ctx: Context) -> str:
        """URL mode: ask the user to visit a page out of band."""
        answer = await ctx.elicit_url("Authorize the wallet", "https://example.com/auth")
        return answer.action

    @server.tool
    async def roots_now(ctx: Context) -> list[str]:
        """The client's roots, asked afresh."""
        return [root["uri"] for root in await ctx.list_roots()]

    @server.tool
    async def book(kind: str, ctx: Context) -> str:
        """Elicit with a typed schema; answer with what the answer was converted to."""
        schema = _booking_type(kind)
        answer = await ctx.elicit("How long?", schema)
        got = answer.content
        if got is None:
            return f"{answer.action}|{answer.accepted}|None"
        if isinstance(got, dict):
            return f"{answer.action}|{answer.accepted}|dict|{got['nights']}|{got['city']}"
        fits = isinstance(got, schema)
        return f"{answer.action}|{answer.accepted}|{fits}|{got.nights}|{got.city}"

    @server.tool
    async def as_dict(ctx: Context) -> str:
        """Elicit with a dict schema: the answer's content stays a dict."""
        answer = await ctx.elicit(
            "How long?", {"type": "object", "properties": {"nights": {"type": "integer"}}}
        )
        return f"{answer.action}|{type(answer.content).__name__}|{answer.content}"

    @server.tool
    async def haiku(ctx: Context) -> str:
        """Sample; answer with the type of the result and what it held."""
        result = await ctx.sample("A haiku", max_tokens=20)
        text = result.content.text if isinstance(result.content, TextContent) else "?"
        return f"{type(result).__name__}|{type(result.content).__name__}|{text}|{result.model}"

    @server.tool
    async def ask_address(ctx: Context) -> str:
        """A nested form schema: refused before anything is sent."""
        answer = await ctx.elicit(
            "Where to?",
            {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}},
        )
        return str(answer.content)

    @server.tool
    async def sample_loop(ctx: Context, shape: str) -> str:
        """Sample with tools; ``shape`` picks a well-formed loop (``good``), a tool result for a
        tool use never made (``stray_result``) or results mixed with text (``mixed``)."""
        last: Any = {
            "good": [_tool_result("u1")],
            "stray_result": _tool_result("other"),
            "mixed": [_tool_result("u1"), {"type": "text", "text": "and?"}],
        }[shape]
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            TOOL_USE,
            {"role": "user", "content": last},
        ]
        try:
            answer = await ctx.sample(messages, max_tokens=10, tools=TOOL_LOOP)
        except UsageError as exc:
            return f"refused: {exc}"
        return f"model said: {answer.model}"


def _tool_result(use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseId": use_id, "content": []}


def _resources(server: Server) -> None:
    """Static resources (text, binary, several contents), templates, files, a missing one."""

    @server.resource("kit://readme", mime_type="text/plain", description="A static text")
    def readme() -> str:
        return "read me"

    @server.resource("kit://notes/{name}", mime_type="text/plain")
    def note(name: str) -> str:
        return f"note {name}"

    @server.resource("test://static-text", mime_type="text/plain", description="Plain text")
    def static_text() -> str:
        return "This is static."

    @server.resource("test://static-binary", mime_type="image/png")
    def static_binary() -> bytes:
        return b"\x89PNG\r\n\x1a\n"

    @server.resource("test://template/{id}/data", mime_type="application/json")
    def item(id: str) -> dict[str, Any]:
        if id == "missing":
            raise KeyError(id)
        return {"id": id}

    @server.resource("test://many")
    def many() -> list[ResourceData]:
        return [
            ResourceData(uri="test://many/a", text="a"),
            ResourceData(uri="test://many/b", blob=b"b"),
        ]

    @server.resource("missing://{name}")
    def gone(name: str) -> str:
        raise ResourceNotFound(f"no doc {name}", {"uri": f"missing://{name}"})

    server.add_directory("file:///docs/", str(FILES_DIR), name="docs")


def _prompts(server: Server) -> None:
    """Prompts with arguments and non-text content, and completion of their arguments."""

    @server.prompt
    def review(language: str, code: str = "") -> str:
        """Review code in a language."""
        return f"Review this {language} code: {code}"

    @server.prompt(title="Code review")
    def code_review(language: str, code: str) -> list[Message]:
        """Review code.

        Args:
            language: the programming language
            code: the code to review
        """
        return [
            Message(f"Review this {language} code:\n{code}"),
            Message("I will look for bugs.", role="assistant"),
        ]

    @server.prompt
    def with_image() -> list[Any]:
        return [Message(content.image(b"\x89PNG", "image/png"))]

    def languages(value: str, arguments: dict[str, str]) -> list[str]:
        return [lang for lang in ("python", "pascal", "rust") if lang.startswith(value)]

    server.completion(prompt="review", argument="language")(languages)
    server.completion(prompt="code_review", argument="language")(languages)


def _extra(i: int) -> Any:
    async def extra() -> str:
        return f"extra {i}"

    return extra


if __name__ == "__main__":
    app = build_server()
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
        options: dict[str, Any] = {"json_response": True} if "--json" in sys.argv else {}
        if "--sse" in sys.argv:
            options["sse_after"] = 0.0
        app.run("http", port=port, log_level="warning", **options)
    else:
        app.run()

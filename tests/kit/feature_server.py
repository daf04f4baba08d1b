"""One server with every feature the cross-transport tests exercise.

Run as a script it serves itself: ``python feature_server.py`` on stdio,
``python feature_server.py --http --port N [--json | --sse]`` on loopback HTTP (``--json``:
every answer is ``application/json``; ``--sse``: every answer is an SSE stream). Tools wait on
the client (progress handlers, cancellation) instead of sleeping, so nothing here is timed.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import Any

from mcpkit.server import Context, Server, ToolError

SERVER_NAME = "kit-features"
PAGE_SIZE = 4
"""tools/list pages hold this many tools, so listing every tool takes several pages."""
EXTRA_TOOLS = 6
CANCELLED: list[str] = []
"""Names of the ``hang`` calls the server saw cancelled (read back through ``cancellations``)."""


@dataclass
class Forecast:
    city: str
    degrees: int


def build_server() -> Server:
    server = Server(SERVER_NAME, version="1.0.0", page_size=PAGE_SIZE)

    @server.tool
    async def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool
    async def add(a: int, b: int) -> int:
        """Add two integers (structured output: a wrapped number)."""
        return a + b

    @server.tool
    async def forecast(city: str) -> Forecast:
        """A structured result (an object)."""
        return Forecast(city, 21)

    @server.tool
    async def fail(reason: str) -> str:
        """Always fails with the given reason."""
        raise ToolError(reason)

    @server.tool
    async def count(ctx: Context, steps: int) -> str:
        """Report `steps` progress events, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @server.tool
    async def chatty(ctx: Context, text: str) -> str:
        """Log `text` at info and debug level, then answer."""
        await ctx.log("debug", f"debug: {text}")
        await ctx.log("info", f"info: {text}")
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

    for i in range(EXTRA_TOOLS):
        server.tool(name=f"extra_{i}", description=f"Extra tool {i}")(_extra(i))

    @server.resource("kit://readme", mime_type="text/plain", description="A static text")
    def readme() -> str:
        return "read me"

    @server.resource("kit://notes/{name}", mime_type="text/plain")
    def note(name: str) -> str:
        return f"note {name}"

    @server.tool
    async def touch(uri: str) -> str:
        """Announce that a resource changed."""
        await server.notify_resource_updated(uri)
        return "touched"

    @server.prompt
    def review(language: str, code: str = "") -> str:
        """Review code in a language."""
        return f"Review this {language} code: {code}"

    @server.completion(prompt="review", argument="language")
    def languages(value: str, arguments: dict[str, str]) -> list[str]:
        return [lang for lang in ("python", "pascal", "rust") if lang.startswith(value)]

    return server


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

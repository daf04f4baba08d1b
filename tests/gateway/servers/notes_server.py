"""A gateway backend: mcpkit's own server over stdio (notes, questions, progress, a crash).

Run with the project's interpreter: ``python notes_server.py``.
"""

from __future__ import annotations

import asyncio
import os

from mcpkit.server import Context, Server

server = Server("notes", "1.0.0")
NOTES = {"readme": "Read me first.", "todo": "Ship the gateway."}


@server.tool(read_only=True)
def read_note(name: str) -> str:
    """A note's text."""
    return NOTES.get(name, f"no note {name}")


@server.tool(destructive=True)
def delete_note(name: str) -> str:
    """Delete a note."""
    NOTES.pop(name, None)
    return f"deleted {name}"


@server.tool
async def count(ctx: Context, steps: int = 3) -> str:
    """Report progress ``steps`` times."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted {steps}"


@server.tool
async def ask_name(ctx: Context) -> str:
    """Ask the user's name (elicitation)."""
    answer = await ctx.elicit(
        "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
    )
    if answer.accepted and answer.content:
        return f"hello {answer.content['name']}"
    return f"no name: {answer.action}"


@server.tool
async def summarize(ctx: Context, text: str) -> str:
    """Ask the client's model (sampling)."""
    result = await ctx.sample(f"Summarize: {text}", max_tokens=50)
    content = result.content
    return f"model said: {getattr(content, 'text', content)}"


@server.tool
async def count_roots(ctx: Context) -> str:
    """How many roots the client has."""
    roots = await ctx.list_roots()
    return f"{len(roots)} roots: {', '.join(r['uri'] for r in roots)}"


@server.tool
async def touch(ctx: Context, name: str) -> str:
    """Change a note (subscribers of notes://<name> are told)."""
    NOTES[name] = NOTES.get(name, "") + "!"
    await ctx.server.notify_resource_updated(f"notes://{name}")
    return f"touched {name}"


@server.tool
async def hang(ctx: Context) -> str:
    """Say so (a progress notification carrying our pid), then wait forever: a call that is in
    flight when the test kills us."""
    await ctx.report_progress(1, None, f"pid {os.getpid()}")
    await asyncio.Event().wait()
    return "never"


@server.tool
async def wait_for_cancel(ctx: Context) -> str:
    """Report progress, then wait until cancelled; the cancellation is announced as an update of
    ``notes://cancelled`` (subscribers see that the cancel reached this backend)."""
    await ctx.report_progress(1, None, "waiting")
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        NOTES["cancelled"] = "yes"
        await asyncio.shield(ctx.server.notify_resource_updated("notes://cancelled"))
        raise
    return "never"


@server.tool
def grow(name: str) -> str:
    """Add a tool called ``name`` (clients are told their tool list changed)."""

    def grown() -> str:
        return f"I am {name}"

    server.tool(grown, name=name, description="Added at run time.")
    return f"added {name}"


@server.tool
def crash() -> str:
    """Exit the process in the middle of the call."""
    os._exit(3)


@server.resource("notes://readme", mime_type="text/plain")
def readme() -> str:
    return NOTES.get("readme", "")


@server.resource("notes://{name}", mime_type="text/plain")
def note(name: str) -> str:
    if name not in NOTES:
        raise LookupError(name)
    return NOTES[name]


@server.prompt
def review(topic: str) -> str:
    """Review a topic."""
    return f"Please review {topic}."


@server.completion(prompt="review", argument="topic")
def topics(value: str, _arguments: dict[str, str]) -> list[str]:
    return [t for t in ("gateway", "gardening", "graphs") if t.startswith(value)]


if __name__ == "__main__":
    server.run()

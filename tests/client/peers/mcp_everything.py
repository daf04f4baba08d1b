"""A fixture server built with the official SDK (mcp 2.3.0), serving both eras over stdio.

Run with the peer venv's interpreter: ``.peers/mcp-venv/bin/python mcp_everything.py``.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import (
    Completion,
    CreateMessageResult,
    ListRootsResult,
    PromptReference,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

mcp = MCPServer("everything", version="9.9.9", instructions="A fixture for mcpkit's client tests.")
cancelled = anyio.Event()


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def fail() -> str:
    """Always fails as a tool error (isError)."""
    raise ValueError("this tool always fails")


class Profile(BaseModel):
    name: str = "Ada"
    age: int = 36
    admin: bool = False


def ask_profile() -> Elicit[Profile]:
    return Elicit("Who are you?", Profile)


@mcp.tool()
def whoami(
    profile: Annotated[ElicitationResult[Profile], Resolve(ask_profile)],
) -> str:
    """Elicit a profile (form mode, with defaults) and echo it back."""
    if isinstance(profile, AcceptedElicitation):
        return f"{profile.data.name}/{profile.data.age}/{profile.data.admin}"
    return f"no profile: {profile.action}"


def ask_model(prompt: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=50,
    )


@mcp.tool()
def sample(prompt: str, answer: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Ask the client's model."""
    content = answer.content
    text = content.text if isinstance(content, TextContent) else "?"
    return f"{answer.model}: {text}"


def want_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
def roots(found: Annotated[ListRootsResult, Resolve(want_roots)]) -> list[str]:
    """List the client's roots."""
    return [str(root.uri) for root in found.roots]


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report progress ``steps`` times."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
    return "done"


@mcp.tool()
async def slow(seconds: float) -> str:
    """Sleep; records whether it was cancelled."""
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        cancelled.set()
        raise
    return "slept"


@mcp.tool()
async def was_cancelled(wait: float) -> bool:
    """Whether a ``slow`` call was cancelled (waits up to ``wait`` seconds for it)."""
    with anyio.move_on_after(wait):
        await cancelled.wait()
    return cancelled.is_set()


@mcp.tool()
async def chatty(ctx: Context) -> str:
    """Log at three levels."""
    await ctx.debug("debug line")
    await ctx.info("info line")
    await ctx.warning("warning line")
    return "logged"


@mcp.tool()
async def change_tools(ctx: Context) -> str:
    """Add a tool and announce it (legacy: notification; 2026: listen streams)."""

    def extra() -> str:
        return "extra"

    mcp.add_tool(extra, name=f"extra_{len(await mcp.list_tools())}")
    if ctx.protocol_version and ctx.protocol_version >= "2026":
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    return "changed"


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Announce that a resource changed."""
    if ctx.protocol_version and ctx.protocol_version >= "2026":
        await ctx.notify_resource_updated(uri)
    else:
        await ctx.session.send_resource_updated(uri)
    return "touched"


@mcp.resource("test://static", mime_type="text/plain")
def static() -> str:
    return "static text"


@mcp.resource("test://item/{item_id}")
def item(item_id: str) -> str:
    return f"item {item_id}"


@mcp.prompt()
def greet(name: str) -> str:
    return f"Hello, {name}!"


@mcp.completion()
async def complete(ref, argument, context):  # type: ignore[no-untyped-def]
    if isinstance(ref, PromptReference) and argument.name == "name":
        names = ["Ada", "Alan", "Grace"]
        return Completion(values=[n for n in names if n.startswith(argument.value)])
    return None


if __name__ == "__main__":
    mcp.run()

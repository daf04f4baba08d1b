"""A gateway backend for the rules where the gateway meets its clients (issue #27).

``python seams_backend.py SCHEME``: mcpkit's server over stdio, in both eras. Its tools ask the
client (elicitation, sampling, roots), add a tool, a prompt or a resource at run time (the
client is told only the list that changed); its resources are ``SCHEME://{name}`` (a missing
one is "resource not found" in the caller's era) and ``shared://{name}``, a template every
instance offers identically.
"""

from __future__ import annotations

import sys

from mcpkit.errors import ResourceNotFound
from mcpkit.server import Context, Server

SCHEME = sys.argv[1] if len(sys.argv) > 1 else "one"
server = Server(f"seams-{SCHEME}", "1.0.0")


@server.tool
async def ask_name(ctx: Context) -> str:
    """Ask the user's name (elicitation)."""
    answer = await ctx.elicit(
        "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
    )
    return f"{answer.action}:{answer.content}"


@server.tool
async def summarize(ctx: Context) -> str:
    """Ask the client's model (sampling)."""
    result = await ctx.sample("Summarize", max_tokens=5)
    return f"sampled:{result.model}"


@server.tool
async def count_roots(ctx: Context) -> str:
    """How many roots the client has."""
    return f"{len(await ctx.list_roots())} roots"


@server.tool
def grow(name: str) -> str:
    """Add a tool (the tool list changes)."""
    server.tool(lambda: f"I am {name}", name=name, description="Added at run time.")
    return f"added tool {name}"


@server.tool
def add_resource(name: str) -> str:
    """Add a resource (the resource list changes)."""
    server.resource(f"{SCHEME}://extra/{name}", name=name)(lambda: name)
    return f"added resource {name}"


@server.resource(f"{SCHEME}://{{name}}", mime_type="text/plain")
def item(name: str) -> str:
    if name == "missing":
        raise ResourceNotFound(f"Resource not found: {SCHEME}://missing")
    return f"{SCHEME} {name}"


@server.resource("shared://{name}", name="shared", mime_type="text/plain")
def shared(name: str) -> str:
    return f"shared {name} from {SCHEME}"


@server.prompt
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


if __name__ == "__main__":
    server.run()

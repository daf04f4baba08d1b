"""A stdio server whose tools sample the client's model with tools offered (and, for
``must_use``, a tool call required)."""

from __future__ import annotations

from typing import Any

import msgspec

from mcpkit.server import Context, Server

server = Server("sampler", "1.0.0")
LOOKUP = {
    "name": "lookup",
    "description": "Find a product by name.",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
}


@server.tool
async def ask_model(question: str, ctx: Context) -> dict[str, Any]:
    """Samples with a tool the model may call."""
    answer = await ctx.sample(question, max_tokens=50, tools=[LOOKUP])
    built: dict[str, Any] = msgspec.to_builtins(answer)
    return built


@server.tool
async def must_use(question: str, ctx: Context) -> dict[str, Any]:
    """Samples with a tool call required."""
    answer = await ctx.sample(
        question, max_tokens=50, tools=[LOOKUP], tool_choice={"mode": "required"}
    )
    built: dict[str, Any] = msgspec.to_builtins(answer)
    return built


if __name__ == "__main__":
    server.run()

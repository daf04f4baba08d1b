"""An in-process server exercising every path of the LangChain bridge."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import msgspec

from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.server import Context, Message, Server, ToolError, ToolResult

PIXEL = base64.b64encode(b"\x89PNG fake").decode()


@dataclass
class Quantity:
    quantity: int = 1


@dataclass
class Address:
    address: str
    express: bool = False


@dataclass
class Total:
    product: str
    quantity: int
    address: str


def build(starts: list[str] | None = None) -> Server:
    """``starts`` records each time ``order``'s body starts (to see what was re-run)."""
    server = Server("shopkit", "1.0.0")
    runs = starts if starts is not None else []

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    def fail(reason: str) -> str:
        """Always fails with the reason."""
        raise ToolError(f"refused: {reason}")

    @server.tool
    def lookup(key: str) -> str:
        """A value by key; a missing key is the typed not-found error."""
        if key != "known":
            raise ResourceNotFound(f"no key {key!r}", {"uri": f"kv://{key}"})
        return "value"

    @server.tool
    def picture() -> ToolResult:
        """Text, an image and an embedded resource, with structured content."""
        return ToolResult(
            content=[
                {"type": "text", "text": "a picture"},
                {"type": "image", "data": PIXEL, "mimeType": "image/png"},
                {
                    "type": "resource",
                    "resource": {"uri": "mem://note", "mimeType": "text/plain", "text": "hi"},
                },
            ],
            structured_content={"width": 1},
        )

    @server.tool
    async def order(product: str, ctx: Context) -> Total:
        """Asks two questions, reports progress and logs."""
        runs.append(product)
        await ctx.report_progress(0, 2, "asking")
        await ctx.info(f"ordering {product}")
        quantity = await ctx.elicit("How many?", Quantity)
        if not quantity.accepted or quantity.content is None:
            raise ToolError("cancelled")
        address = await ctx.elicit("Where to?", Address)
        if not address.accepted or address.content is None:
            raise ToolError("cancelled")
        await ctx.report_progress(2, 2, "done")
        return Total(product, quantity.content.quantity, address.content.address)

    @server.tool
    async def ask_model(question: str, ctx: Context) -> dict[str, Any]:
        """Sampling with a tool the model may call."""
        answer = await ctx.sample(
            question,
            max_tokens=50,
            tools=[{"name": "lookup", "inputSchema": {"type": "object"}}],
        )
        built: dict[str, Any] = msgspec.to_builtins(answer)
        return built

    @server.resource("mem://readme", mime_type="text/plain")
    def readme() -> str:
        return "read me"

    @server.resource("mem://blob.bin", mime_type="application/octet-stream")
    def blob() -> bytes:
        return b"\x00\x01\x02"

    @server.prompt
    def greet(name: str) -> list[Message]:
        """Greets someone."""
        return [Message(f"Say hello to {name}")]

    return server

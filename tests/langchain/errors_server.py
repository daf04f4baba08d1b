"""A stdio server whose tools fail in the ways a model can act on: bad arguments, a missing
resource, a result that breaks its own ``outputSchema``, and a plain ``isError``."""

from __future__ import annotations

from dataclasses import dataclass

from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.server import Server, ToolError, ToolResult

server = Server("faults", "1.0.0")


@dataclass
class Stock:
    item: str
    stock: int


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
def lookup(key: str) -> str:
    """A value by key; any key but ``known`` is the typed not-found error."""
    if key != "known":
        raise ResourceNotFound(f"no key {key!r}", {"uri": f"kv://{key}"})
    return "value"


@server.tool
def stock(item: str) -> Stock:
    """Units in stock; the feed answers a string where its schema says integer."""
    return ToolResult(  # type: ignore[return-value]
        content=[{"type": "text", "text": "unknown"}],
        structured_content={"item": item, "stock": "unknown"},
    )


@server.tool
def refuse(reason: str) -> str:
    """Always answers isError."""
    raise ToolError(f"refused: {reason}")


if __name__ == "__main__":
    server.run()

"""The MCP server the REST facade tests put behind HTTP: tools with and without output schemas,
one that fails on some valid input, a resource, a template and a prompt (stdio when run)."""

from __future__ import annotations

from typing import TypedDict

from mcpkit.server import Server, ToolError

server = Server("facade-demo", "1.2.3")


class Summary(TypedDict):
    name: str
    tags: list[str]
    count: int


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
def divide(a: float, b: float) -> float:
    """Divide a by b (fails for b = 0)."""
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


@server.tool
def summarize(name: str, tags: list[str] | None = None) -> Summary:
    """Summarize a name and its tags."""
    return {"name": name, "tags": tags or [], "count": len(tags or [])}


@server.tool
def shout(text: str) -> str:
    """Upper-case the text (content only, no output schema)."""
    return text.upper()


@server.resource("config://app", mime_type="application/json")
def config() -> dict[str, str]:
    return {"mode": "demo"}


@server.resource("notes://{note_id}")
def note(note_id: str) -> str:
    if note_id != "1":
        raise LookupError(note_id)
    return "the first note"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run()

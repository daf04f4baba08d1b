"""A stdio server with a tool that must run as a task, for the REST facade's tests."""

from __future__ import annotations

from mcpkit.server import Message, Server

server = Server("tasks", "1.0.0", tasks=True)


@server.tool
def ping() -> str:
    """Answers pong."""
    return "pong"


@server.tool(task_support="required")
async def research(topic: str) -> str:
    """Only runs as a task."""
    return f"notes on {topic}"


@server.prompt
def hello() -> list[Message]:
    """Says hello."""
    return [Message("hello")]


if __name__ == "__main__":
    server.run()

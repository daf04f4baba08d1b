"""A small stdio server for the SyncClient tests: a typed elicitation, a resource, a prompt."""

from __future__ import annotations

from dataclasses import dataclass

from mcpkit.server import Context, Server


@dataclass
class Stay:
    nights: int


def build() -> Server:
    server = Server("sync-demo")

    @server.tool
    async def book(ctx: Context) -> str:
        answer = await ctx.elicit("How long?", Stay)
        return f"{answer.content.nights} nights" if answer.content else answer.action

    @server.resource("demo://greeting")
    def greeting() -> str:
        return "hello"

    @server.prompt
    def hello(name: str) -> str:
        return f"Hello {name}"

    return server


if __name__ == "__main__":
    build().run()

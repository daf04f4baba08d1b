"""Mistakes a type checker must catch: each line marked ``# error:`` is one mypy reports.

Not run: ``tests/typing/test_user_program.py`` type-checks it together with
``user_program.py`` and asserts mypy reports exactly the marked lines (code included), no
``# type: ignore`` needed. Before the entry points were typed (``**options: Any``) every one of
these passed ``mypy --strict`` and failed, or silently did something else, at run time.
"""

from __future__ import annotations

import httpx

from mcpkit import Context, Host, Server, SyncHost
from mcpkit.contrib.langchain import load_tools_sync
from mcpkit.contrib.openapi import from_openapi
from mcpkit.gateway import Gateway
from mcpkit.testing import connect

server = Server("typos")
gateway = Gateway({})


def serve() -> None:
    server.run("stdio", port=1)  # error: call-overload
    server.run(port=8000)  # error: call-overload
    server.run("http", prot=8000)  # error: call-overload
    server.run("sse")  # error: call-overload
    server.http_app(stateles=True)  # error: call-arg
    server.http_app(port=8000)  # error: call-arg
    gateway.run("stdio", port=1)  # error: call-overload
    gateway.http_app(json_respons=True)  # error: call-arg
    Gateway.from_file("gateway.json", call_timout=5.0)  # error: call-arg
    Gateway.from_file("gateway.json", name=3)  # error: arg-type
    Host.from_file("mcp.json", conect_timeout=5.0)  # error: call-arg
    SyncHost({}, namespacing="sometimes")  # error: arg-type


async def call(host: Host) -> None:
    await host.call_tool("t", {}, timeot=3)  # error: call-arg
    await host.ainvoke("t", {}, output_validation="strict")  # error: call-arg
    await host.call_tool("t", {}, timeout="soon")  # error: arg-type


def call_sync(host: SyncHost) -> None:
    host.call_tool("t", {}, timeot=3)  # error: call-arg
    host.invoke("t", {}, meta={})  # error: call-arg


async def ask(ctx: Context) -> None:
    await ctx.sample("a haiku", max_tokens=50, temprature=0.2)  # error: call-arg
    await ctx.sample("a haiku", max_tokens=50, include_context="everything")  # error: arg-type


async def test_it(server: Server) -> None:
    async with connect(server, mode="modern") as client:  # error: arg-type
        await client.list_tools()
    async with connect(server, output_validaton="warn"):  # error: call-arg
        pass


def build(client: httpx.AsyncClient, host: SyncHost) -> None:
    from_openapi({}, client, instructons="use the API")  # error: call-arg
    load_tools_sync(host, prefx="mcp_")  # error: call-arg

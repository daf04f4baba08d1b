"""A user's program touching every documented entry point, checked with ``mypy --strict``.

Not run: ``tests/typing/test_user_program.py`` type-checks it. Each ``assert_type`` proves mypy
sees the real type (``Any`` would fail it), and each ``# type: ignore[...]`` on a wrong call
proves mypy catches the mistake (``warn_unused_ignores`` fails if it no longer does).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, TypedDict, assert_type

import msgspec
import pydantic

import mcpkit
from mcpkit import (
    Client,
    Context,
    ElicitAnswer,
    Host,
    InvalidParams,
    MCPError,
    Server,
    SyncClient,
    SyncHost,
    ToolError,
)
from mcpkit.client import Subscription
from mcpkit.client.host import HostOptions
from mcpkit.errors import JSONRPCError, UnknownTool
from mcpkit.gateway import Gateway, GatewayOptions
from mcpkit.server import (
    CallNext,
    HttpAppOptions,
    HttpRunOptions,
    Message,
    Question,
    RequestView,
    ResourceData,
    ToolResult,
)
from mcpkit.server.middleware import Middleware
from mcpkit.testing import connect
from mcpkit.transports.http import HttpServable, McpHttpApp
from mcpkit.types import (
    CallToolResult,
    CreateMessageResult,
    GetPromptResult,
    JSONObject,
    Prompt,
    ReadResourceResult,
    Resource,
    Tool,
)

server = Server("typed-demo")


@dataclasses.dataclass
class StayDC:
    nights: int


class StayStruct(msgspec.Struct):
    nights: int


class StayModel(pydantic.BaseModel):
    nights: int


class StayTD(TypedDict):
    nights: int


# -- decorators keep the function's type ---------------------------------------------------------


@server.tool
def add(a: int, b: int) -> int:
    return a + b


@server.tool(name="mul", read_only=True)
async def multiply(a: float, b: float) -> float:
    return a * b


@server.resource("demo://{name}")
def named(name: str) -> ResourceData:
    return ResourceData(text=name)


@server.prompt
def greet(who: str) -> list[Message]:
    return [Message(f"hello {who}", role="user")]


@server.prompt(title="Farewell")
def bye(who: str) -> str:
    return f"bye {who}"


assert_type(add(1, 2), int)
add("1", 2)  # type: ignore[arg-type]
assert_type(named("x"), ResourceData)
assert_type(greet("ada"), list[Message])
assert_type(bye("ada"), str)
bye(1)  # type: ignore[arg-type]


async def awaited() -> None:
    assert_type(await multiply(2.0, 3.0), float)


# -- the context: typed questions ---------------------------------------------------------------


@server.tool
async def book(ctx: Context) -> str:
    as_dc = await ctx.elicit("How long?", StayDC)
    assert_type(as_dc, ElicitAnswer[StayDC])
    as_struct = await ctx.elicit("How long?", StayStruct)
    assert_type(as_struct, ElicitAnswer[StayStruct])
    as_model = await ctx.elicit("How long?", StayModel)
    assert_type(as_model, ElicitAnswer[StayModel])
    as_td = await ctx.elicit("How long?", StayTD)
    assert_type(as_td, ElicitAnswer[StayTD])
    as_dict = await ctx.elicit("How long?", {"type": "object", "properties": {}})
    assert_type(as_dict, ElicitAnswer[JSONObject])
    if as_dc.content is not None:
        assert_type(as_dc.content.nights, int)
    sampled = await ctx.sample("a haiku", max_tokens=10)
    assert_type(sampled, CreateMessageResult)
    answers = await ctx.ask(Question.list_roots())
    assert_type(answers, tuple[Any, ...])
    if not as_dc.accepted:
        raise ToolError("declined")
    return "ok"


@server.tool
def detailed() -> ToolResult:
    return ToolResult(content=[mcpkit.server.content.text("hi")])


async def timing(request: RequestView, call_next: CallNext) -> JSONObject:
    assert_type(request.method, str)
    return await call_next()


middleware: Middleware = timing
server.add_middleware(timing)

# -- serving ------------------------------------------------------------------------------------

assert_type(server.http_app(), McpHttpApp)
servable: HttpServable = server  # the seam between the HTTP transport and the server is typed
assert_type(server.http_app(stateless=True, allowed_hosts=["mcp.example.com"]), McpHttpApp)
app_options: HttpAppOptions = {"json_response": True, "path": "/api/mcp"}
assert_type(server.http_app(**app_options), McpHttpApp)


def serve_forever(transport: Literal["stdio", "http"]) -> None:
    server.run()
    server.run("stdio")
    server.run("http", port=8000, host="0.0.0.0", stateless=True, uvicorn_options={"workers": 1})
    run_options: HttpRunOptions = {"port": 8000, "event_store": "events.sqlite"}
    server.run("http", **run_options)
    server.run(transport)


def serve_gateway() -> None:
    gateway = Gateway.from_file("gateway.json", call_timeout=5.0, namespacing="always")
    gateway.run("http", port=8000, json_response=True)
    gateway.run()
    options: GatewayOptions = {"name": "front", "tokens": {"secret": "alice"}}
    Gateway({"demo": {"command": "demo-server"}}, **options).http_app(stateless=True)


# -- the async client ---------------------------------------------------------------------------


async def use_client() -> None:
    async with Client(server) as client:
        assert_type(client, Client)
        assert_type(await client.list_tools(), list[Tool])
        assert_type(await client.call_tool("add", {"a": 1, "b": 2}), CallToolResult)
        assert_type(await client.read_resource("demo://x"), ReadResourceResult)
        assert_type(await client.list_resources(), list[Resource])
        assert_type(await client.list_prompts(), list[Prompt])
        assert_type(await client.get_prompt("greet", {"who": "ada"}), GetPromptResult)
        assert_type(client.listen(tools=True), Subscription)
        await client.call_tool(1)  # type: ignore[arg-type]
    async with connect(server) as connected:
        assert_type(connected, Client)
    async with Host({"demo": server}) as host:
        assert_type(host, Host)
        assert_type(await host.call_tool("add", {"a": 1}, timeout=3), CallToolResult)
        assert_type(await host.ainvoke("add", {"a": 1}, timeout=None), CallToolResult)
    host_options: HostOptions = {"namespacing": "always", "connect_timeout": 5.0}
    async with Host.from_file("mcp.json", **host_options) as configured:
        assert_type(configured, Host)
    try:
        await Client(server).connect()
    except UnknownTool as exc:
        assert_type(exc, UnknownTool)
    except (InvalidParams, JSONRPCError) as exc:
        assert_type(exc.code, int)
    except MCPError:
        pass


# -- the blocking client ------------------------------------------------------------------------


def use_sync_client() -> None:
    with SyncClient(server, mode="legacy") as client:
        assert_type(client.list_tools(), list[Tool])
        assert_type(client.call_tool("add", {"a": 1, "b": 2}), CallToolResult)
        assert_type(client.invoke("add", {"a": 1, "b": 2}), CallToolResult)
        assert_type(client.read_resource("demo://x"), ReadResourceResult)
        assert_type(client.get_prompt("greet", {"who": "ada"}), GetPromptResult)
        assert_type(client.protocol_version, str)
        client.call_tool("add", timeout="soon")  # type: ignore[arg-type]
        SyncClient(server, no_such_option=True)  # type: ignore[call-arg]
    with SyncHost({"demo": server}, namespacing="never", on_collision="error") as host:
        assert_type(host.invoke("add", {"a": 1}), CallToolResult)
        assert_type(host.call_tool("add", {"a": 1}, output_validation="strict"), CallToolResult)

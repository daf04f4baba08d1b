"""A Context is built from narrow interfaces (a resource reader, the lifespan state, the task
manager, the request's outbound channel), not from the whole Server."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._errors import InvalidParams, ResourceNotFound, UsageError
from mcpkit.server import Context, Server
from mcpkit.server._context import ContextServices
from mcpkit.server._request import RequestInfo
from mcpkit.types._jsonrpc import JSONObject, Request


class Outbound:
    """The channel back to the client: records what the context sends."""

    def __init__(self) -> None:
        self.protocol_version: str | None = None
        self.sent: list[tuple[str, JSONObject | None]] = []

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        self.sent.append((method, params))

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        raise AssertionError("not asked in these tests")


class Reader:
    """A resource reader that knows one URI."""

    async def read_contents(self, uri: str, ctx: Context) -> list[JSONObject]:
        if uri != "notes://a":
            raise LookupError(uri)
        return [{"uri": uri, "text": f"read for request {ctx.request_id}"}]


class State:
    def __init__(self, state: Any) -> None:
        self.state = state


def info(era: str = "legacy", params: JSONObject | None = None) -> RequestInfo:
    return RequestInfo(
        request=Request(7, "tools/call", params),
        era=era,  # type: ignore[arg-type]
        protocol_version="2025-11-25" if era == "legacy" else "2026-07-28",
        client_capabilities={},
        client_info=None,
        log_level=None,
        outbound=Outbound(),
    )


async def test_a_context_needs_no_server() -> None:
    services = ContextServices(resources=Reader(), lifespan=State({"db": "open"}))
    request = info(params={"name": "t", "_meta": {"progressToken": "p"}})
    ctx = Context(request, services)
    assert ctx.lifespan == {"db": "open"}
    assert await ctx.read_resource("notes://a") == [
        {"uri": "notes://a", "text": "read for request 7"}
    ]
    await ctx.report_progress(1, 2)
    await ctx.info("hello")
    assert await ctx.memo("k", lambda: 41) == 41
    outbound = request.outbound
    assert isinstance(outbound, Outbound)
    assert [method for method, _ in outbound.sent] == [
        "notifications/progress",
        "notifications/message",
    ]
    with pytest.raises(UsageError, match="built without a Server"):
        _ = ctx.server  # the escape hatch is the one thing that needs the whole server


async def test_an_unknown_resource_is_the_eras_not_found_error() -> None:
    services = ContextServices(resources=Reader())
    with pytest.raises(ResourceNotFound, match="Resource not found: notes://b"):
        await Context(info("legacy"), services).read_resource("notes://b")
    with pytest.raises(InvalidParams, match="Resource not found: notes://b") as caught:
        await Context(info("modern"), services).read_resource("notes://b")
    assert caught.value.data == {"uri": "notes://b"}


async def test_what_a_context_lacks_is_a_clear_usage_error() -> None:
    ctx = Context(info())
    assert ctx.lifespan is None
    with pytest.raises(UsageError, match="no resource reader"):
        await ctx.read_resource("notes://a")


def test_a_servers_contexts_reach_the_server_only_through_the_escape_hatch() -> None:
    server = Server("s")
    services = server._context_services
    assert services.server is server
    assert services.resources is server._resources  # the registry is the reader
    assert services.lifespan is not server and services.resources is not server
    assert Context(info(), services).server is server

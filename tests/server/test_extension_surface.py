"""The server's extension surface: replace or wrap one method's handler (``Server.handle``,
``Server.wrap``, ``Server.handler``), end a 2026 round with ``InputRequested``, publish a task's
state (``notify_task_status``); and the client's twin, ``Client.send_request`` /
``send_notification`` (a raw request with its ``_meta``). Both eras, in process.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.errors import MethodNotFound, UsageError
from mcpkit.protocol import CLIENT_CAPABILITIES_KEY
from mcpkit.server import CallNext, Context, InputRequested, RequestView, Server
from mcpkit.types import TASKS_EXTENSION_ID, JSONObject

MODES = ["legacy", "2026-07-28"]


def _server() -> Server:
    server = Server("ext")

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    return server


@pytest.mark.parametrize("mode", MODES)
async def test_handle_replaces_a_method_and_the_era_rules_still_apply(mode: str) -> None:
    server = _server()
    seen: list[tuple[str, str]] = []

    @server.handle("tools/list")
    async def listed(request: RequestView, ctx: Context) -> JSONObject:
        seen.append((request.method, request.era))
        return {"tools": [{"name": "only", "inputSchema": {"type": "object"}}]}

    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
        tools = await client.list_tools()
        assert [tool.name for tool in tools] == ["only"]
        raw = await client.send_request("tools/list", {})
    assert seen[0] == ("tools/list", "legacy" if mode == "legacy" else "modern")
    if mode != "legacy":  # the dispatcher still shapes a 2026 result around the handler
        assert raw["resultType"] == "complete" and "ttlMs" in raw


@pytest.mark.parametrize("mode", MODES)
async def test_wrap_wraps_one_method_and_handler_is_the_default_to_delegate_to(mode: str) -> None:
    server = _server()
    default = server.handler("tools/call")
    calls: list[str] = []

    async def audit(request: RequestView, call_next: CallNext) -> JSONObject:
        calls.append(str(request.params.get("name")))
        result = await call_next()
        result["_meta"] = {**result.get("_meta", {}), "audited": True}
        return result

    server.wrap("tools/call", audit)
    assert server.handler("tools/call") is not default
    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("add", {"a": 2, "b": 3})
        await client.list_tools()  # not wrapped
    assert result.structured_content == {"result": 5}
    assert result.meta is not None and result.meta.get("audited") is True
    assert calls == ["add"]


def test_only_methods_the_server_serves_can_be_replaced() -> None:
    server = _server()
    with pytest.raises(UsageError, match="no/such"):
        server.handle("no/such")
    with pytest.raises(UsageError):
        server.wrap("tasks/get", lambda request, call_next: call_next())  # tasks are off


async def test_a_replaced_handler_ends_a_2026_round_with_input_requested() -> None:
    """A gateway passes a backend's ``inputRequests`` through: ``InputRequested`` ends the
    round with them, and what the handler kept in ``request.memo`` comes back in the retry."""
    server = _server()
    rounds: list[Any] = []

    @server.handle("tools/call")
    async def passthrough(request: RequestView, ctx: Context) -> JSONObject:
        rounds.append((dict(request.memo), request.params.get("inputResponses")))
        if "asked" not in request.memo:
            request.memo["asked"] = 1
            schema: JSONObject = {"type": "object", "properties": {}}
            question = {"message": "Name?", "requestedSchema": schema}
            raise InputRequested({"n": {"method": "elicitation/create", "params": question}})
        return {"content": [{"type": "text", "text": "done"}]}

    async def answer(params: Any, ctx: Any) -> JSONObject:
        return {"action": "accept", "content": {}}

    async with Client(server, mode="2026-07-28", elicitation_handler=answer) as client:
        raw = await client.send_request("tools/call", {"name": "add", "arguments": {}})
        assert raw["resultType"] == "input_required" and set(raw["inputRequests"]) == {"n"}
        followed = await client.send_request(
            "tools/call", {"name": "add", "arguments": {}}, answer_input=True
        )
    assert followed["content"] == [{"type": "text", "text": "done"}]
    assert rounds[-1][0] == {"asked": 1}  # the memo, sealed in requestState, came back
    assert rounds[-1][1] == {"n": {"action": "accept", "content": {}}}


async def test_an_unknown_method_is_still_method_not_found() -> None:
    async with Client(_server(), mode="legacy") as client:
        with pytest.raises(MethodNotFound):
            await client.send_request("no/such", {})


@pytest.mark.parametrize("mode", MODES)
async def test_send_request_carries_meta_over_the_clients_own(mode: str) -> None:
    server = _server()
    metas: list[JSONObject] = []

    async def look(request: RequestView, call_next: CallNext) -> JSONObject:
        metas.append(dict(request.params.get("_meta") or {}))
        return await call_next()

    server.wrap("tools/call", look)
    params: JSONObject = {"name": "add", "arguments": {"a": 1, "b": 1}}
    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
        result = await client.send_request(
            "tools/call",
            params,
            meta={"traceparent": "00-abc-def-01", CLIENT_CAPABILITIES_KEY: {"sampling": {}}},
            timeout=5.0,
        )
    assert result["structuredContent"] == {"result": 2}
    assert params == {"name": "add", "arguments": {"a": 1, "b": 1}}  # the caller's, unchanged
    assert metas[0]["traceparent"] == "00-abc-def-01"
    if mode != "legacy":  # the given key wins over the client's own declaration
        assert metas[0][CLIENT_CAPABILITIES_KEY] == {"sampling": {}}


async def test_send_notification_reaches_a_legacy_server() -> None:
    server = _server()
    got = asyncio.Event()
    received: list[tuple[str, Any]] = []

    def hook(method: str, params: JSONObject | None, connection: Any) -> None:
        received.append((method, params))
        got.set()

    server.handle_notification = hook  # type: ignore[method-assign]
    async with Client(server, mode="legacy") as client:
        await client.send_notification("notifications/roots/list_changed", meta={"k": "v"})
        await asyncio.wait_for(got.wait(), 5.0)
    assert received[-1] == ("notifications/roots/list_changed", {"_meta": {"k": "v"}})


async def test_notify_task_status_reaches_a_2026_listener_of_that_task() -> None:
    server = Server("tasks", tasks=True)
    tasks = server.tasks
    assert tasks is not None
    seen: list[Any] = []

    async def agree(task_ids: list[str], info: Any) -> list[str]:
        return list(task_ids)  # a task held elsewhere (as a gateway's backend holds one)

    tasks.agree_listen = agree  # type: ignore[method-assign]
    extensions: JSONObject = {TASKS_EXTENSION_ID: {}}
    task: JSONObject = {
        "taskId": "t-1",
        "status": "working",
        "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z",
        "ttlMs": None,
    }
    async with (
        Client(server, mode="2026-07-28", extensions=extensions) as client,
        client.listen(task_ids=["t-1"]) as subscription,
    ):
        notes = aiter(subscription)
        await anext(notes)  # the acknowledgement
        await server.notify_task_status("t-1", task)
        seen.append(await asyncio.wait_for(anext(notes), 5.0))
    assert getattr(seen[0], "method", None) == "notifications/tasks", seen
    assert seen[0].params["taskId"] == "t-1"

"""The Tasks extension on the wire: negotiation, creation, polling, errors and cancellation.

Every message the server sends is validated against the 2026-07-28 schema and, for the
extension's methods, ``ext-tasks/schema.json`` (the autouse schema check). Bodies are held by
events, never by sleeps; ``server.tasks.wait_for`` wakes on each state change.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _server_harness import connect, meta
from _tasks_helpers import EXT, TIMEOUT, forgive_own_requests

from _schema_check import SchemaCheck
from mcpkit.protocol._errors import (
    INTERNAL_ERROR,
    InternalError,
    InvalidParams,
    MethodNotFound,
    MissingRequiredClientCapability,
    UsageError,
)
from mcpkit.server import Context, Server, ToolError
from mcpkit.server.tasks import TASKS_EXTENSION_ID, InMemoryTaskStore, TaskManager

PLAIN: dict[str, Any] = {"elicitation": {}}
ENVELOPE = ("taskId", "status", "result", "error", "inputRequests", "requestState")


class Gate:
    """A body that waits for the test, and tells the test how it ended."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def hold(self) -> None:
        self.entered.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def build(**options: Any) -> tuple[Server, Gate]:
    server = Server("tasks-test", tasks=options.pop("tasks", True), **options)
    gate = Gate()

    @server.tool
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    @server.tool(task_support="optional")
    async def held(label: str = "x") -> str:
        await gate.hold()
        return f"done {label}"

    @server.tool(task_support="required")
    async def must_task() -> str:
        return "ran as a task"

    @server.tool(task_support="optional")
    async def tool_error() -> str:
        raise ToolError("the tool failed")

    @server.tool(task_support="optional")
    async def protocol_error() -> str:
        raise InternalError("exploded", {"where": "here"})

    @server.tool(task_support="optional")
    def threaded(n: int) -> int:
        return n * 2

    return server, gate


async def call(peer: Any, tool: str, caps: Any = EXT, **arguments: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    result: dict[str, Any] = await peer.modern("tools/call", params, capabilities=caps)
    return result


async def task_op(peer: Any, method: str, task_id: str, caps: Any = EXT, **extra: Any) -> Any:
    return await peer.modern(method, {"taskId": task_id, **extra}, capabilities=caps)


async def test_discover_advertises_the_extension_only_when_tasks_are_enabled() -> None:
    with_tasks, _ = build()
    without = Server("plain")
    async with connect(with_tasks) as peer:
        caps = (await peer.modern("server/discover"))["capabilities"]
        legacy = (await peer.initialize())["capabilities"]
    assert caps["extensions"] == {TASKS_EXTENSION_ID: {}}
    assert "tasks" not in caps
    assert TASKS_EXTENSION_ID not in legacy.get("extensions", {})  # a 2026-only extension
    async with connect(without) as peer:
        caps = (await peer.modern("server/discover"))["capabilities"]
        with pytest.raises(MethodNotFound):
            await task_op(peer, "tasks/get", "t")
    assert "extensions" not in caps


async def test_a_task_is_created_flat_and_durably_then_completes() -> None:
    server, gate = build()
    async with connect(server) as peer:
        created = await call(peer, "held", label="a")
        assert created["resultType"] == "task" and created["status"] == "working"
        assert "task" not in created and not {"result", "error", "requestState"} & set(created)
        assert isinstance(created["ttlMs"], int) and created["pollIntervalMs"] > 0
        task_id = created["taskId"]
        working = await task_op(peer, "tasks/get", task_id)  # right away: durable
        assert working["status"] == "working" and working["resultType"] == "complete"
        assert not {"result", "error", "inputRequests"} & set(working)
        gate.release.set()
        assert server.tasks is not None
        await server.tasks.wait_for(task_id, timeout=TIMEOUT)
        done = await task_op(peer, "tasks/get", task_id)
    assert done["status"] == "completed"
    assert done["result"]["content"] == [{"type": "text", "text": "done a"}]
    assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})


async def test_without_the_extension_optional_tools_run_plainly_and_required_ones_refuse() -> None:
    server, gate = build()
    gate.release.set()
    async with connect(server) as peer:
        plain = await call(peer, "held", caps=PLAIN)
        assert plain["resultType"] == "complete" and "taskId" not in plain
        assert (await call(peer, "greet", name="W"))["content"][0]["text"] == "Hello, W!"
        with pytest.raises(MissingRequiredClientCapability) as info:
            await call(peer, "must_task", caps=PLAIN)
        assert info.value.required_capabilities == {"extensions": {TASKS_EXTENSION_ID: {}}}
        await peer.initialize()
        legacy = await peer.legacy("tools/call", {"name": "held", "arguments": {}})
        assert legacy["content"][0]["text"] == "done x"
        with pytest.raises(MethodNotFound, match="runs only as a task"):
            await peer.legacy("tools/call", {"name": "must_task", "arguments": {}})


async def test_tool_errors_complete_and_protocol_errors_fail() -> None:
    server, _ = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        errored = (await call(peer, "tool_error"))["taskId"]
        failed = (await call(peer, "protocol_error"))["taskId"]
        doubled = (await call(peer, "threaded", n=21))["taskId"]  # a sync body, in a thread
        for task_id in (errored, failed, doubled):
            await server.tasks.wait_for(task_id, timeout=TIMEOUT)
        errored_task = await task_op(peer, "tasks/get", errored)
        failed_task = await task_op(peer, "tasks/get", failed)
        doubled_task = await task_op(peer, "tasks/get", doubled)
    assert errored_task["status"] == "completed" and errored_task["result"]["isError"] is True
    assert failed_task["status"] == "failed" and "result" not in failed_task
    assert failed_task["error"] == {
        "code": INTERNAL_ERROR,
        "message": "exploded",
        "data": {"where": "here"},
    }
    assert failed_task["statusMessage"] == "exploded"
    assert doubled_task["result"]["structuredContent"] == {"result": 42}


async def test_cancel_stops_the_body_and_is_idempotent() -> None:
    server, gate = build()
    async with connect(server) as peer:
        task_id = (await call(peer, "held"))["taskId"]
        await asyncio.wait_for(gate.entered.wait(), TIMEOUT)
        ack = await task_op(peer, "tasks/cancel", task_id)
        assert ack["resultType"] == "complete" and not set(ENVELOPE) & set(ack)
        after = await task_op(peer, "tasks/get", task_id)  # cancelled before the ack
        assert after["status"] == "cancelled" and after["statusMessage"]
        await asyncio.wait_for(gate.cancelled.wait(), TIMEOUT)  # the body really stopped
        again = await task_op(peer, "tasks/cancel", task_id)
        assert again["resultType"] == "complete" and not set(ENVELOPE) & set(again)
        assert server.tasks is not None and server.tasks.running == 0


async def test_cancelling_a_finished_task_changes_nothing() -> None:
    server, gate = build()
    gate.release.set()
    assert server.tasks is not None
    async with connect(server) as peer:
        task_id = (await call(peer, "held"))["taskId"]
        await server.tasks.wait_for(task_id, timeout=TIMEOUT)
        await task_op(peer, "tasks/cancel", task_id)
        assert (await task_op(peer, "tasks/get", task_id))["status"] == "completed"


async def test_task_methods_refuse_clients_without_the_extension_before_anything_else(
    schema_check: SchemaCheck,
) -> None:
    server, _ = build()
    async with connect(server) as peer:
        for method, extra in (
            ("tasks/get", {}),
            ("tasks/update", {"inputResponses": {}}),
            ("tasks/cancel", {}),
        ):
            with pytest.raises(MissingRequiredClientCapability) as info:
                await task_op(peer, method, "no-such-task", caps=PLAIN, **extra)
            assert info.value.required_capabilities == {"extensions": {TASKS_EXTENSION_ID: {}}}
            with pytest.raises(InvalidParams, match="unknown or expired taskId"):
                await task_op(peer, method, "no-such-task", **extra)
        with pytest.raises(
            InvalidParams, match=r"Invalid params for tasks/get: params\.taskId is required"
        ):
            await peer.modern("tasks/get", {}, capabilities=EXT)
    forgive_own_requests(schema_check, 1)


async def test_the_removed_2025_methods_are_method_not_found(schema_check: SchemaCheck) -> None:
    server, _ = build()
    async with connect(server) as peer:
        for method in ("tasks/result", "tasks/list"):
            with pytest.raises(MethodNotFound):
                await peer.modern(method, {"taskId": "x"}, capabilities=EXT)
    forgive_own_requests(schema_check, 2)


async def test_the_legacy_task_param_does_not_make_a_task() -> None:
    server, _ = build()
    async with connect(server) as peer:
        params = {
            "name": "greet",
            "arguments": {"name": "L"},
            "task": {"ttl": 60_000},
            "_meta": meta(EXT),
        }
        # sent without naming the revision: the session's send point would shape the 2026
        # request and drop "task" (not a 2026-07-28 param), and this test wants it on the wire
        result = await peer.session.send_request("tools/call", params)
    assert result["resultType"] == "complete" and "taskId" not in result


def test_registration_checks() -> None:
    plain = Server("plain")
    with pytest.raises(UsageError, match="tasks=True"):
        plain.tool(name="must", task_support="required")(lambda: "x")
    plain.tool(name="maybe", task_support="optional")(lambda: "x")  # just runs plainly
    with pytest.raises(UsageError, match="task_support must be one of"):
        plain.tool(name="bad", task_support="sometimes")(lambda: "x")
    with pytest.raises(UsageError, match="task_start must be one of"):
        plain.tool(name="bad2", task_start="later")(lambda: "x")
    with pytest.raises(UsageError, match="tasks= takes"):
        Server("odd", tasks="yes")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        TaskManager(ttl_ms=0)
    with pytest.raises(UsageError):
        TaskManager(poll_interval_ms=-1)
    with pytest.raises(UsageError):
        TaskManager(max_running=0)
    store = InMemoryTaskStore()
    with_store = Server("stored", tasks=store)
    assert with_store.tasks is not None and with_store.tasks.store is store
    assert Server("off", tasks=False).tasks is None
    manager = TaskManager()
    Server("one", tasks=manager)
    with pytest.raises(UsageError, match="one Server"):
        Server("two", tasks=manager)


async def test_running_tasks_are_bounded() -> None:
    server, gate = build(tasks=TaskManager(max_running=1))
    async with connect(server) as peer:
        first = (await call(peer, "held"))["taskId"]
        with pytest.raises(InternalError, match="already runs 1 tasks") as info:
            await call(peer, "held")
        assert info.value.code == INTERNAL_ERROR
        gate.release.set()
        assert server.tasks is not None
        await server.tasks.wait_for(first, timeout=TIMEOUT)
        await server.tasks.wait_for((await call(peer, "held"))["taskId"], timeout=TIMEOUT)


async def test_a_body_that_outlives_its_ttl_is_stopped_and_the_task_is_gone() -> None:
    server, gate = build(tasks=TaskManager(ttl_ms=50))
    async with connect(server) as peer:
        task_id = (await call(peer, "held"))["taskId"]

        async def gone() -> None:
            while True:
                try:
                    await task_op(peer, "tasks/get", task_id)
                except InvalidParams as error:
                    assert "unknown or expired" in str(error)
                    return
                await asyncio.sleep(0.01)

        await asyncio.wait_for(gone(), TIMEOUT)
        # Stopped by its TTL. On a loaded machine the 50 ms can run out before the body even
        # starts (then it never does); a body that did start was cancelled, not left running.
        if gate.entered.is_set():
            await asyncio.wait_for(gate.cancelled.wait(), TIMEOUT)


async def test_stopping_the_server_fails_running_tasks() -> None:
    server, gate = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        task_id = (await call(peer, "held"))["taskId"]
        await asyncio.wait_for(gate.entered.wait(), TIMEOUT)
    # the connection (and with it the server's run) ended
    assert gate.cancelled.is_set()
    record = await server.tasks.get(task_id)
    assert record is not None and record.status == "failed"
    assert record.error is not None and "stopped" in record.error["message"]


async def test_progress_and_logs_inside_a_task_are_dropped() -> None:
    server, _ = build()

    @server.tool(task_support="optional")
    async def chatty(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await ctx.info("working on it")
        return "said nothing"

    assert server.tasks is not None
    async with connect(server) as peer:
        params = {
            "name": "chatty",
            "arguments": {},
            "_meta": {"progressToken": "p1", "io.modelcontextprotocol/logLevel": "debug"},
        }
        task_id = (await peer.modern("tools/call", params, capabilities=EXT))["taskId"]
        await server.tasks.wait_for(task_id, timeout=TIMEOUT)
    assert peer.of("notifications/progress") == [] and peer.of("notifications/message") == []

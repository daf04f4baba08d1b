"""Tasks that need input, MRTR before a task, task notifications, owners and shared stores."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest
from _server_harness import connect
from _tasks_helpers import EXT, TIMEOUT, forgive_own_requests

from _schema_check import SchemaCheck
from mcpkit.protocol._errors import InvalidParams, MissingRequiredClientCapability
from mcpkit.server import Context, Question, Server
from mcpkit.server import _tasks_runner as runner_module
from mcpkit.server.tasks import (
    InMemoryTaskStore,
    TaskManager,
    current_task_id,
    set_status_message,
    start_task,
)
from mcpkit.types._jsonrpc import JSONObject, Request

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def build(tasks: Any = True) -> tuple[Server, list[str]]:
    server = Server("tasks-input", tasks=tasks)
    runs: list[str] = []

    @server.tool(task_support="optional")
    async def ask_name(ctx: Context) -> str:
        runs.append(str(current_task_id(ctx)))
        answer = await ctx.elicit("What is your name?", NAME, key="who")
        return f"Hello, {(answer.content or {}).get('name')}!"

    @server.tool(task_support="optional")
    async def two_at_once(ctx: Context) -> str:
        first, second = await ctx.ask(
            Question.elicit("First?", NAME, key="first"),
            Question.elicit("Second?", NAME, key="second"),
        )
        return f"{(first.content or {})['name']}+{(second.content or {})['name']}"

    @server.tool(task_support="required", task_start="explicit")
    async def gather_then_work(ctx: Context) -> str:
        answer = await ctx.elicit("Which file?", NAME, key="file")
        await start_task(ctx, "working on it")
        await set_status_message(ctx, f"processing {(answer.content or {})['name']}")
        return f"processed {(answer.content or {})['name']} in task {current_task_id(ctx)}"

    @server.tool(task_support="optional", task_start="explicit")
    async def maybe_task(ctx: Context) -> str:
        await start_task(ctx)  # without the extension: nothing happens
        return f"task={current_task_id(ctx)}"

    return server, runs


async def get(peer: Any, task_id: str) -> Any:
    return await peer.modern("tasks/get", {"taskId": task_id}, capabilities=EXT)


async def update(peer: Any, task_id: str, responses: Any) -> Any:
    params = {"taskId": task_id, "inputResponses": responses}
    return await peer.modern("tasks/update", params, capabilities=EXT)


async def start(peer: Any, tool: str, caps: Any = EXT) -> dict[str, Any]:
    params = {"name": tool, "arguments": {}}
    result: dict[str, Any] = await peer.modern("tools/call", params, capabilities=caps)
    return result


async def test_a_question_parks_the_task_until_tasks_update_answers_it(
    schema_check: SchemaCheck,
) -> None:
    server, runs = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        task_id = (await start(peer, "ask_name"))["taskId"]
        await server.tasks.wait_for(task_id, "input_required", timeout=TIMEOUT)
        parked = await get(peer, task_id)
        assert parked["status"] == "input_required"
        assert parked["inputRequests"]["who"]["method"] == "elicitation/create"
        ignored = await update(peer, task_id, {"unknown-key": {"ignored": True}})
        assert ignored["resultType"] == "complete" and "taskId" not in ignored
        assert (await get(peer, task_id))["status"] == "input_required"
        # the spec's model (every inputResponses value an object) is checked in one pass,
        # before the task is looked at: even a key the task does not wait on is refused
        for bad in ({"who": "Alice"}, {"unknown-key": 3}):
            with pytest.raises(
                InvalidParams, match=r"params\.inputResponses\[\.\.\.\]: expected `object`"
            ):
                await update(peer, task_id, bad)
        await update(peer, task_id, {"who": accept(name="Alice")})
        done = await server.tasks.wait_for(task_id, timeout=TIMEOUT)
    assert done.result is not None
    assert done.result["content"] == [{"type": "text", "text": "Hello, Alice!"}]
    assert runs == [task_id, task_id]  # the body re-ran from the top with the answer
    forgive_own_requests(schema_check, 3)  # the unknown key's and the two non-objects' shapes


async def test_partial_answers_keep_the_task_waiting_for_the_rest() -> None:
    server, _ = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        task_id = (await start(peer, "two_at_once"))["taskId"]
        await server.tasks.wait_for(task_id, "input_required", timeout=TIMEOUT)
        assert set((await get(peer, task_id))["inputRequests"]) == {"first", "second"}
        await update(peer, task_id, {"first": accept(name="A")})
        partial = await get(peer, task_id)  # immediately: still waiting, only for "second"
        assert partial["status"] == "input_required"
        assert list(partial["inputRequests"]) == ["second"]
        await update(peer, task_id, {"first": accept(name="again"), "second": accept(name="B")})
        done = await server.tasks.wait_for(task_id, timeout=TIMEOUT)
    assert done.result is not None and done.result["content"][0]["text"] == "A+B"


async def test_updates_to_a_working_task_are_ignored() -> None:
    server, _ = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        task_id = (await start(peer, "maybe_task"))["taskId"]
        await server.tasks.wait_for(task_id, timeout=TIMEOUT)
        assert (await update(peer, task_id, {"x": accept()}))["resultType"] == "complete"
        assert (await get(peer, task_id))["status"] == "completed"


async def test_mrtr_gathers_input_before_the_task_is_created() -> None:
    server, _ = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        first = await start(peer, "gather_then_work")
        assert first["resultType"] == "input_required" and "taskId" not in first
        assert list(first["inputRequests"]) == ["file"]
        params = {
            "name": "gather_then_work",
            "arguments": {},
            "inputResponses": {"file": accept(name="report.pdf")},
            "requestState": first["requestState"],
        }
        created = await peer.modern("tools/call", params, capabilities=EXT)
        assert created["resultType"] == "task" and created["statusMessage"] == "working on it"
        assert "requestState" not in created and "inputRequests" not in created
        done = await server.tasks.wait_for(created["taskId"], timeout=TIMEOUT)
    assert done.status == "completed" and done.status_message == "processing report.pdf"
    assert done.result is not None
    assert done.result["content"][0]["text"] == f"processed report.pdf in task {done.task_id}"


async def test_start_task_does_nothing_where_the_call_cannot_become_a_task() -> None:
    server, _ = build()
    async with connect(server) as peer:
        plain = await start(peer, "maybe_task", caps={"elicitation": {}})
        assert plain["resultType"] == "complete"
        assert plain["content"][0]["text"] == "task=None"


async def test_listeners_get_full_detailed_tasks_for_the_ids_they_named() -> None:
    server, _ = build()
    assert server.tasks is not None
    async with connect(server) as peer:
        task_id = (await start(peer, "ask_name"))["taskId"]
        other = (await start(peer, "two_at_once"))["taskId"]
        filters = {"taskIds": [task_id, "no-such-task"], "toolsListChanged": True}
        listen = asyncio.create_task(
            peer.modern("subscriptions/listen", {"notifications": filters}, capabilities=EXT)
        )
        (ack,) = await peer.wait_for("notifications/subscriptions/acknowledged")
        assert ack["notifications"] == {"taskIds": [task_id], "toolsListChanged": True}
        await server.tasks.wait_for(task_id, "input_required", timeout=TIMEOUT)
        await update(peer, task_id, {"who": accept(name="Ann")})
        await server.tasks.wait_for(task_id, timeout=TIMEOUT)
        notes = await peer.wait_for("notifications/tasks", count=2)
        listen.cancel()
        with pytest.raises(asyncio.CancelledError):
            await listen
    assert {n["taskId"] for n in notes} == {task_id}  # nothing about `other` ({other})
    assert notes[-1]["status"] == "completed"
    assert notes[-1]["result"]["content"][0]["text"] == "Hello, Ann!"
    assert all("_meta" in n and "resultType" not in n for n in notes)
    assert other != task_id


async def test_task_notifications_need_the_extension() -> None:
    server, _ = build()
    async with connect(server) as peer:
        with pytest.raises(MissingRequiredClientCapability):
            await peer.modern(
                "subscriptions/listen",
                {"notifications": {"taskIds": ["t"]}},
                capabilities={"elicitation": {}},
            )
        with pytest.raises(InvalidParams, match=r"params\.notifications\.taskIds: expected `array"):
            await peer.modern(
                "subscriptions/listen", {"notifications": {"taskIds": "t"}}, capabilities=EXT
            )


class _Outbound:
    protocol_version: str | None = None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        pass

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        raise AssertionError("no requests in 2026")


def modern_request(request_id: int, method: str, params: JSONObject) -> Request:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": EXT,
        "io.modelcontextprotocol/clientInfo": {"name": "direct", "version": "1"},
    }
    return Request(request_id, method, {**params, "_meta": meta})


async def test_a_task_is_visible_only_to_the_principal_that_created_it() -> None:
    server, _ = build()
    alice = {"subject": "alice", "client_id": "app", "scopes": []}
    bob = {"subject": "bob", "client_id": "app", "scopes": []}
    async with server.running():
        created = await server.handle_request(
            modern_request(1, "tools/call", {"name": "ask_name", "arguments": {}}),
            _Outbound(),
            auth=alice,
        )
        task = {"taskId": created["taskId"]}
        seen = await server.handle_request(
            modern_request(2, "tasks/get", task), _Outbound(), auth=alice
        )
        assert seen["taskId"] == created["taskId"]
        for method in ("tasks/get", "tasks/cancel"):
            with pytest.raises(InvalidParams, match="unknown or expired"):
                await server.handle_request(modern_request(3, method, task), _Outbound(), auth=bob)
            with pytest.raises(InvalidParams):
                await server.handle_request(modern_request(4, method, task), _Outbound())


class SharedStore(InMemoryTaskStore):
    """Stands in for Redis/SQL: one store, several servers (workers) in one test."""

    shared: ClassVar[bool] = True


async def test_answers_and_cancels_delivered_to_another_worker_reach_the_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner_module, "STORE_RECHECK_SECONDS", 0.02)
    store = SharedStore()
    worker_a, _ = build(TaskManager(store))
    worker_b, _ = build(TaskManager(store))
    hold = asyncio.Event()
    stopped = asyncio.Event()

    @worker_a.tool(task_support="optional")
    async def long_job() -> str:
        try:
            await hold.wait()
        finally:
            stopped.set()
        return "never"

    assert worker_a.tasks is not None
    async with connect(worker_a) as peer_a, connect(worker_b) as peer_b:
        asked = (await start(peer_a, "ask_name"))["taskId"]
        await worker_a.tasks.wait_for(asked, "input_required", timeout=TIMEOUT)
        await update(peer_b, asked, {"who": accept(name="Remote")})  # to the other worker
        done = await worker_a.tasks.wait_for(asked, timeout=TIMEOUT)
        assert done.result is not None and done.result["content"][0]["text"] == "Hello, Remote!"
        job = (await start(peer_a, "long_job"))["taskId"]
        await peer_b.modern("tasks/cancel", {"taskId": job}, capabilities=EXT)
        await asyncio.wait_for(stopped.wait(), TIMEOUT)  # worker A noticed and stopped it
        assert (await get(peer_a, job))["status"] == "cancelled"

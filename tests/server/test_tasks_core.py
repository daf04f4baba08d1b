"""2025-11-25 core tasks on the wire (``params.task``, ``tasks/get|result|list|cancel``,
``notifications/tasks/status``), sharing the store with the 2026 extension.

A raw peer speaks exact messages; everything the server sends is schema-checked against the
session's revision. Bodies wait on events, never on sleeps.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _server_harness import connect
from _tasks_helpers import EXT, TIMEOUT, forgive_own_requests

from _schema_check import SchemaCheck
from mcpkit.protocol._errors import InvalidParams, MethodNotFound
from mcpkit.server import Context, Server
from mcpkit.server import tasks as tasks_module
from mcpkit.server.tasks import RELATED_TASK_KEY, TaskManager

ASKED: dict[str, Any] = {}


def build() -> tuple[Server, asyncio.Event]:
    server = Server("core-tasks", tasks=TaskManager(ttl_ms=60_000, poll_interval_ms=25))
    release = asyncio.Event()

    @server.tool(task_support="optional")
    async def held() -> str:
        await release.wait()
        return "held done"

    @server.tool(task_support="required")
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"n": {"type": "string"}}}
        )
        return f"hi {(answer.content or {}).get('n')}"

    @server.tool
    def never() -> str:
        return "plain"

    return server, release


async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    ASKED[method] = params
    return {"action": "accept", "content": {"n": "Ada"}}


async def test_capabilities_and_tool_execution_only_in_2025_11_25(
    schema_check: SchemaCheck,
) -> None:
    server, _ = build()
    async with connect(server) as peer:
        init = await peer.initialize()
        assert init["capabilities"]["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
        tools = {t["name"]: t for t in (await peer.legacy("tools/list"))["tools"]}
        assert tools["held"]["execution"] == {"taskSupport": "optional"}
        assert tools["ask"]["execution"] == {"taskSupport": "required"}
        assert "execution" not in tools["never"]
        modern = {t["name"]: t for t in (await peer.modern("tools/list"))["tools"]}
        assert "execution" not in modern["held"]  # 2026 has no Tool.execution
    async with connect(server) as peer:
        older = await peer.initialize(version="2025-06-18")
        assert "tasks" not in older["capabilities"]
        tools = {t["name"]: t for t in (await peer.legacy("tools/list"))["tools"]}
        assert "execution" not in tools["held"]
        with pytest.raises(MethodNotFound, match="2025-11-25"):
            await peer.legacy("tasks/list")
    forgive_own_requests(schema_check, 1)  # tasks/list is not a 2025-06-18 method: on purpose


async def test_create_poll_result_with_related_task_meta_and_status_notifications() -> None:
    server, release = build()
    async with connect(server) as peer:
        await peer.initialize()
        created = await peer.legacy("tools/call", {"name": "held", "task": {"ttl": 999_999_999}})
        task = created["task"]
        assert task["status"] == "working" and task["ttl"] == 60_000  # capped by the server
        assert task["pollInterval"] == 25 and "resultType" not in created
        got = await peer.legacy("tasks/get", {"taskId": task["taskId"]})
        assert got["status"] == "working" and "result" not in got
        pending = asyncio.create_task(peer.legacy("tasks/result", {"taskId": task["taskId"]}))
        release.set()
        result = await asyncio.wait_for(pending, TIMEOUT)
        assert result["content"] == [{"type": "text", "text": "held done"}]
        assert result["_meta"][RELATED_TASK_KEY] == {"taskId": task["taskId"]}
        notes = await peer.wait_for("notifications/tasks/status")
        assert notes[-1]["taskId"] == task["taskId"] and notes[-1]["status"] == "completed"
        assert RELATED_TASK_KEY not in notes[-1].get("_meta", {})
        with pytest.raises(InvalidParams, match="already completed"):
            await peer.legacy("tasks/cancel", {"taskId": task["taskId"]})


async def test_a_question_goes_to_the_session_tagged_and_the_task_waits_input_required() -> None:
    server, _ = build()
    gate, asked = asyncio.Event(), asyncio.Event()

    async def slow_answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        ASKED[method] = params
        asked.set()
        await gate.wait()
        return {"action": "accept", "content": {"n": "Ada"}}

    async with connect(server, slow_answer) as peer:
        await peer.initialize({"elicitation": {}})
        created = await peer.legacy("tools/call", {"name": "ask", "task": {}})
        task_id = created["task"]["taskId"]
        assert server.tasks is not None
        await asyncio.wait_for(asked.wait(), TIMEOUT)
        await server.tasks.wait_for(task_id, "input_required", timeout=TIMEOUT)
        assert ASKED["elicitation/create"]["_meta"][RELATED_TASK_KEY] == {"taskId": task_id}
        assert (await peer.legacy("tasks/get", {"taskId": task_id}))["status"] == "input_required"
        gate.set()
        result = await asyncio.wait_for(peer.legacy("tasks/result", {"taskId": task_id}), TIMEOUT)
        assert result["content"][0]["text"] == "hi Ada"


async def test_refusals(schema_check: SchemaCheck) -> None:
    server, _ = build()
    async with connect(server, answer) as peer:
        await peer.initialize({"elicitation": {}})
        with pytest.raises(MethodNotFound, match=r"without params\.task"):
            await peer.legacy("tools/call", {"name": "never", "task": {}})
        with pytest.raises(MethodNotFound, match="only as a task"):
            await peer.legacy("tools/call", {"name": "ask"})
        with pytest.raises(InvalidParams, match="ttl"):
            await peer.legacy("tools/call", {"name": "held", "task": {"ttl": -1}})
        with pytest.raises(InvalidParams, match="unknown or expired"):
            await peer.legacy("tasks/get", {"taskId": "nope"})
        with pytest.raises(InvalidParams, match="cursor"):
            await peer.legacy("tasks/list", {"cursor": "nope"})
        with pytest.raises(InvalidParams, match=r"params\.cursor: expected `str"):
            await peer.legacy("tasks/list", {"cursor": 3})
        with pytest.raises(InvalidParams, match=r"params\.task\.ttl: expected `int"):
            await peer.legacy("tools/call", {"name": "held", "task": {"ttl": "soon"}})
        with pytest.raises(InvalidParams, match=r"params\.task: expected `object"):
            await peer.legacy("tools/call", {"name": "held", "task": []})
        with pytest.raises(InvalidParams, match=r"tasks/result: params\.taskId is required"):
            await peer.legacy("tasks/result", {})
        forgive_own_requests(schema_check, 4)  # the four malformed params just above
        created = await peer.legacy("tools/call", {"name": "held", "task": {}})
        task_id = created["task"]["taskId"]
        cancelled = await peer.legacy("tasks/cancel", {"taskId": task_id})
        assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task_id
        # the 2026 extension cannot see a 2025 task, even with the id
        with pytest.raises(InvalidParams, match="unknown or expired"):
            await peer.modern("tasks/get", {"taskId": task_id}, capabilities=EXT)


async def test_list_pages_through_this_sessions_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks_module, "MAX_TASKS_PAGE", 2)
    server, release = build()
    release.set()
    async with connect(server) as peer:
        await peer.initialize()
        made = [
            (await peer.legacy("tools/call", {"name": "held", "task": {}}))["task"]["taskId"]
            for _ in range(5)
        ]
        seen: list[str] = []
        cursor = None
        for _ in range(5):
            page = await peer.legacy("tasks/list", {} if cursor is None else {"cursor": cursor})
            assert len(page["tasks"]) <= 2
            seen += [t["taskId"] for t in page["tasks"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert seen == made

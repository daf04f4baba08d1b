"""The client's task API against mcpkit's server, in both eras: 2026-07-28 (Tasks extension)
and 2025-11-25 (core tasks), in-process and over real stdio and HTTP.

Bodies are held by events, never by sleeps. Every message either side sends is schema-checked
for its revision by the autouse fixture (in-process runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import (
    Client,
    QuestionContext,
    TaskCancelled,
    TaskInfo,
    TasksUnsupported,
    UnknownTool,
    UnsupportedInEra,
)
from mcpkit.client._tasks import DEFAULT_POLL_INTERVAL, MAX_POLL_INTERVAL, MIN_POLL_INTERVAL
from mcpkit.protocol._errors import InternalError, InvalidParams
from mcpkit.server import Context, Server, ToolError
from mcpkit.server.middleware import RequestView
from mcpkit.server.tasks import InMemoryTaskStore, TaskManager

FIXTURE: Final = Path(__file__).resolve().parents[1] / "server" / "fixtures" / "tasks_server.py"
MODES: Final = ["2026-07-28", "legacy"]
WAIT: Final = 10.0


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


class Held:
    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.release_after_polls: int | None = None
        """Release the body once the server has answered this many ``tasks/get``."""


def build(poll_ms: int = 20) -> tuple[Server, Held, list[tuple[str, float]]]:
    """A server with task tools; the list records (method, monotonic time) of task requests."""
    server = Server("tasks-client-test", tasks=TaskManager(poll_interval_ms=poll_ms))
    held = Held()
    seen: list[tuple[str, float]] = []

    async def record(request: RequestView, call_next: Any) -> dict[str, Any]:
        if request.method.startswith("tasks/"):
            seen.append((request.method, time.monotonic()))
        polls = sum(1 for method, _ in seen if method == "tasks/get")
        if held.release_after_polls is not None and polls >= held.release_after_polls:
            held.release.set()
        result: dict[str, Any] = await call_next()
        return result

    server.add_middleware(record)

    @server.tool(task_support="optional")
    async def wait_for_release(label: str = "x") -> str:
        held.entered.set()
        await held.release.wait()
        return f"done {label}"

    @server.tool(task_support="required")
    async def confirm(ctx: Context, item: str) -> str:
        answer = await ctx.elicit(
            f"Order {item}?",
            {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
            key="ok",
        )
        ok = answer.accepted and bool((answer.content or {}).get("ok"))
        return f"{item}: {'ordered' if ok else 'kept'}"

    @server.tool(task_support="optional")
    def tool_error() -> str:
        raise ToolError("the tool failed")

    @server.tool(task_support="optional")
    def protocol_error() -> str:
        raise InternalError("exploded")

    @server.tool
    def plain() -> str:
        return "plain answer"

    return server, held, seen


async def accept(params: Any, ctx: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


def client_for(target: Any, mode: str) -> Client:
    return Client(target, mode=mode, elicitation_handler=accept, timeout=WAIT)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
async def test_call_as_task_polls_at_the_servers_interval_and_gets_the_result(mode: str) -> None:
    server, held, seen = build(poll_ms=50)
    statuses: list[str] = []
    async with client_for(server.connect_in_memory(), mode) as client:
        task = await client.call_tool_as_task("wait_for_release", {"label": "a"})
        assert task.task_id and task.status == "working"
        assert task.info is not None and task.info.poll_interval == pytest.approx(0.05)
        held.release_after_polls = 3

        def watch(info: TaskInfo) -> None:
            statuses.append(info.status)

        result = await task.result(on_status=watch, timeout=WAIT)
    assert text_of(result) == "done a" and not result.is_error
    assert statuses[0] == "working" and statuses[-1] == "completed"
    polls = [t for m, t in seen if m == "tasks/get"]
    gaps = [b - a for a, b in itertools.pairwise(polls)][:2]  # while still working
    assert len(gaps) == 2 and min(gaps) >= 0.045, gaps  # honours pollInterval (50 ms)


@pytest.mark.parametrize("mode", MODES)
async def test_a_question_inside_the_task_is_answered_by_the_clients_handler(mode: str) -> None:
    server, _, seen = build()
    async with client_for(server.connect_in_memory(), mode) as client:
        task = await client.call_tool_as_task("confirm", {"item": "tea"})
        result = await task.result(timeout=WAIT)
        assert text_of(result) == "tea: ordered"
        assert task.status == "completed"
    methods = {m for m, _ in seen}
    assert ("tasks/update" in methods) == (mode != "legacy")  # 2026 answers with tasks/update
    assert ("tasks/result" in methods) == (mode == "legacy")  # 2025 reads the result there


@pytest.mark.parametrize("mode", MODES)
async def test_cancel_ends_the_task_and_result_raises(mode: str) -> None:
    server, held, _ = build()
    async with client_for(server.connect_in_memory(), mode) as client:
        task = await client.call_tool_as_task("wait_for_release")
        await asyncio.wait_for(held.entered.wait(), WAIT)
        info = await task.cancel()
        assert info is not None and info.status == "cancelled"
        with pytest.raises(TaskCancelled):
            await task.result(timeout=WAIT)
        assert (await client.get_task(task.task_id or "")).status == "cancelled"
        if mode == "legacy":  # 2025-11-25: cancelling a finished task is -32602
            with pytest.raises(InvalidParams):
                await client.cancel_task(task.task_id or "")
        else:  # 2026: cancel is idempotent
            assert (await client.cancel_task(task.task_id or "")).status == "cancelled"


@pytest.mark.parametrize("mode", MODES)
async def test_tool_errors_and_protocol_errors(mode: str) -> None:
    server, _, _ = build()
    async with client_for(server.connect_in_memory(), mode) as client:
        errored = await client.call_tool_as_task("tool_error")
        result = await errored.result(timeout=WAIT)
        assert result.is_error and "the tool failed" in text_of(result)
        # 2025-11-25 records a tool error as a failed task; the 2026 extension as completed
        assert errored.status == ("failed" if mode == "legacy" else "completed")
        broken = await client.call_tool_as_task("protocol_error")
        with pytest.raises(InternalError, match="exploded"):
            await broken.result(timeout=WAIT)
        assert (await client.get_task(broken.task_id or "")).status == "failed"


async def test_list_tasks_in_2025_is_per_session() -> None:
    server, held, _ = build()
    async with (
        client_for(server.connect_in_memory(), "legacy") as client,
        client_for(server.connect_in_memory(), "legacy") as other,
    ):
        first = await client.call_tool_as_task("wait_for_release", {"label": "1"})
        second = await client.call_tool_as_task("tool_error")
        listed = await client.list_tasks()
        assert [t.task_id for t in listed] == [first.task_id, second.task_id]
        assert await other.list_tasks() == []  # another session sees nothing
        with pytest.raises(InvalidParams):
            await other.get_task(first.task_id or "")
        held.release.set()
        assert text_of(await first.result(timeout=WAIT)) == "done 1"


async def test_2026_has_no_listing_and_may_answer_directly() -> None:
    server, held, _ = build()
    async with client_for(server.connect_in_memory(), "2026-07-28") as client:
        with pytest.raises(UnsupportedInEra):
            await client.list_tasks()
        direct = await client.call_tool_as_task("plain")  # the server decides: no task
        assert direct.task_id is None and direct.status == "completed"
        assert text_of(await direct.result()) == "plain answer"
        held.release.set()
        plain = await client.call_tool("wait_for_release", {"label": "p"})  # not declared:
        assert text_of(plain) == "done p"  # a plain call, never a task


async def test_2025_refuses_tools_that_do_not_run_as_tasks_before_sending() -> None:
    server, _, seen = build()
    async with client_for(server.connect_in_memory(), "legacy") as client:
        with pytest.raises(TasksUnsupported, match="taskSupport"):
            await client.call_tool_as_task("plain")
        with pytest.raises(UnknownTool):
            await client.call_tool_as_task("no_such_tool")
    plain_server = Server("no-tasks")

    @plain_server.tool
    def hello() -> str:
        return "hi"

    async with client_for(plain_server.connect_in_memory(), "legacy") as client:
        with pytest.raises(TasksUnsupported, match=r"tasks\.requests\.tools\.call"):
            await client.call_tool_as_task("hello")
        # no tasks capability at all: the connection refuses tasks/* before sending, and the
        # user gets TasksUnsupported for it (not the connection's MissingServerCapability)
        with pytest.raises(TasksUnsupported, match="tasks capability"):
            await client.get_task("t-1")
        with pytest.raises(TasksUnsupported, match="tasks capability"):
            await client.list_tasks()
        with pytest.raises(TasksUnsupported, match="tasks capability"):
            await client.cancel_task("t-1")
    assert seen == []


class _UnlistableStore(InMemoryTaskStore):
    listable = False  # the server then declares no capabilities.tasks.list


async def test_2025_a_tasks_request_the_capabilities_lack_is_tasks_unsupported() -> None:
    """The server runs tasks but cannot list them: the connection refuses ``tasks/list`` before
    sending (its capability gating), and the user gets the documented TasksUnsupported."""
    server = Server("unlistable", tasks=TaskManager(_UnlistableStore()))
    listed: list[str] = []

    async def record(request: RequestView, call_next: Any) -> dict[str, Any]:
        listed.append(request.method)
        result: dict[str, Any] = await call_next()
        return result

    server.add_middleware(record)

    async with client_for(server.connect_in_memory(), "legacy") as client:
        assert "list" not in client.server_capabilities["tasks"]
        with pytest.raises(TasksUnsupported, match=r"tasks\.list"):
            await client.list_tasks()
    assert "tasks/list" not in listed


# -- real transports -----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def http_fixture() -> AsyncIterator[str]:
    """The fixture server's app on a real uvicorn on 127.0.0.1 (port 0, already listening)."""
    import importlib.util

    import uvicorn

    spec = importlib.util.spec_from_file_location("tasks_fixture_http", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    config = uvicorn.Config(module.server.http_app(), lifespan="on", log_level="warning")
    uv = uvicorn.Server(config)
    serving = asyncio.create_task(uv.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        uv.should_exit = True
        try:
            await asyncio.wait_for(serving, WAIT)
        finally:
            sock.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_tasks_over_real_transports(mode: str, transport: str) -> None:
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            target: Any = [sys.executable, str(FIXTURE)]
        else:
            target = await stack.enter_async_context(http_fixture())
        client = await stack.enter_async_context(client_for(target, mode))
        slow = await client.call_tool_as_task("slow", {"steps": 2})
        assert text_of(await slow.result(timeout=WAIT)) == "counted to 2"
        asked = await client.call_tool_as_task("confirm", {"item": "jam"})
        assert text_of(await asked.result(timeout=WAIT)) == "jam: ordered"
        held = await client.call_tool_as_task("hold")
        info = await held.cancel()
        assert info is not None and info.status == "cancelled"
        failed = await client.call_tool_as_task("boom")
        result = await failed.result(timeout=WAIT)
        assert result.is_error and "boom went the tool" in text_of(result)
        memo = await client.call_tool("memo_count", {})  # ctx.memo: computed once per call
        assert text_of(memo) == "computed 1 time(s); confirmed True"
        if mode == "legacy":
            listed = {t.task_id: t.status for t in await client.list_tasks()}
            assert listed[held.task_id or ""] == "cancelled"
            assert listed[slow.task_id or ""] == "completed"


@pytest.mark.parametrize(
    ("suggested_ms", "seconds"),
    [
        (None, DEFAULT_POLL_INTERVAL),
        (0, MIN_POLL_INTERVAL),
        (250, 0.25),
        (10**9, MAX_POLL_INTERVAL),
    ],
)
def test_the_poll_interval_is_the_servers_clamped(suggested_ms: int | None, seconds: float) -> None:
    modern = {"taskId": "t", "status": "working", "ttlMs": None, "pollIntervalMs": suggested_ms}
    legacy = {"taskId": "t", "status": "working", "ttl": 5, "pollInterval": suggested_ms}
    assert TaskInfo.from_wire(modern, "tasks/get").poll_interval == pytest.approx(seconds)
    assert TaskInfo.from_wire(legacy, "tasks/get").poll_interval == pytest.approx(seconds)

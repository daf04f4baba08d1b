"""The gateway answers as its backends would directly (issue #27), over real transports: the
gateway as a stdio subprocess and on HTTP (uvicorn on loopback), clients in both eras, the
backends stdio children (``one`` spoken to in 2026-07-28, ``two`` in the handshake era).

* a backend sees each front client's own capabilities, so a question the client cannot answer
  is the capability error a direct call gives (never -32603), in the client's revision;
* an invalid cursor is -32602; "resource not found" has the front client's revision's code
  whatever the backend's era;
* a backend's list change is announced for that list only; the same template from two
  backends is listed once.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import msgspec
import pytest

from _loopback import serving
from mcpkit.client import Client, TasksUnsupported
from mcpkit.gateway import ClientRule, Gateway
from mcpkit.gateway._policy import ALLOW_ALL
from mcpkit.protocol._errors import (
    INVALID_REQUEST,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    RESOURCE_NOT_FOUND,
    InvalidParams,
    JSONRPCError,
    ResourceNotFound,
)
from mcpkit.types import (
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ToolListChangedNotification,
)

sys.path.insert(0, str(Path(__file__).resolve().parent / "servers"))
import seams_gateway

SERVERS: Final = Path(__file__).resolve().parent / "servers"
GATEWAY: Final = SERVERS / "seams_gateway.py"
MODES: Final = ["legacy", "2026-07-28"]
TRANSPORTS: Final = ["stdio", "http"]
WAIT: Final = 20.0


@contextlib.asynccontextmanager
async def front(transport: str, mode: str, **options: Any) -> AsyncIterator[Client]:
    """A client of the gateway, over ``transport``, in ``mode``."""
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            target: Any = [sys.executable, str(GATEWAY)]
        else:
            gateway = seams_gateway.build()
            target = f"{await stack.enter_async_context(serving(gateway.http_app()))}/mcp"
        client = Client(target, mode=mode, timeout=WAIT, **options)  # type: ignore[arg-type]
        yield await stack.enter_async_context(client)


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


# -- the front client's own capabilities -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("tool", ["one__ask_name", "one__summarize", "one__count_roots"])
async def test_a_question_the_front_client_cannot_answer_is_its_capability_error(
    transport: str, mode: str, tool: str
) -> None:
    """The client declared no elicitation, sampling or roots: the 2026 backend, shown that,
    refuses as it would directly — -32021 for a 2026 client, -32600 for a legacy one (which
    never gets a code only 2026 defines) — instead of a -32603 from the gateway."""
    async with front(transport, mode) as client:
        with pytest.raises(JSONRPCError) as caught:
            await client.call_tool(tool)
    expected = MISSING_REQUIRED_CLIENT_CAPABILITY if mode != "legacy" else INVALID_REQUEST
    assert caught.value.code == expected, caught.value


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_front_client_that_can_answer_is_asked(transport: str, mode: str) -> None:
    async def name(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async with front(transport, mode, elicitation_handler=name, roots=[]) as client:
        assert _text(await client.call_tool("one__ask_name")) == "accept:{'name': 'Ada'}"
        assert _text(await client.call_tool("one__count_roots")) == "0 roots"


# -- same answers as direct ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    "method", ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]
)
async def test_an_invalid_cursor_is_invalid_params(transport: str, mode: str, method: str) -> None:
    async with front(transport, mode) as client:
        with pytest.raises(InvalidParams, match="Invalid cursor"):
            await client._request(method, {"cursor": "not-a-cursor"})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_resource_not_found_has_the_front_revisions_code(transport: str, mode: str) -> None:
    """``one`` is a 2026 backend (-32602 with data.uri), ``two`` a legacy one (-32002): the
    front client gets its own revision's code from either."""
    expected = RESOURCE_NOT_FOUND if mode == "legacy" else -32602
    async with front(transport, mode) as client:
        for uri in ("one://missing", "two://missing"):
            with pytest.raises(ResourceNotFound) as caught:
                await client.read_resource(uri)
            assert caught.value.code == expected, (uri, caught.value)
            assert caught.value.data == {"uri": uri} or mode == "legacy"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_same_template_from_two_backends_is_listed_once(
    transport: str, mode: str
) -> None:
    async with front(transport, mode) as client:
        templates = [t.uri_template for t in await client.list_resource_templates()]
        assert sorted(templates) == ["one://{name}", "shared://{name}", "two://{name}"]
        read = await client.read_resource("shared://x")
    assert read.contents[0].text == "shared x from one"  # the first backend serves it


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_backend_list_change_announces_that_list_only(transport: str, mode: str) -> None:
    """A tool is added, then a resource: the client hears "tools changed", then "resources
    changed", and never "prompts changed" (nothing about prompts changed)."""
    seen: list[type] = []
    arrived = asyncio.Event()
    kinds = (
        ToolListChangedNotification,
        PromptListChangedNotification,
        ResourceListChangedNotification,
    )

    def record(note: Any) -> None:
        if isinstance(note, kinds):
            seen.append(type(note))
            arrived.set()

    async def wait_for(kind: type) -> None:
        async with asyncio.timeout(WAIT):
            while kind not in seen:
                arrived.clear()
                await arrived.wait()

    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            front(transport, mode, notification_handler=record)
        )
        if mode != "legacy":
            changes = await stack.enter_async_context(
                client.listen(tools=True, prompts=True, resources=True)
            )
            await asyncio.wait_for(changes.__anext__(), WAIT)  # the acknowledgement

            async def pump() -> None:
                async for note in changes:
                    record(note)

            pumping = asyncio.ensure_future(pump())
            stack.callback(pumping.cancel)
        await client.list_tools()
        await client.call_tool("one__grow", {"name": "sprout"})
        await wait_for(ToolListChangedNotification)
        await client.call_tool("one__add_resource", {"name": "extra"})
        await wait_for(ResourceListChangedNotification)
        assert "one__sprout" in {t.name for t in await client.list_tools()}
    assert seen == [ToolListChangedNotification, ResourceListChangedNotification]


# -- the Tasks extension through the gateway -------------------------------------------------------

TASKS: Final = {"io.modelcontextprotocol/tasks": {}}


async def _accept(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_backends_tasks_are_carried_for_a_2026_client(transport: str) -> None:
    """Create, poll to the result, answer the task's question (inputRequests in tasks/get,
    answers with tasks/update) and cancel: each through the gateway, on the backend's task."""
    async with front(transport, "2026-07-28", elicitation_handler=_accept) as client:
        discovered = client.server_capabilities
        assert "io.modelcontextprotocol/tasks" in discovered.get("extensions", {})
        slow = await client.call_tool_as_task("tasks__slow", {"steps": 2})
        assert slow.task_id is not None  # a task on the backend, not a plain answer
        assert _text(await slow.result(timeout=WAIT)) == "counted to 2"
        asked = await client.call_tool_as_task("tasks__confirm", {"item": "jam"})
        assert _text(await asked.result(timeout=WAIT)) == "jam: ordered"
        held = await client.call_tool_as_task("tasks__hold")
        info = await held.cancel()
        assert info is not None and info.status == "cancelled"
        failed = await client.call_tool_as_task("tasks__boom")
        result = await failed.result(timeout=WAIT)
        assert result.is_error  # a tool error: the task completed with isError (2026)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_call_tool_through_the_gateway_takes_the_task_it_gets(transport: str) -> None:
    """A client that declares the extension on every request gets a task from a plain
    call_tool (the output is not lost: call_tool follows the task to its result)."""
    async with front(
        transport, "2026-07-28", elicitation_handler=_accept, extensions=TASKS
    ) as client:
        assert _text(await client.call_tool("tasks__slow", {"steps": 1})) == "counted to 1"
        assert _text(await client.call_tool("tasks__confirm", {"item": "tea"})) == "tea: ordered"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_task_only_tool_is_refused_in_the_clients_revision(
    transport: str, mode: str
) -> None:
    """Without the extension (or in a legacy session) a tool that runs only as a task is
    refused as the backend refuses it directly: -32021 for a 2026 client, -32601 for a legacy
    one (never a code only 2026 defines)."""
    async with front(transport, mode, elicitation_handler=_accept) as client:
        with pytest.raises(JSONRPCError) as caught:
            await client.call_tool("tasks__confirm", {"item": "jam"})
    expected = MISSING_REQUIRED_CLIENT_CAPABILITY if mode != "legacy" else -32601
    assert caught.value.code == expected, caught.value


async def test_another_client_cannot_reach_a_task() -> None:
    """Two clients with their own tokens on one gateway (HTTP): a task is reachable only by
    the client that started it; the other is told it does not exist (-32602)."""
    tokens = {"alice-token-0123456789abcdef": "alice", "bob-token-0123456789abcdef": "bob"}
    rules = {name: ClientRule(ALLOW_ALL) for name in tokens.values()}
    gateway = seams_gateway.build(tokens=tokens, clients=rules)
    async with serving(gateway.http_app()) as base:
        url = f"{base}/mcp"

        def as_(token: str) -> Client:
            target = {"url": url, "headers": {"Authorization": f"Bearer {token}"}}
            return Client(target, mode="2026-07-28", timeout=WAIT)

        alice_token, bob_token = tokens
        async with as_(alice_token) as alice, as_(bob_token) as bob:
            task = await alice.call_tool_as_task("tasks__hold")
            assert task.task_id is not None
            with pytest.raises(InvalidParams):
                await bob.get_task(task.task_id)
            with pytest.raises(InvalidParams):
                await bob.cancel_task(task.task_id)
            assert (await alice.get_task(task.task_id)).status == "working"
            await alice.cancel_task(task.task_id)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_backends_core_tasks_are_carried_for_a_2025_client(transport: str) -> None:
    """2025-11-25 to a 2025-11-25 backend: create (params.task), poll, tasks/result (the
    task's question reaches the client during it), cancel and list, through the gateway."""
    statuses: list[tuple[str, str]] = []
    completed = asyncio.Event()

    def status(note: Any) -> None:  # notifications/tasks/status, carried from the backend
        params = getattr(note, "params", None)
        params = params if isinstance(params, dict) else msgspec.to_builtins(params)
        if getattr(note, "method", "") == "notifications/tasks/status":
            statuses.append((params["taskId"], params["status"]))
            if params["status"] == "completed":
                completed.set()

    async with front(
        transport, "legacy", elicitation_handler=_accept, notification_handler=status
    ) as client:
        assert client.protocol_version == "2025-11-25"
        slow = await client.call_tool_as_task("oldtasks__slow", {"steps": 2})
        assert slow.task_id is not None
        assert _text(await slow.result(timeout=WAIT)) == "counted to 2"
        await asyncio.wait_for(completed.wait(), WAIT)
        assert (slow.task_id, "completed") in statuses
        asked = await client.call_tool_as_task("oldtasks__confirm", {"item": "jam"})
        assert _text(await asked.result(timeout=WAIT)) == "jam: ordered"
        held = await client.call_tool_as_task("oldtasks__hold")
        info = await held.cancel()
        assert info is not None and info.status == "cancelled"
        listed = {t.task_id: t.status for t in await client.list_tasks()}
        assert listed[slow.task_id] == "completed"
        assert listed[held.task_id or ""] == "cancelled"
        # a 2026 backend's tools do not run as 2025 tasks through the gateway: not offered
        with pytest.raises(TasksUnsupported):
            await client.call_tool_as_task("tasks__slow", {"steps": 1})
        assert _text(await client.call_tool("tasks__slow", {"steps": 1})) == "counted to 1"


async def test_a_listen_is_acknowledged_only_once_the_backends_own_listen_is_in_place() -> None:
    """The backend takes a second to accept the gateway's listen of the task. The client's
    listen is acknowledged after that, so a change the client causes right after the ack (the
    task released and completed) is relayed, not lost in the gap (it was, under load)."""
    tasks_server = Path(seams_gateway.TASKS)
    gateway = Gateway(
        {
            "tasks": {
                "command": sys.executable,
                "args": [str(tasks_server)],
                "env": {"TASKS_FIXTURE_LISTEN_DELAY": "1.0"},
            }
        },
        name="slow-listen-gateway",
    )
    async with (
        serving(gateway.http_app()) as url,
        Client(f"{url}/mcp", mode="2026-07-28", timeout=WAIT, extensions=TASKS) as client,
    ):
        held = await client.call_tool_as_task("tasks__hold")
        assert held.task_id is not None
        async with client.listen(task_ids=[held.task_id]) as changes:
            await asyncio.wait_for(changes.__anext__(), WAIT)
            await client.call_tool("tasks__release")
            async with asyncio.timeout(WAIT):
                async for note in changes:
                    params = getattr(note, "params", None) or {}
                    if params.get("taskId") == held.task_id and params.get("status") == "completed":
                        break


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_2026_listen_follows_a_backends_task(transport: str) -> None:
    """A listen naming the client's task (``taskIds``) gets the backend's
    ``notifications/tasks`` for it, through the gateway."""
    async with front(transport, "2026-07-28", extensions=TASKS) as client:
        held = await client.call_tool_as_task("tasks__hold")
        assert held.task_id is not None
        async with client.listen(task_ids=[held.task_id]) as changes:
            ack = await asyncio.wait_for(changes.__anext__(), WAIT)
            assert ack.params.notifications.task_ids == [held.task_id]
            await client.call_tool("tasks__release")
            async with asyncio.timeout(WAIT):
                async for note in changes:
                    params = getattr(note, "params", None) or {}
                    if params.get("taskId") == held.task_id and params.get("status") == "completed":
                        break

"""The official SDK's client (``mcp`` 2.3.0) using 2025-11-25 core tasks against an mcpkit server.

``python mcp_tasks_client.py PYTHON SERVER_SCRIPT`` (run with the peer venv) starts the server
over stdio in legacy mode and uses what the SDK offers for tasks: its typed capabilities and
``Tool.execution``, and its task request/result models (``tasks/get``, ``tasks/result``,
``tasks/list``, ``tasks/cancel``) sent with ``session.send_request``. 2.3.0 has no task helper
methods, and its ``send_request`` validates every ``tools/call`` answer as a ``CallToolResult``,
so it cannot create a task through its public API: creation goes through its dispatcher's raw
send, and the answer is then validated with the SDK's own ``CreateTaskResult`` model. Prints one
JSON summary line for the test.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import mcp_types as types
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters


async def answer(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"ok": True})


async def main(python: str, script: str) -> None:
    target = StdioServerParameters(command=python, args=[script])
    summary: dict[str, Any] = {}
    async with Client(target, mode="legacy", elicitation_callback=answer) as client:
        session = client.session
        caps = client.server_capabilities.tasks
        summary["caps"] = caps.model_dump(by_alias=True, exclude_none=True) if caps else None
        tools = {t.name: t for t in (await client.list_tools()).tools}
        summary["execution"] = {
            name: tool.execution.task_support if tool.execution else None
            for name, tool in sorted(tools.items())
        }

        async def start(name: str, arguments: dict[str, Any]) -> types.Task:
            params = types.CallToolRequestParams(
                name=name, arguments=arguments, task=types.TaskMetadata(ttl=60_000)
            )
            wire = params.model_dump(by_alias=True, mode="json", exclude_none=True)
            raw = await session._dispatcher.send_raw_request("tools/call", wire, {})
            return types.CreateTaskResult.model_validate(raw).task

        async def get(task_id: str) -> types.GetTaskResult:
            request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
            return await session.send_request(request, types.GetTaskResult)

        async def result(task_id: str) -> types.CallToolResult:
            params = types.GetTaskPayloadRequestParams(task_id=task_id)
            request = types.GetTaskPayloadRequest(params=params)
            return await session.send_request(request, types.CallToolResult)

        slow = await start("slow", {"steps": 2})
        summary["created"] = {"status": slow.status, "ttl": slow.ttl}
        polled = await get(slow.task_id)
        while polled.status not in ("completed", "failed", "cancelled"):
            await asyncio.sleep((polled.poll_interval or 100) / 1000)  # the server's interval
            polled = await get(slow.task_id)
        summary["slow_status"] = polled.status
        slow_result = await result(slow.task_id)
        summary["slow_text"] = slow_result.content[0].text  # type: ignore[union-attr]
        summary["related"] = (slow_result.meta or {}).get("io.modelcontextprotocol/related-task")

        confirm = await start("confirm", {"item": "tea"})
        summary["confirm_text"] = (await result(confirm.task_id)).content[0].text  # type: ignore[union-attr]

        hold = await start("hold", {})
        cancel = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=hold.task_id))
        cancelled = await session.send_request(cancel, types.CancelTaskResult)
        summary["cancelled"] = cancelled.status
        try:
            await session.send_request(cancel, types.CancelTaskResult)
        except MCPError as exc:
            summary["cancel_again_code"] = exc.error.code

        listed = await session.send_request(types.ListTasksRequest(), types.ListTasksResult)
        summary["listed"] = sorted(
            (t.task_id == slow.task_id, t.task_id == hold.task_id, t.status) for t in listed.tasks
        )
        boom = await start("boom", {})
        boom_result = await result(boom.task_id)
        summary["boom"] = {
            "is_error": boom_result.is_error,
            "status": (await get(boom.task_id)).status,
        }
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))

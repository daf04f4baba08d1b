"""Generated tools are built with the public ``RegisteredTool.from_schema`` (issue #26).

Their input schema is checked at registration (by ``jsonschema-rs``, cheap enough for thousands
of operations), or at the first call when that package is missing; the tasks the provider starts
have an owner that cancels and awaits them.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from mcpkit.contrib.openapi._fastapi import _app_lifespan
from mcpkit.contrib.openapi._provider import _ServerCheck
from mcpkit.contrib.openapi._tool import make_tool
from mcpkit.errors import UsageError
from mcpkit.server import Server, ToolResult
from mcpkit.testing import connect

BROKEN = {"type": "object", "properties": {"id": {"type": "whole number"}}}
GOOD = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}


async def answer(**arguments: Any) -> ToolResult:
    return ToolResult(content=[{"type": "text", "text": f"got {arguments}"}])


def tool(schema: dict[str, Any]) -> Any:
    return make_tool(
        answer,
        name="get_item",
        title=None,
        description=None,
        annotations=None,
        input_schema=schema,
        output_schema=None,
    )


def test_an_invalid_input_schema_is_refused_at_registration() -> None:
    with pytest.raises(UsageError, match="'get_item': the document's input schema is invalid"):
        tool(BROKEN)


async def test_without_jsonschema_rs_the_schema_is_checked_at_the_first_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema_rs", None)  # import fails: the package is absent
    server = Server("generated")
    server.add_tool(tool(BROKEN))  # nothing checked yet
    good = tool(GOOD)
    good.name = good.definition["name"] = "get_good"
    server.add_tool(good)
    async with connect(server) as client:
        broken = await client.call_tool("get_item", {"id": 1})
        assert broken.is_error
        assert "the document's input schema is invalid" in broken.content[0].text  # type: ignore[union-attr]
        assert (await client.call_tool("get_good", {"id": 1})).content[0].text == "got {'id': 1}"  # type: ignore[union-attr]
        refused = await client.call_tool("get_good", {"id": "one"})
        assert refused.is_error and "`id`" in refused.content[0].text  # type: ignore[union-attr]


async def test_the_server_url_is_judged_once_for_concurrent_first_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judged: list[str] = []
    release = asyncio.Event()

    async def judge(self: _ServerCheck) -> str | None:
        judged.append(self.url)
        await release.wait()
        return "refused"

    monkeypatch.setattr(_ServerCheck, "_judge", judge)
    check = _ServerCheck("http://10.0.0.1")
    waiting = [asyncio.ensure_future(check.problem()) for _ in range(5)]
    await asyncio.sleep(0)  # let every caller reach the lock
    release.set()
    assert await asyncio.gather(*waiting) == ["refused"] * 5
    assert judged == ["http://10.0.0.1"]
    assert await check.problem() == "refused" and len(judged) == 1


async def test_an_app_that_fails_to_start_has_its_lifespan_task_ended() -> None:
    """The app's lifespan task is cancelled *and awaited* before the failure is raised (it was
    only cancelled: still running, its cleanup not done, when the caller saw the error)."""
    events: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "lifespan"
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "no database"})
        try:
            await asyncio.Event().wait()  # a server would wait for the next message here
        finally:
            events.append("app ended")

    with pytest.raises(RuntimeError, match="no database"):
        async with _app_lifespan(app)(Server("x")):
            pass
    assert events == ["app ended"]

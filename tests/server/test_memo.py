"""``ctx.memo``: work before a question runs once, although a 2026 body runs again each round.

Driven by mcpkit's client in-process (both eras, every message schema-checked), over real stdio
and HTTP, and inside a 2026 task whose body re-runs after ``tasks/update``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client, QuestionContext
from mcpkit.server import Context, Server
from mcpkit.server._memo import MAX_MEMO_BYTES
from mcpkit.server.tasks import current_task_id, start_task

FIXTURE: Final = Path(__file__).resolve().parent / "fixtures" / "tasks_server.py"
MODES: Final = ["2026-07-28", "legacy"]
WAIT: Final = 10.0
SCHEMA: Final = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@dataclasses.dataclass
class Quote:
    total: int
    items: list[str]


def build() -> tuple[Server, list[str]]:
    server = Server("memo-test", tasks=True)
    ran: list[str] = []

    @server.tool(task_support="optional")
    async def checkout(ctx: Context, items: list[str]) -> str:
        async def price() -> dict[str, Any]:
            ran.append("price")
            return {"total": 10 * len(items), "items": items}

        quote = await ctx.memo("quote", price, as_type=Quote)
        first = await ctx.elicit(f"Pay {quote.total}?", SCHEMA, key="pay")
        stamp = await ctx.memo("stamp", lambda: ran.append("stamp") or len(ran))
        second = await ctx.elicit("Gift wrap?", SCHEMA, key="wrap")
        paid = bool(first.content and first.content["ok"])
        wrapped = bool(second.content and second.content["ok"])
        return f"{quote.total} {quote.items} paid={paid} wrapped={wrapped} stamp={stamp}"

    @server.tool(task_support="optional", task_start="explicit")
    async def deploy(ctx: Context) -> str:
        plan = await ctx.memo("plan", lambda: ran.append("plan") or "plan-1")
        await start_task(ctx, "deploying")  # the task runs the body again from the top
        return f"deployed {plan} in task {current_task_id(ctx) is not None}"

    @server.tool
    async def hoard(ctx: Context) -> str:
        await ctx.memo("big", lambda: "x" * (MAX_MEMO_BYTES + 1))
        return "unreachable"

    @server.tool
    async def odd(ctx: Context) -> str:
        await ctx.memo("thing", lambda: {"when": object()})
        return "unreachable"

    return server, ran


async def yes(params: Any, ctx: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize("mode", MODES)
async def test_memoised_work_runs_once_across_rounds(mode: str) -> None:
    server, ran = build()
    async with Client(server.connect_in_memory(), mode=mode, elicitation_handler=yes) as client:  # type: ignore[arg-type]
        result = await client.call_tool("checkout", {"items": ["tea", "jam"]})
    assert text_of(result) == "20 ['tea', 'jam'] paid=True wrapped=True stamp=2"
    # 2026 ran the body three times (two questions); each memo computed once all the same
    assert ran == ["price", "stamp"]


async def test_memo_survives_a_tasks_body_re_runs() -> None:
    server, ran = build()
    async with Client(server.connect_in_memory(), elicitation_handler=yes) as client:
        task = await client.call_tool_as_task("checkout", {"items": ["tea"]})
        assert task.task_id is not None
        result = await task.result(timeout=WAIT)
    assert text_of(result) == "10 ['tea'] paid=True wrapped=True stamp=2"
    assert ran == ["price", "stamp"]


async def test_memo_made_before_start_task_reaches_the_task() -> None:
    server, ran = build()
    async with Client(server.connect_in_memory()) as client:
        task = await client.call_tool_as_task("deploy")
        assert task.task_id is not None
        result = await task.result(timeout=WAIT)
    assert text_of(result) == "deployed plan-1 in task True"
    assert ran == ["plan"]


@pytest.mark.parametrize("mode", MODES)
async def test_past_the_bound_and_non_json_values_are_clear_errors(mode: str) -> None:
    server, _ = build()
    async with Client(server.connect_in_memory(), mode=mode) as client:  # type: ignore[arg-type]
        big = await client.call_tool("hoard")
        odd = await client.call_tool("odd")
    assert big.is_error
    assert f"over the {MAX_MEMO_BYTES}-byte bound" in text_of(big)
    assert "memo its key" in text_of(big)
    assert odd.is_error and "must be JSON-encodable" in text_of(odd)


async def test_the_memo_travels_sealed_over_real_stdio() -> None:
    target = [sys.executable, str(FIXTURE)]
    async with Client(target, mode="2026-07-28", elicitation_handler=yes, timeout=WAIT) as client:
        result = await client.call_tool("memo_count", {})
    assert text_of(result) == "computed 1 time(s); confirmed True"

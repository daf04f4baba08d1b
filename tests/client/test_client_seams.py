"""The client where it meets servers (issue #27), over real stdio and HTTP.

A plain ``call_tool`` takes a ``CreateTaskResult`` once the Tasks extension is declared; the
answers to a 2025-11-25 task's questions name their task; an elicitation answer that does not
fit the requested schema never leaves; completions of unknown URL elicitations are ignored; a
URL elicitation without an id is refused; roots are ``file://`` URIs only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client, QuestionContext
from mcpkit.client._tasks import TASKS_EXTENSION
from mcpkit.protocol._errors import MissingRequiredClientCapability, UsageError
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types._jsonrpc import Response
from mcpkit.types.meta import RELATED_TASK

from .conftest import raw_server

TASKS_FIXTURE: Final = (
    Path(__file__).resolve().parents[1] / "server" / "fixtures" / "tasks_server.py"
)
WAIT: Final = 10.0
AGE_FORM: Final = {
    "message": "How old?",
    "requestedSchema": {
        "type": "object",
        "properties": {"age": {"type": "integer"}},
        "required": ["age"],
    },
}


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def answer_of(result: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(result.content[0].text)
    return answer


def ask(method: str, params: dict[str, Any], *more: str) -> list[str]:
    return raw_server("--call", "ask", "--ask", method, "--ask-params", json.dumps(params), *more)


async def accept_ok(params: Any, ctx: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


@contextlib.asynccontextmanager
async def tasks_http() -> AsyncIterator[str]:
    """The tasks fixture server on a real uvicorn on 127.0.0.1 (port 0)."""
    import importlib.util

    import uvicorn

    spec = importlib.util.spec_from_file_location("tasks_fixture_seams", TASKS_FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(
        uvicorn.Config(module.server.http_app(), lifespan="on", log_level="warning")
    )
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        try:
            await asyncio.wait_for(serving, WAIT)
        finally:
            sock.close()


# -- call_tool with the Tasks extension declared -------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_call_tool_follows_a_created_task_when_the_extension_is_declared(
    transport: str,
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            target: Any = [sys.executable, str(TASKS_FIXTURE)]
        else:
            target = await stack.enter_async_context(tasks_http())
        client = await stack.enter_async_context(
            Client(
                target,
                mode="2026-07-28",
                elicitation_handler=accept_ok,
                extensions={TASKS_EXTENSION: {}},
                timeout=WAIT,
            )
        )
        # the server makes both tasks (the client declared the extension on the call)
        assert text_of(await client.call_tool("slow", {"steps": 2})) == "counted to 2"
        assert text_of(await client.call_tool("confirm", {"item": "jam"})) == "jam: ordered"
        # a tool that never runs as a task still answers directly
        assert text_of(await client.call_tool("release")) == "ok"


async def test_without_the_extension_a_task_only_tool_is_refused_not_a_task() -> None:
    async with Client(
        [sys.executable, str(TASKS_FIXTURE)], mode="2026-07-28", timeout=WAIT
    ) as client:
        with pytest.raises(MissingRequiredClientCapability):
            await client.call_tool("confirm", {"item": "jam"})
        assert text_of(await client.call_tool("slow", {"steps": 1})) == "counted to 1"


# -- answers to a task's questions name the task (2025-11-25) ------------------------------------


async def test_answers_to_a_tasks_question_carry_related_task() -> None:
    related = {"taskId": "task-7"}
    params = {**AGE_FORM, "_meta": {RELATED_TASK: related}}

    async def forty(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": {"age": 40}}

    async with Client(ask("elicitation/create", params), elicitation_handler=forty) as client:
        assert client.protocol_version == "2025-11-25"
        answer = answer_of(await client.call_tool("t"))
    assert answer["result"]["_meta"] == {RELATED_TASK: related}
    assert answer["result"]["content"] == {"age": 40}


async def test_answers_outside_a_task_carry_no_related_task() -> None:
    async def forty(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": {"age": 40}}

    async with Client(ask("elicitation/create", AGE_FORM), elicitation_handler=forty) as client:
        answer = answer_of(await client.call_tool("t"))
    assert "_meta" not in answer["result"]


# -- elicitation answers are checked before they leave ---------------------------------------------


async def wrong_type(params: Any, ctx: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": {"age": "ten"}}


async def test_a_legacy_answer_that_misses_the_schema_is_not_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with Client(ask("elicitation/create", AGE_FORM), elicitation_handler=wrong_type) as c:
        answer = answer_of(await c.call_tool("t"))
    assert "result" not in answer
    assert answer["error"]["code"] == -32603
    assert "does not match the requested schema at $.age" in caplog.text


async def test_a_2026_answer_that_misses_the_schema_fails_the_call() -> None:
    server = raw_server(
        "--discover",
        "answer",
        "--call",
        "mrtr-ask",
        "--ask",
        "elicitation/create",
        "--ask-params",
        json.dumps(AGE_FORM),
    )
    async with Client(server, elicitation_handler=wrong_type) as client:
        assert client.era == "modern"
        with pytest.raises(UsageError, match=r"\$\.age"):
            await client.call_tool("t")


async def test_a_valid_answer_with_defaults_filled_in_is_sent() -> None:
    form = {
        "message": "How old?",
        "requestedSchema": {
            "type": "object",
            "properties": {"age": {"type": "integer", "default": 7}},
            "required": ["age"],
        },
    }

    async def empty(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": {}}

    async with Client(ask("elicitation/create", form), elicitation_handler=empty) as client:
        answer = answer_of(await client.call_tool("t"))
    assert answer["result"] == {"action": "accept", "content": {"age": 7}}


# -- URL elicitation: ids and completions ----------------------------------------------------------

URL_ASK: Final = {
    "mode": "url",
    "message": "Sign in",
    "url": "https://example.com/auth?state=1",
    "elicitationId": "e-1",
}


async def test_completion_of_an_unknown_or_finished_id_is_ignored() -> None:
    completions: list[str] = []
    barrier = asyncio.Event()

    async def consent(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "accept"}

    def note(notification: Any) -> None:
        barrier.set()

    complete = "notifications/elicitation/complete"
    server = ask(
        "elicitation/create",
        URL_ASK,
        *("--then-notify", complete, "--then-params", json.dumps({"elicitationId": "e-9"})),
        *("--then-notify", complete, "--then-params", json.dumps({"elicitationId": "e-1"})),
        *("--then-notify", complete, "--then-params", json.dumps({"elicitationId": "e-1"})),
        *("--then-notify", "notifications/tools/list_changed"),
    )
    async with Client(
        server,
        elicitation_handler=consent,
        url_elicitation=True,
        elicitation_complete_handler=completions.append,
        notification_handler=note,
    ) as client:
        await client.call_tool("t")
        await asyncio.wait_for(barrier.wait(), WAIT)
    assert completions == ["e-1"]  # e-9 unknown, the second e-1 already finished


async def test_a_declined_url_elicitation_is_not_completed() -> None:
    completions: list[str] = []
    barrier = asyncio.Event()

    async def decline(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        return {"action": "decline"}

    server = ask(
        "elicitation/create",
        URL_ASK,
        *("--then-notify", "notifications/elicitation/complete"),
        *("--then-params", json.dumps({"elicitationId": "e-1"})),
        *("--then-notify", "notifications/tools/list_changed"),
    )
    async with Client(
        server,
        elicitation_handler=decline,
        url_elicitation=True,
        elicitation_complete_handler=completions.append,
        notification_handler=lambda n: barrier.set(),
    ) as client:
        await client.call_tool("t")
        await asyncio.wait_for(barrier.wait(), WAIT)
    assert completions == []


async def test_a_url_elicitation_without_an_id_is_refused_as_invalid_params() -> None:
    asked: list[Any] = []

    async def consent(params: Any, ctx: QuestionContext) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    no_id = {k: v for k, v in URL_ASK.items() if k != "elicitationId"}
    async with Client(
        ask("elicitation/create", no_id), elicitation_handler=consent, url_elicitation=True
    ) as client:
        answer = answer_of(await client.call_tool("t"))
    assert answer["error"]["code"] == -32602
    assert "elicitationId" in answer["error"]["message"]
    assert asked == []


# -- roots are file:// URIs ------------------------------------------------------------------------


async def test_set_roots_refuses_uris_that_are_not_file_uris() -> None:
    async with Client(ask("roots/list", {}), roots=[{"uri": "file:///a"}]) as client:
        with pytest.raises(UsageError, match="file://"):
            await client.set_roots([{"uri": "https://example.com/repo"}])
        answer = answer_of(await client.call_tool("t"))  # the roots in force are unchanged
    assert answer["result"] == {"roots": [{"uri": "file:///a"}]}


def test_roots_given_at_creation_must_be_file_uris() -> None:
    with pytest.raises(UsageError, match="file://"):
        Client(ask("roots/list", {}), roots=[{"uri": "s3://bucket/key"}])


async def test_a_roots_function_returning_other_uris_is_not_answered() -> None:
    async with Client(ask("roots/list", {}), roots=lambda: [{"uri": "http://x/"}]) as client:
        answer = answer_of(await client.call_tool("t"))
    assert answer["error"]["code"] == -32603
    assert "result" not in answer


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_answers_inside_a_core_task_name_the_task_over_real_transports(
    transport: str,
) -> None:
    """mcpkit's server asks inside a 2025-11-25 task (with ``related-task``); the client's
    answer, as it leaves, carries the same ``related-task``."""
    answers: list[Any] = []

    def observe(message: Any, version: str | None, method: str | None) -> None:
        if method == "elicitation/create" and isinstance(message, Response):
            answers.append(message.result)

    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            target: Any = [sys.executable, str(TASKS_FIXTURE)]
        else:
            target = await stack.enter_async_context(tasks_http())
        client = await stack.enter_async_context(
            Client(target, mode="legacy", elicitation_handler=accept_ok, timeout=WAIT)
        )
        add_outbound_observer(observe)
        stack.callback(remove_outbound_observer, observe)
        task = await client.call_tool_as_task("confirm", {"item": "jam"})
        assert text_of(await task.result(timeout=WAIT)) == "jam: ordered"
    assert answers, "the client answered no elicitation"
    assert all(a["_meta"][RELATED_TASK] == {"taskId": task.task_id} for a in answers)

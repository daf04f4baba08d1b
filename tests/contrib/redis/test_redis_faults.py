"""Redis goes away and comes back: requests that need it fail fast with 503 and a reason, the
rest keep working, nothing hangs, and service recovers without a restart.

The test runs its *own* ``redis-server`` (free port, no persistence), kills it and starts a new
one on the same port; the shared Redis of the machine is never touched. The app is served by a
real uvicorn on loopback.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from _asgi_harness import (
    ACCEPT_BOTH,
    LegacyPeer,
    bound,
    call_body,
    initialize_body,
    modern_body,
    modern_headers,
    running,
)
from _redis_env import PrivateRedis, new_prefix

from mcpkit.contrib.redis import RedisState, RedisUnavailable
from mcpkit.contrib.redis import _state as redis_state
from mcpkit.server import Context, Server
from mcpkit.server.tasks import set_status_message

_T = TypeVar("_T")
FAIL_FAST_S = 5.0
"""A request needing Redis while it is down is answered within this (timeouts are ~1 s)."""


def _server() -> Server:
    server = Server("faults", "1.0.0", tasks=True)

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"hello {(answer.content or {}).get('name')}"

    return server


async def _poll(read: Callable[[], Awaitable[_T]], done: Callable[[_T], bool]) -> _T:
    """Bounded polling of state that lives in another process (Redis): no event to wait on."""
    async with asyncio.timeout(FAIL_FAST_S * 2):
        while not done(value := await read()):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    return value


def _ask(request_id: int, **more: Any) -> dict[str, Any]:
    params = {"name": "ask", "arguments": {}, **more}
    return modern_body(request_id, "tools/call", params, capabilities={"elicitation": {}})


async def _timed_post(http: httpx.AsyncClient, body: Any, headers: Any) -> tuple[Any, float]:
    started = time.monotonic()
    response = await bound(http.post("/mcp", json=body, headers=headers), FAIL_FAST_S * 2)
    return response, time.monotonic() - started


async def test_redis_down_answers_503_fast_and_recovers_without_restart(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path)
    redis.start()
    try:
        state = RedisState(
            redis.url, prefix=new_prefix(), connect_timeout=0.5, socket_timeout=0.5, retries=1
        )
        app = _server().http_app(state=state)
        async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
            peer = LegacyPeer(http)
            await peer.initialize()
            assert (
                await peer.call(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
            )["result"]["structuredContent"] == {"result": 3}

            redis.kill()
            # a new session needs Redis: 503 with the reason, quickly
            response, took = await _timed_post(http, initialize_body(), ACCEPT_BOTH)
            assert response.status_code == 503, response.text
            assert "Redis is unavailable" in response.json()["error"]["message"]
            assert response.headers.get("retry-after") == "1"
            assert took < FAIL_FAST_S
            # so does a request of an existing session
            response, took = await _timed_post(http, call_body(3, "add", a=1, b=1), peer.headers())
            assert response.status_code == 503 and took < FAIL_FAST_S
            # 2026-07-28 requests need no shared state: they keep working
            modern = modern_body(4, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})
            ok = await http.post("/mcp", json=modern, headers=modern_headers(modern))
            assert ok.status_code == 200 and ok.json()["result"]["structuredContent"] == {
                "result": 4
            }
            assert (await http.get("/healthz")).status_code == 200
            # ... unless they need it: a task lives in Redis (503, and a JSON-RPC error saying so)
            extension = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
            get = modern_body(5, "tasks/get", {"taskId": "some-task"}, capabilities=extension)
            response, took = await _timed_post(http, get, modern_headers(get))
            assert response.status_code == 503 and took < FAIL_FAST_S
            error = response.json()["error"]
            assert response.json()["id"] == 5 and "Redis is unavailable" in error["message"]
            assert response.headers.get("retry-after") == "1"

            # Redis is back (empty: it had no persistence). No restart of the app needed.
            redis.start()
            fresh = LegacyPeer(http)
            await bound(fresh.initialize())
            reply = await fresh.call(
                5, "tools/call", {"name": "add", "arguments": {"a": 3, "b": 4}}
            )
            assert reply["result"]["structuredContent"] == {"result": 7}
            # the old session was lost with Redis's memory: the client is told to start over
            lost = await http.post(
                "/mcp", json=call_body(6, "add", a=1, b=1), headers=peer.headers()
            )
            assert lost.status_code == 404
            # and the bus found its way back by itself
            await bound(state.bus.subscribed.wait(), 15)
    finally:
        redis.kill()


async def test_a_hanging_redis_is_answered_like_a_dead_one(tmp_path: Path) -> None:
    """Redis stops answering (SIGSTOP: connections stay open, replies never come). A 2026 task
    method then waits out the socket timeout — longer than ``sse_after`` — and must still be
    answered as when Redis is down: HTTP 503 with ``Retry-After`` and the reason, as JSON, not
    an SSE stream (HTTP 200) whose one event is the error."""
    redis = PrivateRedis(tmp_path)
    redis.start()
    assert redis.process is not None
    try:
        state = RedisState(
            redis.url, prefix=new_prefix(), connect_timeout=0.3, socket_timeout=0.4, retries=0
        )
        app = _server().http_app(state=state, sse_after=0.2)
        extension = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
        async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
            get = modern_body(1, "tasks/get", {"taskId": "some-task"}, capabilities=extension)
            known = await http.post("/mcp", json=get, headers=modern_headers(get))
            assert known.json()["error"]["code"] == -32602  # Redis answers: no such task
            redis.process.send_signal(signal.SIGSTOP)
            try:
                for request_id, method in enumerate(("tasks/get", "tasks/cancel"), start=2):
                    body = modern_body(
                        request_id, method, {"taskId": "some-task"}, capabilities=extension
                    )
                    response, took = await _timed_post(http, body, modern_headers(body))
                    assert response.status_code == 503, response.text
                    assert response.headers["content-type"].startswith("application/json")
                    assert response.headers.get("retry-after") == "1"
                    assert response.json()["id"] == request_id
                    assert "Redis is unavailable" in response.json()["error"]["message"]
                    assert took < FAIL_FAST_S
            finally:
                redis.process.send_signal(signal.SIGCONT)
            again = await http.post("/mcp", json=get, headers=modern_headers(get))
            assert again.json()["error"]["code"] == -32602  # served again once it answers
    finally:
        redis.kill()


async def test_a_worker_started_while_redis_is_down_never_seals_with_a_key_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that could not load the shared ``requestState`` keys at startup must not seal
    MRTR rounds with a key of its own (no other worker could verify them: ``-32602 unknown
    key``): it answers 503 like any request that needs Redis, and once Redis is back its rounds
    are sealed with the shared key — another worker completes them."""
    monkeypatch.setattr(redis_state, "BUS_READY_SECONDS", 0.2)  # do not wait at startup
    redis = PrivateRedis(tmp_path)  # not started yet
    prefix = new_prefix()
    options = {"prefix": prefix, "connect_timeout": 0.3, "socket_timeout": 0.3, "retries": 0}
    late = _server().http_app(state=RedisState(redis.url, **options))
    try:
        async with running(late) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
            refused, took = await _timed_post(http, _ask(1), modern_headers(_ask(1)))
            assert refused.status_code == 503, refused.text
            assert refused.headers.get("retry-after") == "1"
            assert "requestState keys" in refused.json()["error"]["message"]
            assert took < FAIL_FAST_S

            redis.start()
            asked = await _poll(  # keys are retried every 0.5 s
                lambda: http.post("/mcp", json=_ask(2), headers=modern_headers(_ask(2))),
                lambda answer: answer.status_code != 503,
            )
            result = asked.json()["result"]
            assert result["resultType"] == "input_required"
            (key,) = result["inputRequests"]
            other = _server().http_app(state=RedisState(redis.url, **options))
            async with running(other) as other_url:
                retry = _ask(
                    3,
                    inputResponses={key: {"action": "accept", "content": {"name": "Di"}}},
                    requestState=result["requestState"],
                )
                done = await http.post(
                    f"{other_url}/mcp", json=retry, headers=modern_headers(retry)
                )
                assert done.status_code == 200, done.text
                assert done.json()["result"]["content"][0]["text"] == "hello Di"
    finally:
        redis.kill()


async def test_a_task_outlives_a_redis_hang_and_its_outcome_is_recorded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A task body whose status update and outcome come while Redis hangs: the update is
    skipped (a courtesy, not a reason to die), the outcome waits for Redis and is recorded once
    it answers — ``completed`` with the body's result, never left ``working`` nor ``failed``
    with an internal error the body never had."""
    caplog.set_level(logging.WARNING)
    started, release, waiting = asyncio.Event(), asyncio.Event(), asyncio.Event()

    class _Waiting(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "waits for the task store" in record.getMessage():
                waiting.set()

    logging.getLogger("mcpkit.server.tasks").addHandler(handler := _Waiting())
    server = _server()

    @server.tool(task_support="optional")
    async def outage_job(ctx: Context) -> str:
        await set_status_message(ctx, "step 1")
        started.set()
        await release.wait()
        await set_status_message(ctx, "step 2")  # Redis hangs now
        return "done"

    redis = PrivateRedis(tmp_path)
    redis.start()
    assert redis.process is not None
    state = RedisState(
        redis.url, prefix=new_prefix(), connect_timeout=0.3, socket_timeout=0.3, retries=0
    )
    extension = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    try:
        async with (
            running(server.http_app(state=state)) as url,
            httpx.AsyncClient(base_url=url, timeout=30) as http,
        ):
            call = modern_body(1, "tools/call", {"name": "outage_job", "arguments": {}},
                               capabilities=extension)  # fmt: skip
            created = await http.post("/mcp", json=call, headers=modern_headers(call))
            task_id = created.json()["result"]["taskId"]
            await bound(started.wait())
            redis.process.send_signal(signal.SIGSTOP)
            try:
                release.set()
                await bound(waiting.wait(), FAIL_FAST_S * 2)  # the outcome waits for Redis
                assert any("status message not saved" in r.message for r in caplog.records)
            finally:
                redis.process.send_signal(signal.SIGCONT)
            get = modern_body(2, "tasks/get", {"taskId": task_id}, capabilities=extension)

            async def read() -> dict[str, Any]:
                answer = await http.post("/mcp", json=get, headers=modern_headers(get))
                result: dict[str, Any] = answer.json()["result"]
                return result

            record = await _poll(read, lambda got: got["status"] != "working")
            assert record["status"] == "completed", record
            assert record["result"]["content"][0]["text"] == "done"
    finally:
        logging.getLogger("mcpkit.server.tasks").removeHandler(handler)
        redis.kill()


async def test_stores_raise_redis_unavailable_within_their_timeouts(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path)
    redis.start()
    state = RedisState(
        redis.url, prefix=new_prefix(), connect_timeout=0.3, socket_timeout=0.3, retries=1
    )
    try:
        record = await state.session_store.create(protocol_version="2025-06-18", now=time.time())
        redis.kill()
        for operation in (
            state.session_store.touch(record.id, time.time()),
            state.event_store.append(record.id, "get", b"{}"),
            state.task_store.get("nope"),
            state.keys.load(),
        ):
            started = time.monotonic()
            try:
                await asyncio.wait_for(operation, FAIL_FAST_S * 2)
            except RedisUnavailable as exc:
                assert "Redis is unavailable" in str(exc)
            else:
                raise AssertionError("an operation on a dead Redis succeeded")
            assert time.monotonic() - started < FAIL_FAST_S
        redis.start()
        again = await state.session_store.create(protocol_version="2025-06-18", now=time.time())
        assert await state.session_store.get(again.id) is not None
    finally:
        redis.kill()
        await state.client.aclose()

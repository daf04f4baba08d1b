"""Three workers behind HAProxy sharing their state on a real Redis (``RedisState``).

Round robin without stickiness sends consecutive requests of one client to different workers;
the proxy's log (:meth:`Deployment.routes`) and the pids the tools report show where each request
really landed. Each test gets its own key prefix and deletes its keys afterwards.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import MCPError
from mcpkit.types import ResourceUpdatedNotification, SubscriptionsAcknowledgedNotification

from ._deployment import Deployment, Worker, deployment, require_redis
from ._peer import SdkProcess, run_sdk_client

MODERN: Final = "2026-07-28"
TASKS: Final = {"io.modelcontextprotocol/tasks": {}}
NOTE_TIMEOUT: Final = 30.0
"""Seconds to wait for one notification (a reconnect waits the server's retry delay first)."""
DEATH_TIMEOUT: Final = 60.0
"""Seconds for a killed worker's task to be declared failed (its lease in worker.py is 2 s)."""
_ASKED: Final = re.compile(r"^(\w+) asked_on=(\d+) finished_on=(\d+)$")


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[Deployment]:
    url = require_redis()
    prefix = f"mcpkit-deploy-{secrets.token_hex(6)}:"
    try:
        with deployment(tmp_path, args=["--redis", url, "--prefix", prefix]) as running:
            yield running
    finally:
        import redis

        client = redis.Redis.from_url(url)
        try:
            keys = list(client.scan_iter(match=f"{prefix}*", count=500))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


async def _answer(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


def _pid(result: Any) -> int:
    return int(result.content[0].text)


async def _next(notes: AsyncIterator[Any], kind: type) -> Any:
    async with asyncio.timeout(NOTE_TIMEOUT):
        async for note in notes:
            if isinstance(note, kind):
                return note
    raise AssertionError("the notification stream ended")


# -- legacy sessions ---------------------------------------------------------------------------


async def test_legacy_session_on_every_worker_elicitation_answered_through_another(
    shared: Deployment,
) -> None:
    async with Client(shared.url, mode="legacy", elicitation_handler=_answer) as client:
        served = [_pid(await client.call_tool("whoami", {})) for _ in range(6)]
        assert set(served) == shared.pids  # one session, served by all three workers
        asked = []
        for _ in range(3):
            text = (await client.call_tool("ask", {})).content[0].text
            found = _ASKED.match(text)
            assert found is not None and found.group(1) == "Ada", text
            assert found.group(2) == found.group(3)  # one handler: it waited, then finished
            asked.append(int(found.group(2)))
    posts = [r for r in shared.routes() if r.method == "POST"]
    # each ask is a POST answered with an SSE stream (200) carrying elicitation/create, then the
    # client's answer is a POST of its own (202): the last six POSTs are those three pairs
    pairs = list(zip(posts[-6::2], posts[-5::2], strict=True))
    assert [(a.status, b.status) for a, b in pairs] == [(200, 202)] * 3, posts
    for (ask, _), pid in zip(pairs, asked, strict=True):
        assert shared.workers[ask.worker].pid == pid  # the handler ran where the ask landed
    assert any(ask.worker != answer.worker for ask, answer in pairs)  # ...and was answered
    # through another worker, which relayed the answer to the waiting handler


@pytest.mark.peers
async def test_official_sdk_legacy_session_across_workers(shared: Deployment) -> None:
    summary = await run_sdk_client(shared.url, "legacy", calls=6)
    assert set(summary["whoami"]) == shared.pids
    found = _ASKED.match(summary["ask"])
    assert found is not None and found.group(1) == "Grace"


async def test_sse_resume_after_kill_9_of_the_worker_holding_the_stream(
    shared: Deployment,
) -> None:
    """The legacy GET stream's events are in a Redis stream: after ``kill -9`` of the worker
    holding the connection, the client reconnects (``Last-Event-ID``) through the proxy to
    another worker and gets every later event once, in order, including those published while
    it was disconnected."""
    uris = [f"test://feed/{n}" for n in range(1, 12)]
    async with (
        Client(shared.url, mode="legacy") as listener,
        listener.listen(resource_uris=uris) as changes,
        Client(shared.url, mode=MODERN) as publisher,
    ):
        notes = aiter(changes)
        await _next(notes, SubscriptionsAcknowledgedNotification)
        seen: list[str] = []
        for uri in uris[:5]:
            await publisher.call_tool("touch", {"uri": uri})
            seen.append((await _next(notes, ResourceUpdatedNotification)).params.uri)
        holder, opened = _stream_holder(shared)
        holder.kill()
        for uri in uris[5:10]:
            pid = _pid(await publisher.call_tool("touch", {"uri": uri}))
            assert pid != holder.pid
        while len(seen) < 10:
            seen.append((await _next(notes, ResourceUpdatedNotification)).params.uri)
        assert seen == uris[:10]  # nothing lost, nothing twice, in order
        await publisher.call_tool("touch", {"uri": uris[10]})
        last = await _next(notes, ResourceUpdatedNotification)
        assert last.params.uri == uris[10]  # no replayed duplicate was pending before it
    resumed = [r for r in shared.routes() if r.method == "GET" and r.status == 200][opened:]
    assert resumed and all(shared.workers[r.worker].pid != holder.pid for r in resumed)


def _stream_holder(shared: Deployment) -> tuple[Worker, int]:
    """The worker holding the GET stream now (the last GET opened of every one answered so
    far), and how many GETs were opened up to it: the later ones are the resumed streams."""
    gets = [r for r in shared.routes() if r.method == "GET" and r.status == 200]
    assert gets, "no GET stream was logged"
    return shared.workers[gets[-1].worker], len(gets)


async def test_a_call_whose_worker_is_killed_fails_once_the_lease_says_so(
    shared: Deployment,
) -> None:
    """``kill -9`` of the worker running a legacy POST's handler: the client resumes the stream
    on another worker, gets what was stored, and then — as soon as the dead worker's lease
    (2 s here) has run out — the JSON-RPC error that ends the request, instead of a stream that
    ends silently (or never)."""
    started = asyncio.Event()
    runner: list[int] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        runner.append(int(message or 0))
        started.set()

    async with Client(shared.url, mode="legacy") as client:
        call = asyncio.create_task(client.call_tool("stall", {}, progress_callback=progress))
        try:
            async with asyncio.timeout(NOTE_TIMEOUT):
                await started.wait()
            shared.worker(runner[0]).kill()
            with pytest.raises(MCPError, match="worker running this request stopped") as caught:
                async with asyncio.timeout(DEATH_TIMEOUT):
                    await call
        finally:
            call.cancel()
    assert caught.value.code == -32603
    resumed = [r for r in shared.routes() if r.method == "GET" and r.status == 200]
    assert resumed and all(shared.workers[r.worker].pid != runner[0] for r in resumed)


@pytest.mark.peers
async def test_official_sdk_call_whose_worker_is_killed_fails_instead_of_resuming_forever(
    shared: Deployment,
) -> None:
    """The same with the official SDK's client, which used to re-resume the stream forever: it
    gets the JSON-RPC error once the dead worker's lease has run out."""
    async with SdkProcess("sdk_stall.py", shared.url) as sdk:
        runner = (await sdk.line())["running_on"]
        shared.worker(runner).kill()
        ended = await sdk.line()
    assert ended["error"]["code"] == -32603, ended
    assert "worker running this request stopped" in ended["error"]["message"]


@pytest.mark.peers
async def test_official_sdk_resumes_its_stream_after_kill_9_of_its_worker(
    shared: Deployment,
) -> None:
    """The same with the official SDK's client, which reconnects its ``GET`` stream itself."""
    uris = [f"test://feed/{n}" for n in range(1, 8)]
    async with (
        SdkProcess("sdk_resume.py", shared.url, ",".join(uris)) as sdk,
        Client(shared.url, mode=MODERN) as publisher,
    ):
        assert await sdk.line() == {"subscribed": len(uris)}
        shared.wait_route(lambda r: r.method == "GET" and r.status == 200)  # (background)
        seen = []
        for uri in uris[:3]:
            await publisher.call_tool("touch", {"uri": uri})
            seen.append((await sdk.line())["updated"])
        holder, opened = _stream_holder(shared)
        holder.kill()
        for uri in uris[3:6]:
            assert _pid(await publisher.call_tool("touch", {"uri": uri})) != holder.pid
        while len(seen) < 6:
            seen.append((await sdk.line())["updated"])
        assert seen == uris[:6]  # nothing lost, nothing twice, in order
        await publisher.call_tool("touch", {"uri": uris[6]})
        assert await sdk.line() == {"updated": uris[6]}
    resumed = [r for r in shared.routes() if r.method == "GET" and r.status == 200][opened:]
    assert resumed and all(shared.workers[r.worker].pid != holder.pid for r in resumed)


# -- fan-out -----------------------------------------------------------------------------------


@pytest.mark.peers
async def test_listen_notifications_reach_clients_on_every_worker(shared: Deployment) -> None:
    """Three mcpkit listeners, the official SDK's listener and a legacy subscriber; one update
    announced on one worker reaches all of them, wherever their streams are held."""
    uri = "test://feed/news"
    async with (
        SdkProcess("sdk_listen.py", shared.url, uri) as sdk,
        Client(shared.url, mode=MODERN) as one,
        one.listen(resource_uris=[uri]) as first,
        Client(shared.url, mode=MODERN) as two,
        two.listen(resource_uris=[uri]) as second,
        Client(shared.url, mode=MODERN) as three,
        three.listen(resource_uris=[uri]) as third,
        Client(shared.url, mode="legacy") as legacy,
        legacy.listen(resource_uris=[uri]) as fourth,
    ):
        streams = [aiter(s) for s in (first, second, third, fourth)]
        for notes in streams:
            await _next(notes, SubscriptionsAcknowledgedNotification)
        assert await sdk.line() == {"acknowledged": [uri]}
        # (the proxy may log a held stream's request a moment after its first event: wait)
        logged = shared.routes(count=4, mcp_method="subscriptions/listen")
        listens = [r for r in logged if r.mcp_method == "subscriptions/listen"]
        # round robin with the SDK's process and four clients talking at once cannot promise
        # which worker takes which listen; held on two or more, some listener's stream is on a
        # worker other than the one the update is announced on, whichever that is
        assert len(listens) == 4 and len({r.worker for r in listens}) >= 2
        touched_on = _pid(await one.call_tool("touch", {"uri": uri}))
        for notes in streams:
            note = await _next(notes, ResourceUpdatedNotification)
            assert note.params.uri == uri
        assert await sdk.line() == {"updated": uri}
    assert touched_on in shared.pids


# -- 2026 MRTR and tasks -----------------------------------------------------------------------


async def test_mrtr_rounds_complete_on_another_worker_with_the_redis_key_ring(
    shared: Deployment,
) -> None:
    """No ``MCPKIT_STATE_KEYS`` here: the workers share the sealing key through Redis."""
    async with Client(shared.url, mode=MODERN, elicitation_handler=_answer) as client:
        for _ in range(3):
            found = _ASKED.match((await client.call_tool("ask", {})).content[0].text)
            assert found is not None and found.group(1) == "Ada"
            assert {int(found.group(2)), int(found.group(3))} <= shared.pids
            assert found.group(2) != found.group(3)


async def test_a_task_is_polled_and_cancelled_through_other_workers(shared: Deployment) -> None:
    async with Client(shared.url, mode=MODERN, extensions=TASKS) as client:
        task = await client.call_tool_as_task("crunch", {})
        assert task.task_id is not None
        infos = [await client.get_task(task.task_id) for _ in range(3)]
        result = await task.result()
        ran_on = int(result.content[0].text.rsplit(" ", 1)[1])
        assert ran_on in shared.pids
        gets = [r for r in shared.routes() if r.mcp_method == "tasks/get"]
        assert len({r.worker for r in gets}) >= 2, gets  # polled on several workers
        assert all(info.status in ("working", "completed") for info in infos)

        held = await client.call_tool_as_task("crunch", {"hold": True})
        assert held.task_id is not None
        cancelled = await client.cancel_task(held.task_id)
        assert cancelled.status == "cancelled"
        assert (await client.get_task(held.task_id)).status == "cancelled"
    routes = shared.routes()
    cancel = next(r for r in routes if r.mcp_method == "tasks/cancel")
    created = [r for r in routes if r.mcp_method == "tools/call"][-1]
    assert cancel.worker != created.worker  # cancelled through a worker that does not run it


async def test_a_task_whose_worker_dies_is_marked_failed_not_left_working(
    shared: Deployment,
) -> None:
    from mcpkit.contrib.redis import WORKER_GONE_MESSAGE

    async with Client(shared.url, mode=MODERN, extensions=TASKS) as client:
        task = await client.call_tool_as_task("crunch", {"hold": True})
        assert task.task_id is not None
        info = await client.get_task(task.task_id)
        async with asyncio.timeout(NOTE_TIMEOUT):
            while info.status_message is None:  # the body has not said where it runs yet
                info = await client.get_task(task.task_id)
        assert info.status == "working"
        runner = shared.worker(int(info.status_message.rsplit(" ", 1)[1]))
        runner.kill()
        async with asyncio.timeout(DEATH_TIMEOUT):
            while not info.terminal:
                info = await client.get_task(task.task_id)
    assert info.status == "failed"
    assert info.status_message == WORKER_GONE_MESSAGE

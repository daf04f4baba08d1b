"""Two (or three) real worker processes sharing one Redis: any worker serves any request.

Each worker is ``server.run("http", state=RedisState(...))`` in its own process
(``_redis_worker.py``). The client speaks the wire by hand and sends each request to the worker
the test chooses, the way a round-robin proxy without stickiness would. Covered:

* legacy sessions: a session initialized on A serves requests on B; an elicitation started by a
  handler on A is answered by a POST to B; ``notifications/cancelled`` and ``DELETE`` sent to B
  stop a handler running on A; a resource update announced on B reaches the GET stream on A;
* a POST stream produced on A, resumed with ``Last-Event-ID`` on B: every event after the offset
  once, in order, then the final response;
* ``kill -9`` of the worker holding a GET stream: the client resumes on another worker and gets
  every event after its offset, once, in order; a task running on the killed worker is marked
  failed once its lease runs out;
* 2026-07-28: an MRTR round started on A completes on B; ``subscriptions/listen`` streams on A
  and B both get a change announced on either (each with its own ``subscriptionId``); a task
  created on A is answered, polled and cancelled through B; a listen on B following a task that
  runs on A hears of its cancellation;
* mcpkit's own client, its requests spread over both workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx
import pytest
from _asgi_harness import (
    LegacyPeer,
    bound,
    call_body,
    collect_sse,
    modern_body,
    modern_headers,
    sse_messages,
)
from _redis_env import REDIS_URL
from _workers import Worker, workers

from mcpkit.client import Client
from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._sse import SSEDecoder, SSEEvent
from mcpkit.transports.http import HttpClientConnector

TASKS_EXT: Final = "io.modelcontextprotocol/tasks"
EXT: Final = {"elicitation": {}, "extensions": {TASKS_EXT: {}}}
SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
WAIT_S: Final = 20.0


@pytest.fixture
async def pair(prefix: str) -> AsyncIterator[list[Worker]]:
    async with workers(REDIS_URL, prefix, 2) as started:
        yield started


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
        yield client


def _at(worker: Worker) -> str:
    return f"{worker.url}/mcp"


TOUCH: Final = {"name": "touch", "arguments": {"uri": "test://watched"}}
LISTEN: Final = {
    "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["test://watched"]}
}


async def _until_status(read: Any, wanted: str, *, unless: str | None = None) -> Any:
    """Poll ``tasks/get`` (the protocol's own way to follow a task) until the status is
    ``wanted`` (or, with ``unless``, anything else), bounded."""
    async with asyncio.timeout(WAIT_S):
        while True:
            seen = await read()
            status = seen["status"]
            if (unless is None and status == wanted) or (unless is not None and status != unless):
                return seen
            await asyncio.sleep(0.1)


class Reader:
    """Reads one SSE response a few events at a time (the test acts in between)."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.aiter_bytes()
        self._decoder = SSEDecoder()
        self._ready: list[SSEEvent] = []
        self.ended = False

    async def take(self, count: int) -> list[SSEEvent]:
        """The next ``count`` events that carry data (fewer if the stream ends)."""
        while len(self._ready) < count and not self.ended:
            try:
                chunk = await anext(self._chunks)
            except StopAsyncIteration:
                self.ended = True
                break
            self._ready += [e for e in self._decoder.feed(chunk) if e.data]
        taken, self._ready = self._ready[:count], self._ready[count:]
        return taken

    async def rest(self) -> list[SSEEvent]:
        """Everything until the stream ends."""
        return await self.take(10**9)


_readers: weakref.WeakKeyDictionary[httpx.Response, Reader] = weakref.WeakKeyDictionary()
"""One reader per live response. Keyed by the response itself, not ``id(response)``: an id is
reused once its object is freed, and a later test's listen stream then met an earlier test's
ended reader and saw no events at all (the intermittent "no listen acknowledgement")."""


async def _events(response: httpx.Response, count: int) -> list[SSEEvent]:
    """The next ``count`` data events of ``response`` (bounded by the caller)."""
    reader = _readers.get(response)
    if reader is None:
        reader = _readers[response] = Reader(response)
    return await reader.take(count)


async def _initialized(http: httpx.AsyncClient, worker: Worker, **caps: Any) -> LegacyPeer:
    peer = LegacyPeer(http, path=_at(worker))
    await peer.initialize(capabilities=caps or None)
    return peer


# -- legacy sessions -----------------------------------------------------------------------------


async def test_a_legacy_session_is_served_by_every_worker(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    peer = await _initialized(http, a, elicitation={})
    served_by = set()
    for index, worker in enumerate((a, b, a, b)):
        peer.path = _at(worker)
        reply = await bound(peer.call(10 + index, "tools/call", {"name": "whoami"}))
        served_by.add(reply["result"]["structuredContent"]["result"])
    assert served_by == {a.process.pid, b.process.pid}

    # an elicitation started by a handler on A, answered by a POST that lands on B
    peer.path = _at(a)
    async with http.stream("POST", _at(a), json=call_body(20, "ask"), headers=peer.headers()) as r:
        assert r.status_code == 200
        (question,) = [decode_json(e.data) for e in await bound(_events(r, 1))]
        assert question["method"] == "elicitation/create"
        peer.path = _at(b)
        answer = {"action": "accept", "content": {"name": "Ada"}}
        sent = await peer.post({"jsonrpc": "2.0", "id": question["id"], "result": answer})
        assert sent.status_code == 202
        (final,) = [decode_json(e.data) for e in await bound(_events(r, 1))]
    assert final["id"] == 20
    assert final["result"]["content"][0]["text"] == f"hello Ada from {a.process.pid}"


async def test_cancel_and_delete_reach_the_worker_running_the_handler(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    peer = await _initialized(http, a)
    # notifications/cancelled on B stops `hold` running on A: its stream ends with no answer
    async with http.stream("POST", _at(a), json=call_body(5, "hold"), headers=peer.headers()) as r:
        assert r.status_code == 200
        peer.path = _at(b)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 5, "reason": "test"}}  # fmt: skip
        assert (await peer.post(cancel)).status_code == 202
        assert sse_messages(await bound(collect_sse(r))) == []

    # DELETE on B ends the session everywhere: a handler on A stops, A answers 404 afterwards
    peer.path = _at(a)
    async with http.stream("POST", _at(a), json=call_body(6, "hold"), headers=peer.headers()) as r:
        assert r.status_code == 200
        gone = await http.delete(_at(b), headers=peer.headers())
        assert gone.status_code == 200
        assert sse_messages(await bound(collect_sse(r))) == []
    after = await http.post(_at(a), json=call_body(7, "whoami"), headers=peer.headers())
    assert after.status_code == 404


async def test_resource_updates_announced_anywhere_reach_the_get_stream(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    peer = await _initialized(http, a)
    peer.path = _at(b)
    await bound(peer.call(2, "resources/subscribe", {"uri": "test://watched"}))
    headers = {k: v for k, v in peer.headers().items() if k != "content-type"}
    async with http.stream("GET", _at(a), headers=headers) as stream:
        assert stream.status_code == 200
        for index, worker in enumerate((b, a)):
            peer.path = _at(worker)
            await bound(peer.call(3 + index, "tools/call", TOUCH))
        notes = [decode_json(e.data) for e in await bound(_events(stream, 2))]
    assert [n["method"] for n in notes] == ["notifications/resources/updated"] * 2
    assert all(n["params"]["uri"] == "test://watched" for n in notes)


async def test_a_post_stream_resumes_on_the_other_worker(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    peer = await _initialized(http, a)
    body = call_body(9, "drip", count=12, every=0.05, _meta={"progressToken": "p"})
    body["params"]["_meta"] = body["params"]["arguments"].pop("_meta")
    async with http.stream("POST", _at(a), json=body, headers=peer.headers()) as r:
        first = await bound(_events(r, 3))
    # the client left after 3 events; it resumes on B from the last id it saw
    last_id = first[-1].id
    assert last_id
    headers = {k: v for k, v in peer.headers().items() if k != "content-type"}
    headers["last-event-id"] = last_id
    async with http.stream("GET", _at(b), headers=headers) as r:
        assert r.status_code == 200
        rest = await bound(collect_sse(r, until_id=9), WAIT_S)
    steps = [decode_json(e.data) for e in first + rest if e.data]
    progress = [m["params"]["progress"] for m in steps if m.get("method")]
    assert progress == list(range(1, 13))  # every event once, in order
    assert steps[-1]["result"]["content"][0]["text"] == f"dripped 12 on {a.process.pid}"


# -- kill -9 ---------------------------------------------------------------------------------------


async def test_resume_after_the_stream_holder_is_killed(
    prefix: str, http: httpx.AsyncClient
) -> None:
    async with workers(REDIS_URL, prefix, 3, lease=1.0) as (a, b, holder):
        peer = await _initialized(http, a)
        await bound(peer.call(2, "resources/subscribe", {"uri": "test://watched"}))
        # a task that runs on the worker about to die
        modern = modern_body(3, "tools/call", {"name": "long_job", "arguments": {}},
                             capabilities=EXT)  # fmt: skip
        started = await http.post(_at(holder), json=modern, headers=modern_headers(modern))
        task_id = started.json()["result"]["taskId"]

        headers = {k: v for k, v in peer.headers().items() if k != "content-type"}
        async with http.stream("GET", _at(holder), headers=headers) as stream:
            for index in range(3):
                peer.path = _at((a, b)[index % 2])
                await bound(peer.call(10 + index, "tools/call", TOUCH))
            seen = await bound(_events(stream, 3))
            holder.kill()
            await holder.process.wait()
        for index in range(3):
            peer.path = _at((a, b)[index % 2])
            await bound(peer.call(20 + index, "tools/call", TOUCH))
        headers["last-event-id"] = seen[1].id or ""
        async with http.stream("GET", _at(b), headers=headers) as stream:
            assert stream.status_code == 200
            after = await bound(_events(stream, 4))
        ids = [e.id for e in after]
        assert ids[0] == seen[2].id and len(set(ids)) == 4  # from the offset on, no duplicates
        assert [decode_json(e.data)["method"] for e in after] == [
            "notifications/resources/updated"
        ] * 4

        # the dead worker's task: failed once its lease ran out (never "working" forever)
        get = modern_body(4, "tasks/get", {"taskId": task_id}, capabilities=EXT)

        async def read() -> Any:
            return (await _modern(http, a, get))["result"]

        got = await _until_status(read, "", unless="working")
        assert got["status"] == "failed"
        assert "worker" in got["statusMessage"]


# -- 2026-07-28 ----------------------------------------------------------------------------------


async def _modern(http: httpx.AsyncClient, worker: Worker, body: dict[str, Any]) -> Any:
    response = await http.post(_at(worker), json=body, headers=modern_headers(body))
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    return sse_messages(await bound(collect_sse(response)))[-1]


async def test_an_mrtr_round_started_on_one_worker_completes_on_another(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    first = modern_body(1, "tools/call", {"name": "ask", "arguments": {}},
                        capabilities={"elicitation": {}})  # fmt: skip
    asked = (await _modern(http, a, first))["result"]
    assert asked["resultType"] == "input_required"
    (key,) = asked["inputRequests"]
    retry = modern_body(
        2,
        "tools/call",
        {
            "name": "ask",
            "arguments": {},
            "inputResponses": {key: {"action": "accept", "content": {"name": "Bo"}}},
            "requestState": asked["requestState"],
        },
        capabilities={"elicitation": {}},
    )
    done = (await _modern(http, b, retry))["result"]
    assert done["content"][0]["text"] == f"hello Bo from {b.process.pid}"


async def test_listen_streams_on_every_worker_get_every_change(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    listens = []
    async with contextlib.AsyncExitStack() as stack:
        for index, worker in enumerate((a, b)):
            body = modern_body(f"listen-{index}", "subscriptions/listen", LISTEN)
            response = await stack.enter_async_context(
                http.stream("POST", _at(worker), json=body, headers=modern_headers(body))
            )
            assert response.status_code == 200
            (ack,) = await bound(_events(response, 1))
            assert decode_json(ack.data)["method"] == "notifications/subscriptions/acknowledged"
            listens.append(response)
        await _modern(http, a, modern_body(5, "tools/call", {"name": "change", "arguments": {}}))
        await _modern(http, b, modern_body(6, "tools/call", TOUCH))
        for index, response in enumerate(listens):
            notes = [decode_json(e.data) for e in await bound(_events(response, 2))]
            assert {n["method"] for n in notes} == {
                "notifications/tools/list_changed",
                "notifications/resources/updated",
            }
            assert {n["params"]["_meta"][SUBSCRIPTION_ID] for n in notes} == {f"listen-{index}"}


async def test_tasks_move_between_workers(pair: list[Worker], http: httpx.AsyncClient) -> None:
    a, b = pair
    start = modern_body(1, "tools/call", {"name": "ask_task", "arguments": {}}, capabilities=EXT)
    task_id = (await _modern(http, a, start))["result"]["taskId"]

    async def status_on(worker: Worker) -> Any:
        get = modern_body(2, "tasks/get", {"taskId": task_id}, capabilities=EXT)
        return (await _modern(http, worker, get))["result"]

    seen = await _until_status(lambda: status_on(b), "input_required")
    (key,) = seen["inputRequests"]
    update = modern_body(3, "tasks/update",
                         {"taskId": task_id,
                          "inputResponses": {key: {"action": "accept", "content": {"name": "Cy"}}}},
                         capabilities=EXT)  # fmt: skip
    await _modern(http, b, update)
    done = await _until_status(lambda: status_on(a), "completed")
    assert done["result"]["content"][0]["text"] == "task says hello Cy"

    job = modern_body(4, "tools/call", {"name": "long_job", "arguments": {}}, capabilities=EXT)
    job_id = (await _modern(http, a, job))["result"]["taskId"]
    cancel = modern_body(5, "tasks/cancel", {"taskId": job_id}, capabilities=EXT)
    await _modern(http, b, cancel)
    get = modern_body(6, "tasks/get", {"taskId": job_id}, capabilities=EXT)
    assert (await _modern(http, a, get))["result"]["status"] == "cancelled"


# -- mcpkit's own client, spread over the workers -----------------------------------------------


class RoundRobin(httpx.Auth):
    """Sends each request to the next worker: a load balancer without stickiness."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.count = 0

    def auth_flow(self, request: httpx.Request) -> Any:
        request.url = request.url.copy_with(port=self.ports[self.count % len(self.ports)])
        self.count += 1
        yield request


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_mcpkit_client_across_workers(pair: list[Worker], mode: str) -> None:
    a, b = pair
    spread = RoundRobin([a.port, b.port])

    async def answer(_message: str, _schema: Any) -> Any:
        return {"action": "accept", "content": {"name": "Dee"}}

    connector = HttpClientConnector(_at(a), auth=spread)
    async with Client(connector, mode=mode, elicitation_handler=answer) as client:  # type: ignore[arg-type]
        pids = {
            (await client.call_tool("whoami", {})).structured_content["result"]  # type: ignore[index]
            for _ in range(4)
        }
        asked = await client.call_tool("ask", {})
    assert pids == {a.process.pid, b.process.pid}
    assert "hello Dee" in asked.content[0].text  # type: ignore[union-attr]
    assert spread.count >= 6


async def test_task_status_reaches_a_listen_stream_on_another_worker(
    pair: list[Worker], http: httpx.AsyncClient
) -> None:
    a, b = pair
    job = modern_body(1, "tools/call", {"name": "long_job", "arguments": {}}, capabilities=EXT)
    task_id = (await _modern(http, a, job))["result"]["taskId"]
    listen = modern_body(
        "follow", "subscriptions/listen", {"notifications": {"taskIds": [task_id]}},
        capabilities=EXT,
    )  # fmt: skip
    async with http.stream("POST", _at(b), json=listen, headers=modern_headers(listen)) as r:
        assert r.status_code == 200
        (ack,) = await bound(_events(r, 1))
        assert decode_json(ack.data)["params"]["notifications"]["taskIds"] == [task_id]
        # cancelled through worker A, where the task runs: the listener on B hears of it
        cancel = modern_body(2, "tasks/cancel", {"taskId": task_id}, capabilities=EXT)
        await _modern(http, a, cancel)
        (note,) = [decode_json(e.data) for e in await bound(_events(r, 1))]
    assert note["method"] == "notifications/tasks"
    assert note["params"]["taskId"] == task_id and note["params"]["status"] == "cancelled"
    assert note["params"]["_meta"][SUBSCRIPTION_ID] == "follow"

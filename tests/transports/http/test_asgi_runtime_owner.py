"""The HTTP app's tasks belong to the runtime's owners (issue #26).

Handler and stream tasks, the idle-session reaper and the server→client requests of legacy
sessions run on the runtime's primitives (``TaskSet``, ``cancel_and_wait``, ``PendingRequest``):
shutdown cancels and awaits what it started, and a cancellation aimed at whoever shuts the app
down reaches it instead of being swallowed on the way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
from _asgi_harness import LegacyPeer, bound, call_body, running

from mcpkit.protocol._codec import decode_json
from mcpkit.protocol._errors import JSONRPCError
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.server import Context, Server
from mcpkit.transports.http import McpHttpApp
from mcpkit.transports.http._server.session_store import MemorySessionStore, SessionRecord


class _SlowToStopStore(MemorySessionStore):
    """A session store whose ``reap`` waits until cancelled, then takes a while to unwind
    (as a store closing its connection would): the reaper is stopped mid-reap."""

    def __init__(self) -> None:
        super().__init__()
        self.reaping = asyncio.Event()
        self.stopping = asyncio.Event()
        self.release = asyncio.Event()
        self.unwound = asyncio.Event()

    async def reap(self, now: float) -> list[SessionRecord]:
        self.reaping.set()
        try:
            await asyncio.Event().wait()  # until the reaper is cancelled
        except asyncio.CancelledError:
            self.stopping.set()
            await self.release.wait()
            self.unwound.set()
            raise
        return []  # pragma: no cover - never reached


async def test_a_cancelled_shutdown_is_told_and_still_closes_everything() -> None:
    """Whoever shuts the app down is cancelled while the reaper unwinds: the shutdown still
    awaits the reaper and runs to the end, and then the caller sees its cancellation (it used to
    be swallowed by ``with suppress(CancelledError): await reaper``, and the caller went on as if
    nothing had happened)."""
    store = _SlowToStopStore()
    await store.create(protocol_version="2025-11-25", now=0.0)  # a session to reap
    app: McpHttpApp = Server("owner").http_app(session_store=store, reap_interval=0.001)
    lifespan = app.lifespan()
    await lifespan.__aenter__()
    await bound(store.reaping.wait())
    closing = asyncio.create_task(lifespan.__aexit__(None, None, None))
    await bound(store.stopping.wait())  # the shutdown cancelled the reaper and waits for it
    closing.cancel()
    store.release.set()
    done, _ = await bound(asyncio.wait([closing]))
    assert closing in done
    assert closing.cancelled()  # the caller's own cancellation reached it
    assert store.unwound.is_set()  # what the shutdown cancelled, it awaited
    assert not app.started and not app.reaper_running  # and it closed everything


def _asking_server(errors: list[JSONRPCError]) -> Server:
    server = Server("owner-ask")

    @server.tool
    async def ask(ctx: Context) -> str:
        try:
            await ctx.elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        except JSONRPCError as exc:
            errors.append(exc)
            return f"refused {exc.code}: {exc.message}"
        return "answered"

    return server


async def _messages(stream: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    decoder = SSEDecoder()
    async for chunk in stream.aiter_bytes():
        for event in decoder.feed(chunk):
            if event.data:
                yield decode_json(event.data)


async def test_a_server_request_answered_with_an_error_raises_it_in_the_tool() -> None:
    """A legacy session's question to the client waits on the runtime's pending request; an
    error the client answers with is raised in the tool as the matching JSON-RPC error."""
    errors: list[JSONRPCError] = []
    app = _asking_server(errors).http_app(sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize({"elicitation": {}})
        body = call_body(2, "ask")
        async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as stream:
            messages = _messages(stream)
            question = await bound(anext(messages))
            assert question["method"] == "elicitation/create"
            refusal = {
                "jsonrpc": "2.0",
                "id": question["id"],
                "error": {"code": -32001, "message": "the user is away"},
            }
            assert (await peer.post(refusal)).status_code == 202
            answer = await bound(anext(messages))
        assert answer["id"] == 2
        assert answer["result"]["content"][0]["text"] == "refused -32001: the user is away"
        assert len(errors) == 1 and errors[0].remote
        await bound(app.wait_idle())
        assert app.task_count == 0


async def test_an_empty_session_store_given_to_the_app_is_the_one_it_uses() -> None:
    """A store passed in empty (as every store starts) holds the sessions: it used to be taken
    for "no store" (``store or default``: an empty store has length 0) and silently replaced."""
    store = MemorySessionStore()
    app = Server("owner-store").http_app(session_store=store)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        assert len(store) == 1
        assert await store.get(peer.session_id or "") is not None

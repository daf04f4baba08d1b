"""The client's direct request path against its general one: same results, same errors.

Over a stream the client started (stdio, memory) with no request hook, a request goes from
``Client.call_tool`` (or ``_request``) straight to ``Session.send_request``, with the verdict
read once at connect (``Client._direct``). A request hook sends the same request through the
general path (channel, renewal tracker, ``negotiated``), so a pass-through hook is how these
tests run each case both ways on one connection and compare what the caller sees and what
goes on the wire. Real server processes, both eras.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import JSONRPCError, MCPError
from mcpkit.protocol._observe import add_outbound_observer, remove_outbound_observer
from mcpkit.types._jsonrpc import JSONObject, Notification, Request

from .conftest import PEERS_DIR, raw_server
from .peers.mcpkit_everything import build

KIT_STDIO = [sys.executable, str(PEERS_DIR / "mcpkit_everything.py")]
WAIT = 10.0
"""Bound on every wait for something the server or a session task sends."""

Case = Callable[[Client], Awaitable[Any]]


async def _pass_through(
    client: Client,
    method: str,
    params: JSONObject | None,
    send: Callable[[JSONObject | None], Awaitable[JSONObject]],
) -> JSONObject:
    return await send(params)


def _without_state(params: Any) -> Any:
    """``params`` with a 2026 ``requestState`` replaced by a marker: the server seals the time
    into each one, so two rounds a second apart carry different tokens (what the client sends
    back is the server's own token either way, checked by the round completing)."""
    if isinstance(params, dict) and isinstance(params.get("requestState"), str):
        return {**params, "requestState": "<the server's token>"}
    return params


class Wire:
    """What the client sends, as (method, params) with the request ids (and the server's
    ``requestState`` tokens) left out."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.ids: list[Any] = []
        self.cancels = 0
        self.cancelled = asyncio.Event()

    def __call__(self, message: Any, version: str | None, method: str | None) -> None:
        if isinstance(message, Request):
            self.sent.append((message.method, _without_state(message.params)))
            self.ids.append(message.id)
        elif isinstance(message, Notification) and message.method == "notifications/cancelled":
            self.cancels += 1
            self.cancelled.set()

    def __enter__(self) -> Wire:
        add_outbound_observer(self)
        return self

    def __exit__(self, *exc: object) -> None:
        remove_outbound_observer(self)


async def _outcome(case: Case, client: Client) -> Any:
    """What the caller sees: the result, or the error's type, code, message and data."""
    try:
        return ("result", await case(client))
    except JSONRPCError as exc:
        return ("error", type(exc), exc.code, exc.message, exc.data)
    except MCPError as exc:
        return ("error", type(exc), str(exc))


async def _both_ways(client: Client, case: Case) -> tuple[Any, Any, Wire, Wire]:
    """``case`` on the direct path, then on the general one: outcomes and what each sent."""
    assert client.request_hook is None and client._direct is not None
    with Wire() as direct_wire:
        direct = await _outcome(case, client)
    client.request_hook = _pass_through
    try:
        with Wire() as general_wire:
            general = await _outcome(case, client)
    finally:
        client.request_hook = None
    return direct, general, direct_wire, general_wire


async def nights(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"nights": 3}}


def _progress_case(log: list[tuple[float, float | None, str | None]]) -> Case:
    async def record(progress: float, total: float | None, message: str | None) -> None:
        log.append((progress, total, message))

    def call(client: Client) -> Awaitable[Any]:
        return client.call_tool("progress", {"steps": 3}, progress_callback=record)

    return call


CASES: dict[str, Case] = {
    "result": lambda c: c.call_tool("add", {"a": 1, "b": 2}),
    "result with meta": lambda c: c.call_tool("echo", {"text": "hi"}, meta={"trace": "t-1"}),
    "isError result": lambda c: c.call_tool("add", {"a": "one", "b": 2}),
    "unknown tool": lambda c: c.call_tool("no-such-tool", {}),
    "elicitation (a server request, or 2026 input_required rounds)": lambda c: c.call_tool(
        "book", {"city": "Oslo"}
    ),
    "resource not found": lambda c: c.read_resource("test://missing"),
    "raw request": lambda c: c.send_request("tools/list", {}),
    "prompt": lambda c: c.get_prompt("greet", {"name": "Ada"}),
}


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
@pytest.mark.parametrize("case", list(CASES))
async def test_direct_and_general_paths_agree_over_stdio(mode: str, case: str) -> None:
    async with Client(KIT_STDIO, mode=mode, elicitation_handler=nights) as client:  # type: ignore[arg-type]
        assert client._direct is not None and client._direct.session is client._session
        await client.list_tools()  # (a first call would list them to find the tool's schema)
        direct, general, direct_wire, general_wire = await _both_ways(client, CASES[case])
    assert direct == general
    assert direct_wire.sent == general_wire.sent  # the same params, 2026 _meta included
    assert direct_wire.sent, "nothing was sent"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_reaches_the_callback_on_both_paths(mode: str) -> None:
    direct_log: list[tuple[float, float | None, str | None]] = []
    general_log: list[tuple[float, float | None, str | None]] = []
    async with Client(build(), mode=mode) as client:  # type: ignore[arg-type]  # in memory
        assert client._direct is not None
        with Wire() as wire:
            direct = await _outcome(_progress_case(direct_log), client)
        client.request_hook = _pass_through
        general = await _outcome(_progress_case(general_log), client)
    assert direct == general and direct[0] == "result"
    assert direct_log == general_log == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    # the request carried a progress token on the direct path too
    calls = [params for method, params in wire.sent if method == "tools/call"]
    assert len(calls) == 1 and "progressToken" in calls[0]["_meta"]


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_a_timeout_fails_and_cancels_the_same_way_on_both_paths(mode: str) -> None:
    args = ("--discover", "answer") if mode != "legacy" else ()
    async with Client(raw_server(*args, "--call", "hang"), mode=mode, timeout=0.3) as client:  # type: ignore[arg-type]
        outcomes = []
        for hook in (None, _pass_through):
            client.request_hook = hook
            with Wire() as wire:
                outcomes.append(await _outcome(lambda c: c.call_tool("t"), client))
                async with asyncio.timeout(WAIT):  # sent by a session task, just after
                    await wire.cancelled.wait()
            assert wire.cancels == 1
        client.request_hook = None
        assert client.connected
    direct, general = outcomes
    assert direct == general
    assert "tools/call got no response within 0.3 s" in direct[2]


@pytest.mark.parametrize("hook", [None, _pass_through], ids=["direct", "general"])
async def test_a_dead_server_is_explained_the_same_way_on_both_paths(hook: Any) -> None:
    async with Client(raw_server("--call", "crash")) as client:
        client.request_hook = hook
        first = await _outcome(lambda c: c.call_tool("t"), client)
        again = await _outcome(lambda c: c.call_tool("t"), client)
    for outcome in (first, again):
        assert outcome[0] == "error"
        assert "the server exited with code 3" in outcome[2]
        assert "raw_server: crashing on purpose" in outcome[2]


async def test_the_direct_path_ends_with_the_connection() -> None:
    client = Client(build())  # type: ignore[arg-type]
    assert client._direct is None
    async with client:
        assert client._direct is not None
    assert client._direct is None  # a call now fails as before: the client was closed
    with pytest.raises(MCPError, match="the client was closed"):
        await client.call_tool("add", {"a": 1, "b": 2})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_no_request_is_left_in_the_connection_books(mode: str) -> None:
    # an answered request leaves the connection's table with its answer (the session does not
    # ask the connection to forget it again); one with a progress token has the token dropped,
    # and one that timed out or failed is forgotten as before
    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        return None

    async with Client(build(), mode=mode, elicitation_handler=nights) as client:  # type: ignore[arg-type]
        connection = client._session.connection  # type: ignore[union-attr]
        with Wire() as wire:
            await client.call_tool("add", {"a": 1, "b": 2})
            await client.call_tool("progress", {"steps": 2}, progress_callback=progressed)
            await _outcome(lambda c: c.call_tool("no-such-tool"), client)  # an error answer
            await _outcome(lambda c: c.call_tool("slow", {"seconds": 5}, timeout=0.05), client)
            await client.call_tool("book", {"city": "Oslo"})  # a question on the way
        assert len(wire.ids) >= 5
        assert len(connection.outbound) == 0
        assert not any(connection.progress.is_active(rid) for rid in wire.ids)

"""A legacy HTTP session the server forgot (404) is replaced, and the client follows the new one.

The replacement session may agree on another revision, other capabilities, another server and
other instructions (a redeploy). What the client reports (``negotiated``, ``protocol_version``,
``server_capabilities``, ``server_info``, ``instructions``, on ``Client`` and ``SyncClient``) is
the new session's; the request that met the expiry is sent again shaped for the new revision,
or refused locally like a fresh client would refuse it; what the client had set in the old
session (log level, resource subscriptions) is set again before it; caches of the old session
are dropped; listen subscriptions and the user's handler are told.

Scripted servers on loopback show the exact wire; real mcpkit servers under uvicorn show the
same for a server that is redeployed with another configuration, or that forgets a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpkit.client import Client, Host, SessionRenewed, SyncClient, TasksUnsupported
from mcpkit.protocol._errors import (
    MissingServerCapability,
    RemoteProtocolError,
    SessionReplaced,
)
from mcpkit.server import Context, Server
from mcpkit.types._completion import PromptReference
from mcpkit.types._subscriptions import SubscriptionsAcknowledgedNotification

from ._harness import WAIT, Receive, Scope, Send, respond, running
from ._scripted import Scripted, Seen, accepted, answer, result, status

TEXT = {"content": [{"type": "text", "text": "ok"}]}
TOOLS = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
OLD: dict[str, Any] = {
    "protocolVersion": "2025-11-25",
    "capabilities": {
        "tools": {"listChanged": True},
        "logging": {},
        "completions": {},
        "resources": {"subscribe": True},
    },
    "serverInfo": {"name": "alpha", "version": "1.0"},
    "instructions": "Use alpha.",
}
NEW: dict[str, Any] = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": True}, "prompts": {}},
    "serverInfo": {"name": "beta", "version": "2.0"},
    "instructions": "Use beta.",
}


def verdict(revision: str, capabilities: dict[str, Any]) -> dict[str, Any]:
    return {**OLD, "protocolVersion": revision, "capabilities": capabilities}


class Sessions:
    """A scripted legacy server whose sessions the test makes it forget.

    The n-th ``initialize`` opens ``sess-n`` with ``verdicts[n-1]`` (the last one repeats);
    after :meth:`forget`, every request in a session opened so far is answered 404.
    ``forget_new`` forgets each new session right after (``"initialized"``) or before
    (``"initialize"``) its ``notifications/initialized``.
    """

    def __init__(self, *verdicts: dict[str, Any], forget_new: str | None = None) -> None:
        self.verdicts = verdicts
        self.opened = 0
        self.forgotten: set[str] = set()
        self.forget_new = forget_new

    def forget(self) -> None:
        self.forgotten.update(f"sess-{n}" for n in range(1, self.opened + 1))

    def app(self, **overrides: Any) -> Scripted:
        async def initialize(seen: Seen, receive: Receive, send: Send) -> None:
            self.opened += 1
            body = self.verdicts[min(self.opened, len(self.verdicts)) - 1]
            session = f"sess-{self.opened}"
            if self.forget_new == "initialize" and self.opened > 1:
                self.forgotten.add(session)
            await respond(send, 200, result(seen, body), headers=(("mcp-session-id", session),))

        async def initialized(seen: Seen, receive: Receive, send: Send) -> None:
            session = seen.headers.get("mcp-session-id")
            if self.forget_new == "initialized" and session != "sess-1":
                self.forgotten.add(session or "")
            await accepted(seen, receive, send)

        async def complete(seen: Seen, receive: Receive, send: Send) -> None:
            values = sorted(seen.params)  # which members arrived
            await respond(send, 200, result(seen, {"completion": {"values": values}}))

        routes: dict[str, Any] = {
            "notifications/initialized": initialized,
            "notifications/roots/list_changed": accepted,
            "tools/list": answer(TOOLS),
            "tools/call": answer(TEXT),
            "completion/complete": complete,
            "logging/setLevel": answer({}),
            "resources/subscribe": answer({}),
            "resources/unsubscribe": answer({}),
            "GET": status(405, b"", None),
            "DELETE": status(200, b"", None),
            **overrides,
        }

        def live(handler: Any) -> Any:
            async def guarded(seen: Seen, receive: Receive, send: Send) -> None:
                if seen.headers.get("mcp-session-id") in self.forgotten:
                    await respond(send, 404, b"", None)
                    return
                await handler(seen, receive, send)

            return guarded

        guarded = {name: live(handler) for name, handler in routes.items()}
        return Scripted({"initialize": initialize, **guarded})


def posts_in(app: Scripted, session: str) -> list[Seen]:
    return [
        s
        for s in app.seen
        if s.http_method == "POST" and s.headers.get("mcp-session-id") == session
    ]


# -- what the client reports -------------------------------------------------------------------


async def test_the_client_reports_what_the_new_session_agreed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sessions = Sessions(OLD, NEW)
    app = sessions.app()
    told: list[SessionRenewed] = []
    async with (
        running(app) as base,
        Client(
            base + "/mcp",
            mode="legacy",
            session_renewed_handler=told.append,
            output_validation="off",  # no tools/list before the call: the wire stays exact
        ) as client,
    ):
        assert (client.protocol_version, client.instructions) == ("2025-11-25", "Use alpha.")
        assert client.server_info == {"name": "alpha", "version": "1.0"}
        first = client.negotiated
        sessions.forget()
        with caplog.at_level(logging.INFO, logger="mcpkit.client"):
            await client.call_tool("t", {})
        negotiated = client.negotiated
        assert negotiated is not first
        assert negotiated.protocol_version == client.protocol_version == "2025-06-18"
        assert negotiated.capabilities == client.server_capabilities == NEW["capabilities"]
        assert negotiated.server_info == client.server_info == {"name": "beta", "version": "2.0"}
        assert negotiated.instructions == client.instructions == "Use beta."
        assert (negotiated.era, negotiated.session_id) == ("legacy", "sess-2")
        assert negotiated.initialize_result == NEW
        assert negotiated.supported_versions == ["2025-06-18"]
        assert "sess-2" in repr(client) and "2025-06-18" in repr(client)
        (event,) = told  # told before the call was sent again, once
        assert event.previous is first and event.current is negotiated
        assert event.changes == [
            "protocol 2025-11-25 -> 2025-06-18",
            "capabilities (-completions, -logging, -resources, +prompts)",
            "server alpha 1.0 -> beta 2.0",
            "instructions",
        ]
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.name == "mcpkit.client" and r.levelno == logging.WARNING
    ]
    assert any(
        "the new session differs from the old one: protocol 2025-11-25 -> 2025-06-18" in w
        for w in warnings
    ), warnings
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any("the server replaced the session" in i and "session=sess-2" in i for i in infos)
    (again,) = posts_in(app, "sess-2")[1:]  # after notifications/initialized
    assert again.method == "tools/call"
    assert again.headers["mcp-protocol-version"] == "2025-06-18"


async def test_the_sync_facade_reports_the_new_session_too() -> None:
    sessions = Sessions(OLD, NEW)
    told: list[SessionRenewed] = []
    async with running(sessions.app()) as base:
        client = await asyncio.to_thread(
            SyncClient, base + "/mcp", mode="legacy", session_renewed_handler=told.append
        )
        try:
            assert client.server_info["name"] == "alpha"
            sessions.forget()
            await asyncio.to_thread(client.call_tool, "t", {})
            assert client.protocol_version == "2025-06-18"
            assert client.server_capabilities == NEW["capabilities"]
            assert client.server_info == {"name": "beta", "version": "2.0"}
            assert client.instructions == "Use beta."
            assert client.negotiated.session_id == "sess-2"
            assert [event.current.session_id for event in told] == ["sess-2"]
        finally:
            await asyncio.to_thread(client.close)


async def test_a_failing_handler_is_logged_and_the_call_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sessions = Sessions(OLD, NEW)
    hooked: list[str] = []

    def broken(event: SessionRenewed) -> None:
        raise RuntimeError("handler bug")

    async def hook(client: Any, method: str, params: Any, send: Any) -> Any:
        hooked.append(method)
        return await send(params)

    async with (
        running(sessions.app()) as base,
        Client(
            base + "/mcp", mode="legacy", session_renewed_handler=broken, output_validation="off"
        ) as client,
    ):
        client.request_hook = hook
        sessions.forget()
        with caplog.at_level(logging.ERROR, logger="mcpkit.client"):
            result = await client.call_tool("t", {})
        assert result.content[0].text == "ok"  # type: ignore[union-attr]
        assert hooked == ["tools/call", "tools/call"]  # two requests: one per session
    assert any("session-renewed listener failed" in r.getMessage() for r in caplog.records)


# -- the request sent again ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [("2025-11-25", "2025-03-26"), ("2025-03-26", "2025-11-25")],
    ids=["to-older", "to-newer"],
)
async def test_the_request_sent_again_is_shaped_for_the_new_revision(
    before: str, after: str
) -> None:
    """``completion/complete`` ``context`` exists since 2025-06-18: the request is shaped from
    what the caller asked for, for each session's revision (not the old session's copy)."""
    caps = {"completions": {}, "prompts": {}}
    sessions = Sessions(verdict(before, caps), verdict(after, caps))
    app = sessions.app()
    async with running(app) as base, Client(base + "/mcp", mode="legacy") as client:
        sessions.forget()
        done = await client.complete(
            PromptReference(name="p"), "a", "x", context_arguments={"k": "v"}
        )
    first, again = app.of("completion/complete")
    assert (first.headers["mcp-session-id"], again.headers["mcp-session-id"]) == (
        "sess-1",
        "sess-2",
    )
    assert ("context" in first.params) is (before != "2025-03-26")
    assert ("context" in again.params) is (after != "2025-03-26")
    assert done.completion.values == sorted(again.params)
    assert again.headers["mcp-protocol-version"] == after
    assert first.id != again.id  # a new request of the new session


async def test_a_retry_needing_a_capability_the_new_session_lacks_is_refused_locally() -> None:
    without_tools = {**NEW, "capabilities": {"prompts": {}}}
    sessions = Sessions(OLD, without_tools)
    app = sessions.app()
    async with (
        running(app) as base,
        Client(base + "/mcp", mode="legacy", output_validation="off") as client,
    ):
        sessions.forget()
        with pytest.raises(MissingServerCapability) as refused:
            await client.call_tool("t", {})
        assert refused.value.method == "tools/call"
    async with (
        running(Sessions(without_tools).app()) as base,
        Client(base + "/mcp", mode="legacy", output_validation="off") as fresh,
    ):
        with pytest.raises(MissingServerCapability) as fresh_refused:
            await fresh.call_tool("t", {})
    assert str(refused.value) == str(fresh_refused.value)
    assert refused.value.capability == ("tools",)
    assert [s.method for s in posts_in(app, "sess-2")] == ["notifications/initialized"]


async def test_concurrent_requests_meeting_the_expiry_share_one_new_session() -> None:
    sessions = Sessions(OLD, NEW)
    app = sessions.app()
    told: list[SessionRenewed] = []
    async with (
        running(app) as base,
        Client(base + "/mcp", mode="legacy", session_renewed_handler=told.append) as client,
    ):
        sessions.forget()
        async with asyncio.timeout(WAIT):
            results = await asyncio.gather(*(client.call_tool("t", {}) for _ in range(4)))
        assert len(results) == 4
        assert len(told) == 1
    assert len(app.of("initialize")) == 2
    assert len([s for s in posts_in(app, "sess-2") if s.method == "tools/call"]) == 4


async def test_a_session_forgotten_again_at_once_is_not_chased() -> None:
    """The request is sent again once: a server that forgets every new session at its first
    request makes it fail with :class:`SessionReplaced` after a bounded number of handshakes."""
    sessions = Sessions(OLD, NEW, forget_new="initialized")
    app = sessions.app()
    async with running(app) as base, Client(base + "/mcp", mode="legacy") as client:
        await client.list_tools()
        sessions.forget()
        with pytest.raises(SessionReplaced, match="was not sent in the new session"):
            async with asyncio.timeout(WAIT):
                await client.call_tool("t", {})
    assert len(app.of("initialize")) == 3  # the first session, and one per attempt


async def test_a_new_session_gone_before_it_is_initialized_fails_the_call() -> None:
    sessions = Sessions(OLD, NEW, forget_new="initialize")
    app = sessions.app()
    async with running(app) as base, Client(base + "/mcp", mode="legacy") as client:
        await client.list_tools()
        sessions.forget()
        with pytest.raises(RemoteProtocolError, match="before notifications/initialized"):
            async with asyncio.timeout(WAIT):
                await client.call_tool("t", {})
    assert len(app.of("initialize")) == 2


# -- what the old session held ----------------------------------------------------------------


async def test_log_level_and_subscriptions_are_set_again_before_the_retry() -> None:
    sessions = Sessions(OLD, {**OLD, "protocolVersion": "2025-06-18"})
    app = sessions.app()
    async with (
        running(app) as base,
        Client(base + "/mcp", mode="legacy", log_level="debug", output_validation="off") as client,
    ):
        await client.set_logging_level("error")
        await client.subscribe_resource("file:///a")
        await client.subscribe_resource("file:///b")
        await client.unsubscribe_resource("file:///b")
        sessions.forget()
        await client.call_tool("t", {})
    renewed = [(s.method, s.params) for s in posts_in(app, "sess-2")]
    assert renewed == [
        ("notifications/initialized", {}),
        ("logging/setLevel", {"level": "error"}),
        ("resources/subscribe", {"uri": "file:///a"}),
        ("tools/call", {"name": "t", "arguments": {}}),
    ]


async def test_what_the_new_session_cannot_take_is_not_sent_but_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sessions = Sessions(OLD, NEW)  # no logging, no resource subscriptions
    app = sessions.app()
    async with (
        running(app) as base,
        Client(base + "/mcp", mode="legacy", log_level="info", output_validation="off") as client,
    ):
        await client.subscribe_resource("file:///a")
        sessions.forget()
        with caplog.at_level(logging.WARNING, logger="mcpkit.client"):
            await client.call_tool("t", {})
    assert [s.method for s in posts_in(app, "sess-2")] == [
        "notifications/initialized",
        "tools/call",
    ]
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "no logging capability: log level 'info' not set" in said
    assert "cannot subscribe to resources: dropped file:///a" in said


async def test_tool_definitions_of_the_old_session_are_listed_again() -> None:
    sessions = Sessions(OLD, NEW)
    app = sessions.app()
    async with running(app) as base, Client(base + "/mcp", mode="legacy") as client:
        await client.list_tools()
        sessions.forget()
        await client.call_tool("t", {})  # sent again with the definition it was called with
        await client.call_tool("t", {})  # the new session's definition is listed first
    listed = [s.headers["mcp-session-id"] for s in app.of("tools/list")]
    assert listed == ["sess-1", "sess-2"]


async def test_a_legacy_listen_subscription_is_acknowledged_again_and_resyncs() -> None:
    sessions = Sessions(OLD, {**NEW, "capabilities": {"tools": {"listChanged": True}}})
    app = sessions.app()
    resyncs: list[int] = []
    async with (
        running(app) as base,
        Client(base + "/mcp", mode="legacy") as client,
        client.listen(
            tools=True, resource_uris=["file:///a"], on_resync=lambda: resyncs.append(1)
        ) as subscription,
    ):
        first = await anext(subscription)
        assert isinstance(first, SubscriptionsAcknowledgedNotification)
        assert first.params.notifications.resource_subscriptions == ["file:///a"]
        sessions.forget()
        await client.call_tool("t", {})
        async with asyncio.timeout(WAIT):
            again = await anext(subscription)
        assert isinstance(again, SubscriptionsAcknowledgedNotification)
        assert again.params.notifications.tools_list_changed is True
        assert again.params.notifications.resource_subscriptions is None
        assert subscription.agreed == {"toolsListChanged": True}
        assert (resyncs, subscription.relistens) == ([1], 1)


async def test_an_expiry_met_by_a_notification_updates_the_client_too() -> None:
    """No request needs sending again: the client catches up when the transport's
    ``notifications/mcpkit/session_expired`` reaches it."""
    sessions = Sessions(OLD, NEW)
    app = sessions.app()
    told = asyncio.Event()
    async with (
        running(app) as base,
        Client(
            base + "/mcp",
            mode="legacy",
            roots=[{"uri": "file:///r"}],
            session_renewed_handler=lambda event: told.set(),
        ) as client,
    ):
        sessions.forget()
        await client.set_roots([{"uri": "file:///s"}])
        async with asyncio.timeout(WAIT):
            await told.wait()
        assert (client.protocol_version, client.instructions) == ("2025-06-18", "Use beta.")
    sent = [s.headers["mcp-session-id"] for s in app.of("notifications/roots/list_changed")]
    assert sent == ["sess-1", "sess-2"]


# -- real mcpkit servers -----------------------------------------------------------------------


def kit_server(
    name: str, version: str, instructions: str, revisions: tuple[str, ...], *, tasks: bool = True
) -> Server:
    server = Server(
        name, version, instructions=instructions, supported_versions=revisions, tasks=tasks
    )

    @server.tool
    async def chatty(ctx: Context) -> str:
        """Log at warning and at error."""
        await ctx.log("warning", "a warning")
        await ctx.log("error", "an error")
        return "said"

    @server.prompt
    def greet(who: str) -> str:
        """Greet someone."""
        return f"hello {who}"

    @server.completion(argument="who", prompt="greet")
    def names(value: str, arguments: dict[str, str]) -> list[str]:
        return [f"context {sorted(arguments)}"]

    return server


class Redeploy:
    """An ASGI app that forwards to whichever app is deployed now: a redeploy forgets every
    session of the app before it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


@contextlib.asynccontextmanager
async def lifespans(*apps: Any) -> AsyncIterator[None]:
    async with contextlib.AsyncExitStack() as stack:
        for app in apps:
            await stack.enter_async_context(app.lifespan())
        yield


async def test_a_redeployed_mcpkit_server_with_another_configuration() -> None:
    """alpha speaks 2025-03-26; beta, deployed in its place, also 2025-11-25, which it then
    negotiates: another server, revision, instructions and capabilities (core tasks), and the
    completion sent again carries ``context``, which 2025-03-26 lacks. (A redeploy that *drops*
    the old session's revision answers its requests 400 for the version header, not 404: the
    scripted tests cover a new session with an older revision.)"""
    alpha = kit_server("alpha", "1.0", "Use alpha.", ("2025-03-26",)).http_app()
    beta = kit_server("beta", "2.0", "Use beta.", ("2025-11-25", "2025-03-26")).http_app()
    deployed = Redeploy(alpha)
    told: list[SessionRenewed] = []
    async with (
        lifespans(alpha, beta),
        running(deployed) as base,
        Client(base + "/mcp", mode="legacy", session_renewed_handler=told.append) as client,
    ):
        assert (client.protocol_version, client.server_info["name"]) == ("2025-03-26", "alpha")
        assert "tasks" not in client.server_capabilities
        deployed.app = beta
        done = await client.complete(
            PromptReference(name="greet"), "who", "a", context_arguments={"k": "v"}
        )
        assert done.completion.values == ["context ['k']"]
        assert (client.protocol_version, client.instructions) == ("2025-11-25", "Use beta.")
        assert client.server_info["name"] == "beta" and client.server_info["version"] == "2.0"
        assert "tasks" in client.server_capabilities
        assert client.negotiated.capabilities == client.server_capabilities
        assert [(e.previous.protocol_version, e.current.protocol_version) for e in told] == [
            ("2025-03-26", "2025-11-25")
        ]


async def test_a_task_request_sent_again_is_refused_as_a_fresh_client_would_be() -> None:
    """beta, deployed in alpha's place, runs no tasks (no ``tasks`` capability): a task poll
    that met the redeploy is not sent again; the caller gets the :class:`TasksUnsupported` a
    fresh client of beta gets."""
    alpha = kit_server("alpha", "1.0", "Use alpha.", ("2025-11-25",)).http_app()
    beta = kit_server("beta", "2.0", "Use beta.", ("2025-11-25",), tasks=False).http_app()
    deployed = Redeploy(alpha)
    async with lifespans(alpha, beta), running(deployed) as base:
        async with Client(base + "/mcp", mode="legacy") as client:
            assert "tasks" in client.server_capabilities
            deployed.app = beta
            with pytest.raises(TasksUnsupported) as refused:
                await client.get_task("some-task")
            assert "tasks" not in client.server_capabilities
        async with Client(base + "/mcp", mode="legacy") as fresh:
            with pytest.raises(TasksUnsupported) as fresh_refused:
                await fresh.get_task("some-task")
    assert str(refused.value) == str(fresh_refused.value)


async def test_the_log_level_holds_in_a_session_the_server_replaced() -> None:
    """The session is ended from outside (DELETE); without the level set again, the new
    session would send every level."""
    server = kit_server("alpha", "1.0", "Use alpha.", ("2025-11-25",))
    levels: list[str] = []
    error_seen = asyncio.Event()

    def on_log(params: Any) -> None:
        levels.append(params.level)
        if params.level == "error":
            error_seen.set()

    async with (
        running(server.http_app(), lifespan="on") as base,
        Client(base + "/mcp", mode="legacy", log_level="error", logging_handler=on_log) as client,
    ):
        old = client.negotiated.session_id
        assert old
        async with httpx.AsyncClient() as http:
            gone = await http.delete(
                base + "/mcp",
                headers={"Mcp-Session-Id": old, "MCP-Protocol-Version": "2025-11-25"},
            )
            assert gone.status_code in (200, 204)
        await client.call_tool("chatty", {})
        async with asyncio.timeout(WAIT):
            await error_seen.wait()
        assert levels == ["error"]
        assert client.negotiated.session_id not in (None, old)


async def test_a_host_forgets_the_lists_of_a_server_whose_session_was_replaced() -> None:
    """The host kept ``[]`` for the prompts of a server without the capability; the new
    session has it: the host forgets that server's lists (and says so once) before the call
    that met the expiry is sent again, so the next listing asks the new session."""
    prompts = {"prompts": [{"name": "p"}]}
    with_prompts = {**OLD, "capabilities": {"tools": {"listChanged": True}, "prompts": {}}}
    sessions = Sessions(OLD, with_prompts)
    app = sessions.app(**{"prompts/list": answer(prompts)})
    changed: list[str] = []
    async with (
        running(app) as base,
        Host(
            {"srv": {"url": base + "/mcp"}},
            client_options={"mode": "legacy", "output_validation": "off"},
            on_change=changed.append,
        ) as host,
    ):
        assert await host.list_prompts() == []
        assert [tool.name for tool in await host.list_tools()] == ["t"]
        sessions.forget()
        await host.call_tool("t", {})
        assert changed == ["srv"]
        assert [prompt.name for prompt in await host.list_prompts()] == ["p"]
        assert host.status()["srv"]["server_info"] == OLD["serverInfo"]
        assert host.status()["srv"]["protocol_version"] == "2025-11-25"
    assert [s.headers["mcp-session-id"] for s in app.of("tools/list")] == ["sess-1"]
    assert [s.headers["mcp-session-id"] for s in app.of("prompts/list")] == ["sess-2"]

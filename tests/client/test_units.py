"""Unit tests of the client's building blocks: negotiation, MRTR, questions, cache, schemas,
targets. No processes; negotiation runs against a scripted channel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcpkit.client import (
    CommandConnector,
    IncompatibleServer,
    InMemoryConnector,
    InputRequiredLoopExceeded,
    ServerMisbehaved,
    UrlConnector,
    resolve_target,
)
from mcpkit.client._cache import ResultCache
from mcpkit.client._mrtr import run_input_rounds
from mcpkit.client._negotiate import NegotiationConfig, negotiate
from mcpkit.client._questions import Questions, form_defaults
from mcpkit.client._schemas import SchemaCache, SchemaProblem, compile_schema
from mcpkit.protocol._connection import ClientConnection
from mcpkit.protocol._errors import (
    InvalidParams,
    JSONRPCError,
    MethodNotFound,
    MissingRequiredClientCapability,
    RemoteProtocolError,
    RequestTimeout,
    UnsupportedProtocolVersion,
    UsageError,
)
from mcpkit.protocol._meta import request_meta
from mcpkit.types._jsonrpc import ErrorResponse, JSONObject, Notification, Response

DISCOVER_OK: JSONObject = {
    "resultType": "complete",
    "supportedVersions": ["2026-07-28", "2025-11-25"],
    "capabilities": {"tools": {}},
    "ttlMs": 1000,
    "cacheScope": "public",
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
}
INIT_OK: JSONObject = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"prompts": {}},
    "serverInfo": {"name": "legacy", "version": "2"},
}

Script = Callable[[str, JSONObject | None], JSONObject]


class ScriptedChannel:
    """A channel whose answers come from a function; records what was sent. Like the real
    channels it runs every message through a ``ClientConnection``, where the verdicts land."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.sent: list[tuple[str, JSONObject | None, str | None]] = []
        self.notified: list[str] = []
        self.connection: ClientConnection[None, None] = ClientConnection()

    async def request(
        self, method: str, params: JSONObject | None, *, protocol_version: str | None, **kw: Any
    ) -> JSONObject:
        self.sent.append((method, params, protocol_version))
        request = self.connection.start_request(method, params, None)
        try:
            self.connection.send(request, protocol_version, method)
            try:
                result = self.script(method, params)
            except JSONRPCError as exc:
                self.connection.receive(ErrorResponse(request.id, exc.to_error_object()))
                raise
            self.connection.receive(Response(request.id, result))
            return result
        finally:
            self.connection.end_request(request.id)  # type: ignore[arg-type]

    async def notify(
        self, method: str, params: JSONObject | None, *, protocol_version: str | None
    ) -> None:
        self.connection.send(Notification(method, params), protocol_version, method)
        self.notified.append(method)

    def adopt_discover(self, version: str, capabilities: JSONObject) -> None:
        self.connection.adopt_discover(version, capabilities)

    def initialized_version(self) -> str:
        return self.connection.initialize_outcome()


def config(mode: str = "auto", saved: JSONObject | None = None) -> NegotiationConfig:
    return NegotiationConfig(
        mode=mode,  # type: ignore[arg-type]
        client_info={"name": "t", "version": "0"},
        capabilities_for=lambda era: {},
        meta_for=lambda v: request_meta(v, {}, {"name": "t", "version": "0"}),
        probe_timeout=0.1,
        saved_discover=saved,
    )


def fails_with(exc: Exception, then: JSONObject | None = None) -> Script:
    def script(method: str, params: JSONObject | None) -> JSONObject:
        if method == "server/discover":
            raise exc
        if method == "initialize" and then is not None:
            return then
        raise AssertionError(f"unexpected {method}")

    return script


# -- negotiation -------------------------------------------------------------------------------


async def test_discover_result_means_modern() -> None:
    channel = ScriptedChannel(lambda m, p: DISCOVER_OK)
    result = await negotiate(channel, config())  # type: ignore[arg-type]
    assert (result.era, result.protocol_version, result.server_name) == (
        "modern",
        "2026-07-28",
        "s",
    )
    assert (result.ttl_ms, result.cache_scope) == (1000, "public")
    method, params, version = channel.sent[0]
    assert method == "server/discover" and version == "2026-07-28"
    assert params is not None
    assert params["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert params["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {}


@pytest.mark.parametrize(
    "error",
    [
        MethodNotFound("no"),
        InvalidParams("not initialized"),
        JSONRPCError("weird", code=-32000),
        RequestTimeout("server/discover", 0.1),
    ],
    ids=["-32601", "-32602", "-32000", "timeout"],
)
async def test_anything_else_falls_back_to_initialize(error: Exception) -> None:
    channel = ScriptedChannel(fails_with(error, INIT_OK))
    result = await negotiate(channel, config())  # type: ignore[arg-type]
    assert (result.era, result.protocol_version) == ("legacy", "2025-11-25")
    assert channel.connection.protocol_version == "2025-11-25"  # recorded once, there
    assert channel.connection.operating and not channel.connection.modern
    assert channel.notified == ["notifications/initialized"]
    init = channel.sent[1][1]
    assert init is not None and init["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize(
    "error",
    [
        MissingRequiredClientCapability("need roots", {"requiredCapabilities": {"roots": {}}}),
        UnsupportedProtocolVersion("no", {"supported": ["2030-01-01"], "requested": "x"}),
    ],
)
async def test_recognised_modern_errors_never_fall_back(error: Exception) -> None:
    channel = ScriptedChannel(fails_with(error, INIT_OK))
    with pytest.raises(IncompatibleServer):
        await negotiate(channel, config())  # type: ignore[arg-type]
    assert [m for m, _, _ in channel.sent] == ["server/discover"]


async def test_32022_with_a_mutual_version_is_retried_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def script(method: str, params: JSONObject | None) -> JSONObject:
        assert params is not None
        version = params["_meta"]["io.modelcontextprotocol/protocolVersion"]
        calls.append(version)
        if version == "2027-01-01":
            raise UnsupportedProtocolVersion("no", {"supported": ["2026-07-28"]})
        return DISCOVER_OK

    cfg = config()
    cfg.modern_versions = ("2026-07-28", "2027-01-01")
    result = await negotiate(ScriptedChannel(script), cfg)  # type: ignore[arg-type]
    assert calls == ["2027-01-01", "2026-07-28"]
    assert result.protocol_version == "2026-07-28"


async def test_32022_listing_the_refused_version_is_retried_once() -> None:
    """A server may refuse one request with -32022 and list the version it refused; the client
    retries once at that version (the conformance scenario request-metadata does this)."""
    calls: list[str] = []

    def script(method: str, params: JSONObject | None) -> JSONObject:
        assert params is not None
        calls.append(params["_meta"]["io.modelcontextprotocol/protocolVersion"])
        if len(calls) == 1:
            raise UnsupportedProtocolVersion("no", {"supported": ["2026-07-28"]})
        return DISCOVER_OK

    result = await negotiate(ScriptedChannel(script), config())  # type: ignore[arg-type]
    assert calls == ["2026-07-28", "2026-07-28"]
    assert result.protocol_version == "2026-07-28"


async def test_32022_twice_for_a_listed_version_is_incompatible() -> None:
    channel = ScriptedChannel(
        fails_with(UnsupportedProtocolVersion("no", {"supported": ["2026-07-28"]}), INIT_OK)
    )
    with pytest.raises(IncompatibleServer):
        await negotiate(channel, config())  # type: ignore[arg-type]


async def test_initialize_answered_32022_reprobes() -> None:
    """A probe that timed out may still have locked a stdio server to the modern era."""
    state = {"discover": 0}

    def script(method: str, params: JSONObject | None) -> JSONObject:
        if method == "server/discover":
            state["discover"] += 1
            if state["discover"] == 1:
                raise RequestTimeout("server/discover", 0.1)
            return DISCOVER_OK
        raise UnsupportedProtocolVersion("modern now", {"supported": ["2026-07-28"]})

    result = await negotiate(ScriptedChannel(script), config())  # type: ignore[arg-type]
    assert result.era == "modern"


async def test_legacy_counter_offer_we_do_not_speak_is_refused() -> None:
    offer = dict(INIT_OK, protocolVersion="2023-01-01")
    with pytest.raises(RemoteProtocolError, match="2023-01-01"):
        await negotiate(ScriptedChannel(lambda m, p: offer), config("legacy"))  # type: ignore[arg-type]


async def test_saved_discover_result_is_adopted_without_a_probe() -> None:
    channel = ScriptedChannel(lambda m, p: pytest.fail("nothing may be sent"))
    result = await negotiate(channel, config(saved=DISCOVER_OK))  # type: ignore[arg-type]
    assert result.era == "modern" and channel.sent == []


async def test_discover_result_without_a_modern_version_is_a_legacy_advertisement() -> None:
    legacy_only = dict(DISCOVER_OK, supportedVersions=["2025-06-18"])

    def script(method: str, params: JSONObject | None) -> JSONObject:
        return (
            legacy_only
            if method == "server/discover"
            else dict(INIT_OK, protocolVersion="2025-06-18")
        )

    result = await negotiate(ScriptedChannel(script), config())  # type: ignore[arg-type]
    assert (result.era, result.protocol_version) == ("legacy", "2025-06-18")


# -- MRTR ---------------------------------------------------------------------------------------


async def test_mrtr_missing_result_type_means_complete() -> None:
    async def send(params: JSONObject) -> JSONObject:
        return {"content": []}

    result, rounds = await run_input_rounds("tools/call", {"name": "x"}, send, _no_answer)
    assert (result, rounds) == ({"content": []}, 0)


async def _no_answer(key: str, request: Any) -> JSONObject:
    raise AssertionError("no question expected")


async def test_mrtr_retries_with_fresh_params_each_round() -> None:
    seen: list[JSONObject] = []
    rounds_left = [
        {"resultType": "input_required", "inputRequests": {"a": {"method": "roots/list"}}},
        {"resultType": "input_required", "requestState": "S2"},
        {"resultType": "complete", "content": []},
    ]

    async def send(params: JSONObject) -> JSONObject:
        seen.append(params)
        return rounds_left.pop(0)

    async def answer(key: str, request: Any) -> JSONObject:
        return {"roots": []}

    _, rounds = await run_input_rounds(
        "tools/call", {"name": "x", "requestState": "stale"}, send, answer
    )
    assert rounds == 2
    assert seen[0] == {"name": "x"}  # a caller's stale state is never sent
    assert seen[1] == {"name": "x", "inputResponses": {"a": {"roots": []}}}
    assert seen[2] == {"name": "x", "requestState": "S2"}  # answers are for one retry only


@pytest.mark.parametrize(
    "bad",
    [
        {"resultType": "input_required"},
        {"resultType": "input_required", "inputRequests": []},
        {"resultType": "input_required", "requestState": 5},
    ],
)
async def test_mrtr_malformed_input_required(bad: JSONObject) -> None:
    async def send(params: JSONObject) -> JSONObject:
        return bad

    with pytest.raises(ServerMisbehaved):
        await run_input_rounds("tools/call", {}, send, _no_answer)


async def test_mrtr_only_on_the_three_methods_and_bounded() -> None:
    async def send(params: JSONObject) -> JSONObject:
        return {"resultType": "input_required", "requestState": "s"}

    with pytest.raises(ServerMisbehaved, match="only tools/call"):
        await run_input_rounds("tools/list", {}, send, _no_answer)
    with pytest.raises(InputRequiredLoopExceeded):
        await run_input_rounds("prompts/get", {}, send, _no_answer, max_rounds=4)


# -- questions ----------------------------------------------------------------------------------


async def test_capabilities_follow_the_handlers() -> None:
    async def handler(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "decline"}

    assert Questions().capabilities("legacy") == {}
    full = Questions(
        elicitation=handler,
        url_elicitation=True,
        sampling=handler,
        sampling_tools=True,
        roots=[],
        extensions={"com.example/x": {}},
    )
    assert full.capabilities("legacy") == {
        "elicitation": {"form": {}, "url": {}},
        "sampling": {"tools": {}},
        "roots": {"listChanged": True},
        "extensions": {"com.example/x": {}},
    }
    assert full.capabilities("modern")["roots"] == {}


async def test_questions_refuse_what_was_not_declared() -> None:
    async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"b": 1}}

    async def sample(params: Any, ctx: Any) -> dict[str, Any]:
        return {}

    q = Questions(elicitation=elicit, sampling=sample)
    kw: dict[str, Any] = {"era": "legacy", "protocol_version": "2025-11-25", "server_name": "s"}
    with pytest.raises(MethodNotFound):
        await q.answer("roots/list", {}, **kw)
    with pytest.raises(InvalidParams, match="url"):
        await q.answer("elicitation/create", {"mode": "url", "message": "m", "url": "u"}, **kw)
    with pytest.raises(InvalidParams, match=r"sampling\.tools"):
        await q.answer("sampling/createMessage", {"tools": []}, **kw)
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    answer = await q.answer("elicitation/create", {"message": "m", "requestedSchema": schema}, **kw)
    assert answer == {"action": "accept", "content": {"a": "x", "b": 1}}
    assert await q.answer("ping", {}, **kw) == {}
    with pytest.raises(ServerMisbehaved, match="cannot answer"):
        await q.answer_input_request(
            "k", {"method": "roots/list"}, protocol_version="v", server_name="s", asked_during="x"
        )


def test_form_defaults() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"type": "integer"},
            "c": {"type": "array", "items": {"type": "string", "enum": ["p"]}, "default": ["p"]},
        },
    }
    assert form_defaults(schema) == {"a": "x", "c": ["p"]}
    assert form_defaults(None) == {}


# -- cache --------------------------------------------------------------------------------------


def test_cache_ttl_scope_and_invalidation() -> None:
    now = [100.0]
    cache = ResultCache(clock=lambda: now[0])
    cache.put("tools/list", "", {"tools": [], "ttlMs": 1000, "cacheScope": "public"})
    cache.put("tools/list", "cursor:a", {"tools": [], "ttlMs": 1000})
    cache.put("prompts/list", "", {"prompts": []})  # no TTL: not stored
    cache.put("resources/read", "file:///a", {"contents": [], "ttlMs": -5})  # negative: 0
    cache.put("resources/read", "file:///b", {"contents": [], "ttlMs": 500})
    assert cache.get("prompts/list") is None
    assert cache.get("resources/read", "file:///a") is None
    assert [key for key, _ in cache.public_entries()] == [("tools/list", "")]
    now[0] = 100.4
    assert cache.get("resources/read", "file:///b") is not None
    now[0] = 100.5
    assert cache.get("resources/read", "file:///b") is None  # fresh while now < t + ttl
    cache.on_notification("notifications/tools/list_changed", None)
    assert cache.get("tools/list") is None and cache.get("tools/list", "cursor:a") is None
    cache.put("resources/read", "file:///dir", {"contents": [], "ttlMs": 1000})
    cache.on_notification("notifications/resources/updated", {"uri": "file:///dir/x"})
    assert cache.get("resources/read", "file:///dir") is None


# -- schemas ------------------------------------------------------------------------------------


def test_schema_dialects_and_no_network_refs() -> None:
    with pytest.raises(SchemaProblem, match="unsupported JSON Schema dialect"):
        compile_schema({"$schema": "https://example.com/my-dialect"})
    draft7 = compile_schema(
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"}
    )
    assert draft7.first_error(1) is None
    remote = compile_schema({"$ref": "https://example.com/schema.json"})
    problem = remote.first_error({})
    assert problem is not None and "not fetched" in problem[1]
    local = compile_schema(
        {"$defs": {"n": {"type": "integer"}}, "type": "array", "items": {"$ref": "#/$defs/n"}}
    )
    assert local.first_error([1, "x"]) == ("$[1]", "'x' is not of type 'integer'")


def test_schema_cache_compiles_once_per_schema_object() -> None:
    cache = SchemaCache()
    schema = {"type": "object"}
    first = cache.get("t", "inputSchema", schema)
    assert cache.get("t", "inputSchema", schema) is first
    assert cache.get("t", "inputSchema", {"type": "object"}) is not first
    with pytest.raises(SchemaProblem):
        cache.get("t", "outputSchema", {"type": 5})


# -- targets ------------------------------------------------------------------------------------


def test_targets_resolve_to_connectors() -> None:
    cmd = resolve_target("uvx my-server --flag 'two words'")
    assert isinstance(cmd, CommandConnector)
    assert (cmd.command, cmd.args) == ("uvx", ["my-server", "--flag", "two words"])
    assert isinstance(resolve_target(["python", "-m", "x"]), CommandConnector)
    assert isinstance(resolve_target("https://example.com/mcp"), UrlConnector)
    entry = resolve_target({"command": "node", "args": ["s.js"], "env": {"K": "v"}})
    assert isinstance(entry, CommandConnector) and entry.env == {"K": "v"}
    http = resolve_target({"type": "http", "url": "http://h/mcp", "headers": {"A": "b"}})
    assert isinstance(http, UrlConnector) and http.headers == {"A": "b"}

    class Fake:
        def connect_in_memory(self) -> None: ...

    assert isinstance(resolve_target(Fake()), InMemoryConnector)
    for bad in ("", [], {"args": []}, 42, {"command": "x", "args": "notalist"}):
        with pytest.raises(UsageError):
            resolve_target(bad)

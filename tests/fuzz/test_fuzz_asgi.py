"""Property-based fuzzing of the Streamable HTTP app: random methods, paths, headers, bodies.

One app (lifespan entered, reaper running) serves every example of a test on one event loop, so
state accumulates the way it does in production: sessions opened by fuzzed ``initialize``
requests, requests inside real legacy sessions (GET streams and DELETE too), half-read bodies,
clients hanging up mid-stream. After each example the app must still
answer a plain request; at the end no handler task may be left. Invariants: ``_fuzz_asgi``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from _fuzz_asgi import HOST, AsgiTarget, modern_request
from _fuzz_settings import FUZZ_SLOW
from hypothesis import given
from hypothesis import strategies as st

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=12,
)
MCP_METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "nope/nope",
]
HEADER_NAMES = [
    "host",
    "origin",
    "content-type",
    "accept",
    "content-length",
    "mcp-protocol-version",
    "mcp-session-id",
    "mcp-method",
    "mcp-name",
    "mcp-param-region",
    "last-event-id",
    "authorization",
    "transfer-encoding",
]
header_values = st.sampled_from(
    [
        HOST,
        "evil.example",
        "http://evil.example",
        "application/json",
        "text/event-stream",
        "application/json, text/event-stream",
        "text/plain",
        "2026-07-28",
        "2025-11-25",
        "2024-11-05",
        "1999-01-01",
        "tools/call",
        "add",
        "=?base64?w6k=?=",
        "=?base64?!!!?=",
        "0",
        "-1",
        "99999999999999999999",
        "",
    ]
) | st.text(max_size=24)

http_methods = st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]) | (
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8)
)
paths = st.sampled_from(["/mcp", "/mcp/", "/healthz", "/", "/sse", "/messages", "/mcp/x"]) | (
    st.text(max_size=12).map(lambda t: "/" + t)
)


def _chunks(body: bytes, cuts: list[int]) -> list[bytes]:
    if not body:
        return [body]
    offsets = sorted({c % len(body) for c in cuts} | {0})
    return [body[a:b] for a, b in zip(offsets, [*offsets[1:], len(body)], strict=True)]


@st.composite
def random_requests(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, str]], list[bytes]]:
    """Anything at all: method, path, headers and body all drawn independently."""
    headers = draw(st.lists(st.tuples(st.sampled_from(HEADER_NAMES), header_values), max_size=8))
    if draw(st.booleans()):
        headers.insert(0, ("host", HOST))
    body = draw(
        st.binary(max_size=200)
        | json_values.map(lambda v: json.dumps(v).encode())
        | st.sampled_from([b"", b"{", b"[" * 5000, b'{"jsonrpc":"2.0"}', b"\xff\xfe"])
    )
    cuts = draw(st.lists(st.integers(min_value=0), max_size=4))
    return draw(http_methods), draw(paths), headers, _chunks(body, cuts)


@st.composite
def mcp_posts(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, str]], list[bytes]]:
    """Well-formed 2026 POSTs with random methods and params, then some headers mutated."""
    method = draw(st.sampled_from(MCP_METHODS))
    params: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["add", "region", "chatty", "greet", "missing"])
                | json_values,
                "arguments": st.fixed_dictionaries(
                    {},
                    optional={
                        "a": json_values,
                        "b": st.integers(),
                        "region": json_values,
                        "steps": st.integers(-3, 8),
                        "who": json_values,
                    },
                )
                | json_values,
                "uri": st.sampled_from(["fuzz://item/x", "fuzz://item/", "file:///etc/passwd"])
                | json_values,
                "cursor": json_values,
                "_meta": st.fixed_dictionaries(
                    {},
                    optional={
                        "io.modelcontextprotocol/logLevel": json_values,
                        "io.modelcontextprotocol/clientCapabilities": json_values,
                        "io.modelcontextprotocol/clientInfo": json_values,
                        "progressToken": json_values,
                    },
                ),
            },
        )
    )
    request_id = draw(st.integers() | st.text(max_size=6) | st.none() | st.booleans())
    headers, body = modern_request(request_id, method, params)
    if draw(st.booleans()):
        # drop, duplicate or replace a few headers
        for _ in range(draw(st.integers(1, 3))):
            action = draw(st.integers(0, 2))
            index = draw(st.integers(0, len(headers) - 1))
            name = headers[index][0]
            if action == 0:
                headers.pop(index)
            elif action == 1:
                headers.append((name, draw(header_values)))
            else:
                headers[index] = (name, draw(header_values))
            if not headers:
                break
    cuts = draw(st.lists(st.integers(min_value=0), max_size=3))
    return "POST", "/mcp", headers, _chunks(body, cuts)


SESSION = "{session}"
"""Placeholder header value: the test opens a legacy session and puts its id here."""


@st.composite
def legacy_flows(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, str]], list[bytes]]:
    """Requests inside a real legacy session: random methods and params, GET and DELETE too."""
    method = draw(st.sampled_from(["POST", "POST", "POST", "GET", "DELETE"]))
    headers = [
        ("host", HOST),
        ("content-type", "application/json"),
        ("accept", draw(st.sampled_from(["application/json, text/event-stream", "*/*"]))),
        ("mcp-session-id", SESSION),
        ("mcp-protocol-version", draw(st.sampled_from(["2025-11-25"] * 4 + ["2025-06-18"]))),
    ]
    body: dict[str, Any] = {
        "jsonrpc": "2.0",
        "method": draw(st.sampled_from(MCP_METHODS)),
        "params": draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "name": st.sampled_from(["add", "chatty", "greet", "missing"]) | json_values,
                    "arguments": st.fixed_dictionaries(
                        {},
                        optional={
                            "a": json_values,
                            "b": st.integers(),
                            "steps": st.integers(-2, 6),
                        },
                    )
                    | json_values,
                    "uri": st.sampled_from(["fuzz://item/x", "file:///etc/passwd"]) | json_values,
                    "level": st.sampled_from(["debug", "emergency"]) | json_values,
                    "requestId": json_values,
                    "progressToken": json_values,
                },
            )
        ),
    }
    if draw(st.booleans()):
        body["id"] = draw(st.integers() | st.text(max_size=6))
    if draw(st.integers(0, 9)) == 0:  # now and then, a stale or foreign session id
        headers[3] = ("mcp-session-id", draw(st.sampled_from(["", "nope", "0" * 32])))
    return method, "/mcp", headers, [json.dumps(body).encode()]


@pytest.fixture
def runner() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as run:
        yield run


def _fuzz(runner: asyncio.Runner, strategy: Any, **options: Any) -> AsgiTarget:
    target = AsgiTarget(**options)
    runner.run(target.__aenter__())
    try:

        @FUZZ_SLOW
        @given(strategy)
        def one(request: tuple[str, str, list[tuple[str, str]], list[bytes]]) -> None:
            async def go() -> None:
                method, path, headers, chunks = request
                if any(value == SESSION for _, value in headers):
                    session = await target.legacy_session()
                    headers = [(k, session if v == SESSION else v) for k, v in headers]
                await target.check(method, path, headers, chunks)
                await target.assert_alive()

            runner.run(go())

        one()
        runner.run(target.assert_idle())
        print(
            f"\n{target.requests} requests ({target.hung_up} ended by a hang-up), "
            f"statuses {sorted(target.statuses.items())}"
        )
    finally:
        runner.run(target.__aexit__(None, None, None))
    return target


@pytest.mark.timeout(300)
@pytest.mark.no_schema_check  # random garbage in; the invariants check what comes out
def test_asgi_random_requests(runner: asyncio.Runner) -> None:
    target = _fuzz(runner, random_requests())
    assert target.requests > 0


@pytest.mark.timeout(300)
def test_asgi_mcp_shaped_requests(runner: asyncio.Runner) -> None:
    # schema-checked: every message the server sends for these must match the 2026 schema
    target = _fuzz(runner, mcp_posts())
    assert target.requests > 0


@pytest.mark.timeout(300)
def test_asgi_legacy_session_flows(runner: asyncio.Runner) -> None:
    # schema-checked: the legacy session's answers and stream messages must match the schema
    target = _fuzz(runner, legacy_flows(), session_idle_timeout=5.0, reap_interval=0.5)
    assert target.requests > 0


@pytest.mark.timeout(300)
@pytest.mark.no_schema_check
def test_asgi_stateless_and_json_response_modes(runner: asyncio.Runner) -> None:
    target = _fuzz(runner, random_requests() | mcp_posts(), stateless=True, json_response=True)
    assert target.requests > 0

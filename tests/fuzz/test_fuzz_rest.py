"""Property-based fuzzing of the REST facade (``rest_app``): random methods, paths, queries,
headers and bodies against one connected facade (issue 28).

Contract: every request gets exactly one answer, never an exception out of the app and never a
5xx other than the documented 502/503/504 (none of which a healthy in-process server causes);
errors are ``application/problem+json`` with the status repeated in the body; the facade still
answers a plain call afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from _fuzz_settings import FUZZ_SLOW
from hypothesis import given
from hypothesis import strategies as st

from mcpkit.contrib.openapi import rest_app
from openapi._facade_server import server

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=12,
)
paths = st.sampled_from(
    [
        "/tools/add", "/tools/divide", "/tools/summarize", "/tools/shout", "/tools/nope",
        "/tools", "/tools/", "/prompts", "/prompts/greet", "/prompts/nope", "/resources",
        "/resources/read", "/openapi.json", "/", "/tools/add/x",
    ]
) | st.text(max_size=16).map(lambda t: "/" + t)  # fmt: skip
queries = st.sampled_from(
    [b"", b"uri=notes://1", b"uri=notes://2", b"uri=config://app", b"uri=", b"uri=%ff%fe", b"x=1"]
) | st.binary(max_size=20)
header_pairs = st.lists(
    st.tuples(
        st.sampled_from([b"host", b"origin", b"content-type", b"content-length", b"accept"]),
        st.sampled_from(
            [
                b"localhost", b"127.0.0.1:8000", b"evil.example", b"http://localhost:8000",
                b"https://evil.example", b"null", b"application/json", b"text/plain",
                b"application/problem+json", b"application/json; charset=utf-8", b"", b"\xff",
            ]
        )
        | st.binary(max_size=16),
    ),
    max_size=5,
)  # fmt: skip
bodies = (
    st.binary(max_size=120)
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries(
        {}, optional={"a": json_values, "b": json_values, "text": json_values, "name": json_values}
    ).map(lambda v: json.dumps(v).encode())
    | st.sampled_from(
        [b"", b"{", b"[" * 50_000, b'{"a": "\\ud800"}', b'{"a": 1e999}', b"\xff\xfe", b"null"]
    )
)
DOCUMENTED_5XX = {502, 503, 504}


async def _request(
    app: Any, method: str, path: str, query: bytes, headers: list[tuple[bytes, bytes]], body: bytes
) -> tuple[list[dict[str, Any]], bytes]:
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode("utf-8", "surrogateescape"),
        "query_string": query, "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asyncio.wait_for(app(scope, receive, send), 10)
    return sent, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


@pytest.fixture
def runner() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as run:
        yield run


@pytest.mark.timeout(300)
@pytest.mark.no_schema_check
def test_rest_facade_random_requests(runner: asyncio.Runner) -> None:
    app = rest_app(server, client_options={"mode": "2026-07-28"})
    runner.run(app.__aenter__())
    statuses: dict[int, int] = {}
    try:

        @FUZZ_SLOW
        @given(
            st.sampled_from(["GET", "POST", "POST", "POST", "PUT", "DELETE"]),
            paths, queries, header_pairs, bodies, st.sampled_from(["raw", "host", "call"]),
            st.sampled_from(["add", "divide", "summarize", "shout"]),
        )  # fmt: skip
        def one(
            method: str,
            path: str,
            query: bytes,
            headers: list[tuple[bytes, bytes]],
            body: bytes,
            shape: str,
            tool: str,
        ) -> None:
            if shape != "raw":  # past the web guards
                headers = [(b"host", b"localhost"), *headers]
            if shape == "call":  # a well-formed call: only the body is random
                method, path = "POST", f"/tools/{tool}"
                headers = [(b"host", b"localhost"), (b"content-type", b"application/json")]
            sent, payload = runner.run(_request(app, method, path, query, headers, body))
            starts = [m for m in sent if m["type"] == "http.response.start"]
            assert len(starts) == 1, sent
            status = starts[0]["status"]
            statuses[status] = statuses.get(status, 0) + 1
            assert status < 500 or status in DOCUMENTED_5XX, (status, payload[:300])
            assert status not in DOCUMENTED_5XX, (status, payload[:300])  # healthy server
            content_type = dict(starts[0]["headers"]).get(b"content-type", b"")
            decoded = json.loads(payload)
            if status >= 400:
                assert content_type == b"application/problem+json", content_type
                assert decoded["status"] == status and decoded["detail"], decoded
            _, alive_body = runner.run(
                _request(
                    app, "POST", "/tools/add", b"",
                    [(b"host", b"localhost"), (b"content-type", b"application/json")],
                    b'{"a": 1, "b": 2}',
                )
            )  # fmt: skip
            assert json.loads(alive_body) == {"result": 3}, alive_body

        one()
        print(f"\nREST facade statuses {sorted(statuses.items())}")
    finally:
        runner.run(app.__aexit__(None, None, None))

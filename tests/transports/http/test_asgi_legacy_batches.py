"""JSON-RPC batches over Streamable HTTP on a real server: a 2025-03-26 session accepts them
(that revision's transport requires it) and answers with one JSON array; any other session
refuses an array with 400 + -32600."""

from __future__ import annotations

from typing import Any

import httpx
from _asgi_harness import LegacyPeer, initialize_body, running
from _asgi_servers import build_server

from mcpkit.transports.http import McpHttpApp


def _app(**options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server().http_app(**options)
    return app


async def _session(http: httpx.AsyncClient, version: str) -> LegacyPeer:
    peer = LegacyPeer(http)
    response = await http.post(
        peer.path,
        json=initialize_body(version=version),
        headers={"accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 200, response.text
    peer.session_id = response.headers["mcp-session-id"]
    peer.version = response.json()["result"]["protocolVersion"]
    assert peer.version == version
    note = await peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert note.status_code == 202
    return peer


def _add(request_id: Any, a: int, b: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": a, "b": b}},
    }


async def _post_batch(peer: LegacyPeer, batch: list[Any]) -> httpx.Response:
    return await peer.http.post(peer.path, json=batch, headers=peer.headers())


async def test_a_batch_is_answered_with_one_json_array() -> None:
    for options in ({}, {"json_response": True}):
        async with running(_app(**options)) as url, httpx.AsyncClient(base_url=url) as http:
            peer = await _session(http, "2025-03-26")
            batch = [
                _add(2, 1, 2),
                {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                {"jsonrpc": "2.0", "id": "p", "method": "ping"},
                _add(3, 20, 22),
            ]
            response = await _post_batch(peer, batch)
            assert response.status_code == 200, response.text
            assert response.headers["content-type"].startswith("application/json")
            answers = {answer["id"]: answer for answer in response.json()}
            assert set(answers) == {2, "p", 3}, options
            # 2025-03-26 has no structuredContent: the answer is shaped for the revision
            assert answers[2]["result"]["content"][0]["text"] == "3"
            assert answers[3]["result"]["content"][0]["text"] == "42"
            assert answers["p"]["result"] == {}
            assert (await peer.call(4, "tools/list"))["result"]["tools"]  # carries on


async def test_members_that_cannot_be_served_get_their_own_errors() -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = await _session(http, "2025-03-26")
        batch = [
            _add(5, 1, 1),
            _add(5, 2, 2),  # the same id twice in one batch
            {"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {"_meta": meta}},
            {"jsonrpc": "1.0", "id": 7, "method": "ping"},
        ]
        response = await _post_batch(peer, batch)
        assert response.status_code == 200, response.text
        answers = response.json()
        codes = sorted(
            ((a["id"], a["error"]["code"] if "error" in a else "ok") for a in answers), key=str
        )
        assert codes == [(5, "ok"), (5, -32600), (6, -32020), (7, -32600)]


async def test_notifications_only_get_202() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = await _session(http, "2025-03-26")
        note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        response = await _post_batch(peer, [note, note])
        assert response.status_code == 202
        assert response.content == b""


async def test_other_revisions_and_empty_batches_are_refused() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        for version in ("2024-11-05", "2025-06-18", "2025-11-25"):
            peer = await _session(http, version)
            response = await _post_batch(peer, [_add(2, 1, 2)])
            assert response.status_code == 400, version
            assert response.json()["error"]["code"] == -32600
        peer = await _session(http, "2025-03-26")
        empty = await _post_batch(peer, [])
        assert empty.status_code == 400
        assert empty.json()["error"]["code"] == -32600
        assert "empty" in empty.json()["error"]["message"]
        assert (await peer.call(3, "ping"))["result"] == {}


async def test_a_batch_naming_another_revision_gets_the_sessions_version_error() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        peer = await _session(http, "2025-03-26")
        headers = {**peer.headers(), "mcp-protocol-version": "2025-06-18"}
        response = await http.post(peer.path, json=[_add(2, 1, 2)], headers=headers)
        assert response.status_code == 400
        error = response.json()["error"]
        assert (
            error["code"] == -32600 and "negotiated protocol version 2025-03-26" in error["message"]
        )
        assert (await peer.call(3, "ping"))["result"] == {}

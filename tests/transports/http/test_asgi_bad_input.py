"""Bad input to the HTTP server gets the right status and error, and leaks nothing: garbage,
wrong media types, huge and slow bodies, hostile Host/Origin, clients vanishing mid-stream."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

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
from _asgi_servers import Probe, build_server

from mcpkit.protocol._http_security import HostPolicy
from mcpkit.transports.http import McpHttpApp
from mcpkit.transports.http._server import endpoint as endpoint_module

LEGACY_HEADERS = {**ACCEPT_BOTH, "mcp-protocol-version": "2025-11-25"}


def _app(probe: Probe | None = None, **options: Any) -> McpHttpApp:
    app: McpHttpApp = build_server(probe).http_app(**options)
    return app


async def test_unreadable_bodies_get_400_with_a_jsonrpc_error() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        cases = [
            (b"{not json", -32700),
            (b"\xff\xfe\x00garbage", -32700),
            (b"[" * 10_000, -32700),  # nested too deeply for any decoder
            (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600),  # a batch
            (b"42", -32600),
            (b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}', -32600),
            (b'{"jsonrpc":"2.0","id":null,"method":"initialize","params":{}}', -32600),
        ]
        for body, code in cases:
            response = await http.post("/mcp", content=body, headers=LEGACY_HEADERS)
            assert response.status_code == 400, (body[:40], response.text)
            assert response.json()["error"]["code"] == code, body[:40]


async def test_media_type_checks() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        body = initialize_body()
        wrong_type = await http.post(
            "/mcp", json=body, headers={**ACCEPT_BOTH, "content-type": "text/plain"}
        )
        assert wrong_type.status_code == 415 and "application/json" in wrong_type.text
        no_sse = await http.post(
            "/mcp", json=body, headers={**ACCEPT_BOTH, "accept": "application/json"}
        )
        assert no_sse.status_code == 406 and "text/event-stream" in no_sse.text
        no_accept = await http.post("/mcp", json=body, headers={"content-type": "application/json"})
        assert no_accept.status_code == 200  # no Accept at all means "anything" (RFC 9110)
        get_json = await http.get("/mcp", headers={"accept": "application/json"})
        assert get_json.status_code == 406


async def test_an_accepted_media_pair_is_remembered_and_a_bad_one_still_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(endpoint_module, "MAX_REMEMBERED_MEDIA", 4)
    app = _app()
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        body = initialize_body()
        for _ in range(2):  # the second request takes the remembered verdict
            assert (await http.post("/mcp", json=body, headers=ACCEPT_BOTH)).status_code == 200
        for _ in range(2):  # a refused pair is never remembered
            wrong = await http.post(
                "/mcp", json=body, headers={**ACCEPT_BOTH, "content-type": "text/plain"}
            )
            assert wrong.status_code == 415
        # the table is bounded: more distinct accepted pairs (q values) empty it, never grow it;
        # a body that is no message gets past the media checks, then 400
        for index in range(6):
            accept = f"application/json, text/event-stream;q=0.{index + 1}"
            answer = await http.post(
                "/mcp",
                content=b"42",
                headers={"content-type": "application/json", "accept": accept},
            )
            assert answer.status_code == 400
        assert 0 < len(app.endpoint._media_ok) <= 4
        refused = await http.post(
            "/mcp", json=body, headers={**ACCEPT_BOTH, "accept": "application/json"}
        )
        assert refused.status_code == 406


async def test_huge_bodies_get_413_before_being_buffered() -> None:
    async with running(_app(max_body_bytes=1024)) as url, httpx.AsyncClient(base_url=url) as http:
        big = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * 5000}}
        announced = await http.post("/mcp", json=big, headers=LEGACY_HEADERS)
        assert announced.status_code == 413 and "1024" in announced.text

        # no Content-Length: the limit is enforced while reading the chunks
        port = int(url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            chunk = b"200\r\n" + b" " * 512 + b"\r\n"
            writer.write(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 4
            )
            await writer.drain()
            answer = await bound(reader.read())
        finally:
            writer.close()
        assert answer.startswith(b"HTTP/1.1 413")


async def test_a_slow_body_gets_408_and_the_connection_closes() -> None:
    async with running(_app(body_timeout=0.3)) as url:
        port = int(url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 200\r\n\r\n{"jsonrpc":'
            )
            await writer.drain()
            answer = await bound(reader.read())  # the server answers and closes: EOF
        finally:
            writer.close()
        assert answer.startswith(b"HTTP/1.1 408")
        assert b"did not arrive within" in answer


async def test_host_and_origin_are_checked_with_a_helpful_body(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        evil_host = await http.post(
            "/mcp", json=initialize_body(), headers={**ACCEPT_BOTH, "host": "evil.example.com"}
        )
        assert evil_host.status_code == 421
        assert "allowed_hosts" in evil_host.text and "MCPKIT_ALLOWED_HOSTS" in evil_host.text
        evil_origin = await http.post(
            "/mcp",
            json=initialize_body(),
            headers={**ACCEPT_BOTH, "origin": "http://evil.example.com"},
        )
        assert evil_origin.status_code == 403 and "allowed_origins" in evil_origin.text
        port = url.rsplit(":", 1)[1]
        good = await http.post(
            "/mcp",
            json=initialize_body(),
            headers={
                **ACCEPT_BOTH,
                "host": f"localhost:{port}",
                "origin": f"http://localhost:{port}",
            },
        )
        assert good.status_code == 200
        health = await http.get("/healthz", headers={"host": "10.0.0.7"})
        assert health.status_code == 200 and health.json() == {"status": "ok"}
    monkeypatch.setenv("MCPKIT_ALLOWED_HOSTS", "mcp.example.com")
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        named = await http.post(
            "/mcp", json=initialize_body(), headers={**ACCEPT_BOTH, "host": "mcp.example.com"}
        )
        assert named.status_code == 200


async def test_a_host_accepted_before_is_refused_once_the_policy_changes() -> None:
    """The app remembers the Host/Origin pairs its policy accepted; a new policy starts over."""
    app = _app()
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        port = url.rsplit(":", 1)[1]
        headers = {**ACCEPT_BOTH, "host": f"localhost:{port}", "origin": f"http://localhost:{port}"}
        for _ in range(2):  # the second request takes the remembered answer
            assert (await http.post("/mcp", json=initialize_body(), headers=headers)).is_success
        app.host_policy = HostPolicy(allowed_hosts=("mcp.example.com",))
        refused = await http.post("/mcp", json=initialize_body(), headers=headers)
        assert refused.status_code == 421


async def test_other_paths_and_methods() -> None:
    async with running(_app()) as url, httpx.AsyncClient(base_url=url) as http:
        assert (await http.get("/elsewhere")).status_code == 404
        put = await http.put("/mcp", content=b"{}")
        assert put.status_code == 405 and "POST" in put.headers["allow"]
        twice = await http.post(
            "/mcp",
            json=modern_body(1, "tools/list"),
            headers=[
                *modern_headers(modern_body(1, "tools/list")).items(),
                ("mcp-method", "tools/list"),
            ],
        )
        assert twice.status_code == 400 and twice.json()["error"]["code"] == -32020


async def test_an_app_whose_lifespan_never_ran_refuses_loudly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = _app()
    async with running(app, lifespan="off") as url, httpx.AsyncClient(base_url=url) as http:
        response = await http.post("/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
        assert response.status_code == 500
        assert "lifespan=mcp_app.lifespan" in response.text
        assert (await http.get("/healthz")).status_code == 503
    assert any("lifespan never ran" in r.getMessage() for r in caplog.records)


async def test_the_lifespan_can_be_run_by_an_outer_app() -> None:
    """What Starlette's ``lifespan=mcp_app.lifespan`` does: the outer app enters it."""
    mcp_app = _app()

    async def outer(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            message = await receive()
            async with mcp_app.lifespan(outer):
                await send({"type": "lifespan.startup.complete"})
                message = await receive()
            assert message["type"] == "lifespan.shutdown"
            await send({"type": "lifespan.shutdown.complete"})
            return
        scope = {**scope, "root_path": "/tools"}  # mounted under /tools
        await mcp_app(scope, receive, send)

    async with running(outer) as url, httpx.AsyncClient(base_url=url) as http:
        response = await http.post("/tools/mcp", json=initialize_body(), headers=ACCEPT_BOTH)
        assert response.status_code == 200 and response.headers["mcp-session-id"]
    assert not mcp_app.started


async def test_a_storm_of_bad_and_vanishing_clients_leaks_no_session_or_task() -> None:
    probe = Probe()
    app = _app(probe, sse_after=0.0, body_timeout=0.5)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        await LegacyPeer(http).initialize()  # warm the connection pool, then count tasks
        baseline = len(asyncio.all_tasks())
        kept: list[LegacyPeer] = []
        for i in range(12):
            peer = LegacyPeer(http)
            await peer.initialize()
            if i % 3 == 0:
                kept.append(peer)
            else:
                assert (await http.delete("/mcp", headers=peer.headers())).status_code == 200
        storm: list[Any] = []
        for i in range(20):
            storm.append(http.post("/mcp", content=b"\x00garbage", headers=LEGACY_HEADERS))
            storm.append(
                http.post("/mcp", json={"jsonrpc": "2.0", "id": i}, headers=LEGACY_HEADERS)
            )
            storm.append(kept[i % len(kept)].post({"jsonrpc": "2.0", "id": 1000 + i, "result": {}}))
            storm.append(
                http.post(
                    "/mcp",
                    json={"jsonrpc": "2.0", "id": i, "method": "tools/list"},
                    headers={**LEGACY_HEADERS, "mcp-session-id": f"forged-{i}"},
                )
            )
        statuses = [r.status_code for r in await bound(asyncio.gather(*storm))]
        assert set(statuses) <= {400, 404, 202}

        async def vanish_modern(i: int) -> None:
            body = modern_body(
                5000 + i,
                "tools/call",
                {"name": "progress", "arguments": {"steps": 50}},
                progressToken=i,
            )
            async with http.stream("POST", "/mcp", json=body, headers=modern_headers(body)) as r:
                await anext(r.aiter_bytes())  # read a little, then hang up

        async def vanish_legacy(i: int) -> None:
            peer = kept[i % len(kept)]
            body = {
                "jsonrpc": "2.0",
                "id": 6000 + i,
                "method": "tools/call",
                "params": {
                    "name": "progress",
                    "arguments": {"steps": 50},
                    "_meta": {"progressToken": i},
                },
            }
            async with http.stream("POST", "/mcp", json=body, headers=peer.headers()) as r:
                await anext(r.aiter_bytes())

        async def vanish_get(i: int) -> None:
            peer = kept[i % len(kept)]
            async with http.stream(
                "GET", "/mcp", headers=peer.headers(accept="text/event-stream")
            ) as r:
                assert r.status_code == 200

        await bound(
            asyncio.gather(
                *(f(i) for i in range(8) for f in (vanish_modern, vanish_legacy, vanish_get))
            )
        )
        probe.release.set()
        await bound(app.wait_idle())
        assert app.task_count == 0
        # nothing else lingers either: uvicorn's request tasks ended with their responses
        lingering = [  # (the client's half-read httpx generators are finalized as tasks)
            t
            for t in asyncio.all_tasks()
            if type(t.get_coro()).__name__ != "async_generator_athrow"
        ]
        assert len(lingering) <= baseline, "\n".join(repr(t.get_coro()) for t in lingering)
        assert app.session_count == len(kept) + 1
        sessions = app.endpoint.sessions
        assert sessions is not None
        for peer in kept:
            state = await sessions.find(peer.session_id or "")
            assert state is not None
            assert not state.engine.inbound and not state.engine.outbound and not state.pipes
        for peer in kept:
            assert (await http.delete("/mcp", headers=peer.headers())).status_code == 200
        assert app.session_count == 1  # the warm-up session


async def test_shutdown_ends_sessions_and_streams() -> None:
    probe = Probe()
    app = _app(probe, sse_after=0.0)
    async with running(app) as url, httpx.AsyncClient(base_url=url) as http:
        peer = LegacyPeer(http)
        await peer.initialize()
        body = call_body(2, "hold")
        async with http.stream("POST", "/mcp", json=body, headers=peer.headers()):
            await bound(probe.hold_started.wait())
        assert app.session_count == 1
    # leaving `running` stopped uvicorn, which ran the app's shutdown
    assert app.session_count == 0 and app.task_count == 0
    assert probe.hold_cancelled.is_set()


async def test_shutdown_with_open_streams_is_bounded() -> None:
    """A listen stream and a legacy GET stream stay open forever; stopping the server must still
    finish (the harness bounds the stop), cancelling the listen handler and ending the session."""
    app = _app()
    opened = [asyncio.Event(), asyncio.Event()]
    http = httpx.AsyncClient(timeout=30)

    async def hold_open(which: int, method: str, url: str, **kwargs: Any) -> None:
        with contextlib.suppress(httpx.HTTPError):
            async with http.stream(method, url, **kwargs) as response:
                assert response.status_code == 200
                opened[which].set()
                async for _ in response.aiter_bytes():
                    pass  # until the server goes away

    try:
        async with running(app) as url:
            peer = LegacyPeer(httpx.AsyncClient(base_url=url))
            await peer.initialize()
            listen = modern_body(
                1, "subscriptions/listen", {"notifications": {"toolsListChanged": True}}
            )
            streams = [
                asyncio.create_task(
                    hold_open(0, "POST", f"{url}/mcp", json=listen, headers=modern_headers(listen))
                ),
                asyncio.create_task(
                    hold_open(
                        1, "GET", f"{url}/mcp", headers=peer.headers(accept="text/event-stream")
                    )
                ),
            ]
            await bound(asyncio.gather(*(event.wait() for event in opened)))
            await peer.http.aclose()
        # `running` returned: uvicorn stopped with both streams open
        assert app.task_count == 0 and app.session_count == 0
        await bound(asyncio.gather(*streams))
    finally:
        await http.aclose()

"""The web inspector's backend through its real serve path (``mcpkit dev``): safe by default,
and every panel's API against a real stdio server."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from mcpkit.cli.inspector._session import check_against_schema

from ._inspector import Inspector, run_inspector
from ._run import EXAMPLES

TOUR = str(EXAMPLES / "feature_tour.py")
HTTP_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def inspector() -> object:
    with run_inspector(TOUR, "--mode", "legacy") as running:
        yield running


def _api(inspector: Inspector) -> httpx.Client:
    return httpx.Client(
        base_url=inspector.base,
        headers={"X-Inspector-Token": inspector.token},
        timeout=HTTP_TIMEOUT,
    )


def _raw_get(port: int, head: str) -> int:
    """Send a hand-written request (httpx will not duplicate Host); the status code."""
    with socket.create_connection(("127.0.0.1", port), timeout=HTTP_TIMEOUT) as sock:
        sock.sendall(head.encode() + b"\r\n")
        reply = sock.recv(4096).decode("latin-1")
    return int(reply.split(" ", 2)[1])


def test_requests_without_the_token_are_refused(inspector: Inspector) -> None:
    with httpx.Client(base_url=inspector.base, timeout=HTTP_TIMEOUT) as plain:
        assert plain.get("/api/state").status_code == 403
        wrong = plain.get("/api/state", headers={"X-Inspector-Token": "guess"})
        assert wrong.status_code == 403
        assert "token" in wrong.json()["error"]
        assert plain.get("/").status_code == 403
        assert plain.post("/api/call", json={"name": "convert"}).status_code == 403
        page = plain.get("/", params={"token": inspector.token})
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_other_sites_and_rebinding_hosts_are_refused(inspector: Inspector) -> None:
    with _api(inspector) as api:
        assert api.get("/api/state", headers={"Origin": "http://evil.example"}).status_code == 403
        assert api.get("/api/state", headers={"Host": "evil.example"}).status_code == 421
        own = api.get("/api/state", headers={"Origin": inspector.base})
        assert own.status_code == 200
    token = inspector.token
    port = inspector.port
    twice = (
        f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: 127.0.0.1:{port}\r\n"
        f"X-Inspector-Token: {token}\r\nConnection: close\r\n"
    )
    assert _raw_get(port, twice) == 400


def test_it_is_connected_to_the_target_and_lists_everything(inspector: Inspector) -> None:
    with _api(inspector) as api:
        state = api.get("/api/state").json()
        lists = api.get("/api/lists").json()
    assert state["connected"] is True
    assert state["server"]["era"] == "legacy"
    assert state["server"]["serverInfo"]["name"] == "feature-tour"
    assert {t["name"] for t in lists["tools"]} >= {"convert", "checkout", "badge"}
    assert "orders://recent" in {r["uri"] for r in lists["resources"]}
    assert {p["name"] for p in lists["prompts"]} >= {"explain_order"}


def test_a_call_checks_structured_content_against_the_output_schema(
    inspector: Inspector,
) -> None:
    with _api(inspector) as api:
        answer = api.post(
            "/api/call", json={"name": "convert", "arguments": {"value": 212}, "callId": "a1"}
        ).json()
        bad = api.post(
            "/api/call", json={"name": "convert", "arguments": {"value": "hot"}, "callId": "a2"}
        ).json()
    assert answer["result"]["structuredContent"]["value"] == 100.0
    assert answer["outputCheck"] == {"ok": True, "errors": []}
    assert bad["result"]["isError"] is True
    assert bad["outputCheck"] is None


def test_output_check_names_the_field_that_violates_the_schema() -> None:
    schema = {"type": "object", "properties": {"price": {"type": "number"}}, "required": ["price"]}
    assert check_against_schema({"price": 3}, schema) == {"ok": True, "errors": []}
    checked = check_against_schema({"price": "cheap"}, schema)
    assert checked["ok"] is False
    assert checked["errors"][0].startswith("price: 'cheap' is not of type 'number'")


def test_bad_requests_get_clear_errors_and_the_inspector_keeps_serving(
    inspector: Inspector,
) -> None:
    with _api(inspector) as api:
        not_json = api.post("/api/call", content=b"{nope", headers={"content-type": "x"})
        assert not_json.status_code == 400
        assert "not JSON" in not_json.json()["error"]
        missing = api.post("/api/read", json={"uri": "orders://nope/items"})
        assert missing.status_code == 502
        assert "error" in missing.json()
        unknown = api.post("/api/answer", json={"id": "q999", "answer": {"action": "accept"}})
        assert unknown.status_code == 404
        route = api.get("/api/nothing")
        assert route.status_code == 404
        bad_target = api.post("/api/connect", json={"target": "/no/such/server.py"})
        assert bad_target.status_code in (400, 502)
        assert bad_target.json()["error"]
        again = api.post("/api/connect", json={"target": TOUR, "mode": "legacy"})
        assert again.status_code == 200, again.text
        assert api.get("/api/state").json()["connected"] is True


def test_the_wire_transcript_exports_as_json_lines(inspector: Inspector) -> None:
    with _api(inspector) as api:
        api.post("/api/call", json={"name": "convert", "arguments": {"value": 0}, "callId": "w1"})
        exported = api.get("/api/wire.jsonl")
    assert exported.status_code == 200
    assert "attachment" in exported.headers["content-disposition"]
    entries = [json.loads(line) for line in exported.text.splitlines()]
    sent = [e["msg"].get("method") for e in entries if e["dir"] == "out"]
    assert "initialize" in sent and "tools/call" in sent
    assert any(e["dir"] == "in" and "result" in e["msg"] for e in entries)


def test_a_port_in_use_is_one_clear_error(tmp_path: Path) -> None:
    from ._run import mcpkit

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        ran = mcpkit("dev", "--port", str(port))
    assert ran.code != 0
    assert f"cannot serve the inspector on 127.0.0.1:{port}" in ran.err


def test_the_page_assets_weigh_what_the_docs_say() -> None:
    import re
    from importlib.resources import files

    from ._run import ROOT

    doc = (ROOT / "docs" / "inspector.md").read_text(encoding="utf-8")
    stated = re.search(r"the page's\s+assets\s+weigh\s+(\d+)\s+KiB", doc)
    assert stated, "docs/inspector.md no longer states the assets' weight"
    static = files("mcpkit.cli.inspector").joinpath("static")
    total = sum(item.stat().st_size for item in Path(str(static)).iterdir())
    assert abs(total / 1024 - int(stated.group(1))) <= 2, f"assets weigh {total / 1024:.1f} KiB"


def test_the_shop_example_opens_a_working_page() -> None:
    """The README's promise: `mcpkit dev examples/shop_server.py` on a plain clone."""
    with run_inspector(str(EXAMPLES / "shop_server.py")) as running:
        with _api(running) as api:
            page = api.get("/", params={"token": running.token})
            tools = api.get("/api/lists").json()["tools"]
            found = api.post(
                "/api/call",
                json={"name": "search_products", "arguments": {"query": "跑步鞋"}, "callId": "s"},
            ).json()
        assert page.status_code == 200 and "<title>mcpkit inspector</title>" in page.text
        assert "search_products" in {t["name"] for t in tools}
        assert "Nike Air Max" in json.dumps(found, ensure_ascii=False)


def test_roots_are_editable_and_a_legacy_server_is_told(inspector: Inspector) -> None:
    with _api(inspector) as api:
        assert api.post("/api/connect", json={"target": TOUR, "mode": "legacy"}).status_code == 200
        refused = api.post("/api/roots", json={"roots": [{"uri": "https://example.com"}]})
        assert refused.status_code == 400 and "file://" in refused.json()["error"]
        saved = api.post("/api/roots", json={"roots": [{"uri": "file:///srv/data", "name": "d"}]})
        assert saved.status_code == 200
        state = api.get("/api/state").json()
        exported = api.get("/api/wire.jsonl").text
    assert state["roots"] == [{"uri": "file:///srv/data", "name": "d"}]
    sent = [json.loads(line)["msg"].get("method") for line in exported.splitlines()]
    assert "notifications/roots/list_changed" in sent


def test_servers_replay_and_checks_refuse_what_they_cannot_serve() -> None:
    """Issue #32's endpoints: a second server has its own session (and its own stderr), an
    unknown server is 404, a replay names what it cannot send, a check names the field."""
    from ._inspector_page import FIXTURE

    with run_inspector(FIXTURE) as running, _api(running) as api:
        added = api.post("/api/servers/add", json={}).json()
        assert added["id"] == "s2" and added["connected"] is False
        s2 = {"X-Inspector-Server": "s2"}
        failed = api.post(
            "/api/connect", headers=s2, json={"target": FIXTURE, "env": {"FAIL_TO_START": "1"}}
        )
        assert failed.status_code == 502
        assert "INSPECTOR_FIXTURE_KEY is not set" in failed.json()["error"]
        assert api.get("/api/state").json()["connected"] is True  # s1 untouched
        assert api.get("/api/state", headers=s2).json()["connected"] is False
        servers = api.get("/api/servers").json()["servers"]
        assert [s["id"] for s in servers] == ["s1", "s2"]
        unknown = api.get("/api/state", headers={"X-Inspector-Server": "s9"})
        assert unknown.status_code == 404

        refused = api.post("/api/replay", json={"method": "initialize", "params": {}})
        assert refused.status_code == 400 and "cannot be replayed" in refused.json()["error"]
        bad = api.post("/api/replay", json={"method": "tools/call", "params": {"arguments": {}}})
        assert bad.status_code == 400 and '"name"' in bad.json()["error"]
        check = api.post("/api/check", json={"name": "need", "arguments": {"label": "x"}}).json()
        assert check == {
            "ok": False,
            "errors": [{"path": "size", "message": "'size' is a required property"}],
        }

        assert api.post("/api/servers/remove", json={"id": "s1"}).status_code == 400
        assert api.post("/api/servers/remove", json={"id": "s2"}).json() == {"removed": "s2"}
        assert api.get("/api/state", headers=s2).status_code == 404

"""MCP Apps in a real browser (Debian's Chromium under Playwright), against real servers:

1. an app written with the official ``App`` class of ``@modelcontextprotocol/ext-apps``, served by
   an mcpkit server, runs in mcpkit's inspector (initialize, tool input and result, a server tool
   called from the app, resize), over stdio and HTTP;
2. an mcpkit-authored app (mcpkit's bridge: the 跑步鞋 product cards) runs in a host built on the
   official SDK's host side, its ``AppBridge``;
3. a FastMCP 4.2.3 app (``FastMCPApp``) renders in mcpkit's inspector;
4. a hostile app can reach neither the inspector's API nor its token, nor call a tool the spec
   forbids it, nor an origin it did not declare, nor navigate the top page.

The official SDK and FastMCP's apps are installed by ``scripts/install-peers`` (``$PEERS_DIR``).
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from _peers import PEERS_ROOT
from mcpkit.types import to_wire

from ._inspector import free_port, run_inspector, screenshot_dir
from ._inspector_page import browser, open_page
from ._process import wait_for_port
from ._run import EXAMPLES, ROOT

__all__ = ["browser"]  # the module's Chromium (a fixture)

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

FIXTURES: Final = Path(__file__).with_name("fixtures")
SHOP: Final = str(EXAMPLES / "shoe_shop_app.py")
EXT_APPS: Final = PEERS_ROOT / "ext-apps"
APP_JS: Final = EXT_APPS / "node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js"
BRIDGE_JS: Final = EXT_APPS / "app-bridge.bundle.js"
FASTMCP_APPS_PYTHON: Final = PEERS_ROOT / "fastmcp-apps-venv" / "bin" / "python"
UI_TIMEOUT_MS: Final = 30_000
STOP_TIMEOUT: Final = 30.0


def _peer(path: Path) -> Path:
    if path.exists():
        return path
    if os.environ.get("CI"):
        raise AssertionError(f"{path} is missing in CI: scripts/install-peers installs it")
    pytest.skip(f"{path} is missing: run scripts/install-peers")


def _call(page: Any, tool: str, value: str | None = None) -> Any:
    """Call ``tool`` from the Tools panel (its first field set to ``value``); the app's frame."""
    page.click("#tab-tools")
    page.locator("#tool-list button", has_text=re.compile(rf"^{tool}")).first.click()
    expect(page.locator("#tool-detail h2")).to_be_visible()
    if value is not None:
        page.locator("#tool-form input").first.fill(value)
    page.click("#call-tool")
    expect(page.locator("#tool-result .result")).to_be_visible()
    return page.frame_locator(".app-frame").frame_locator("iframe")


@contextlib.contextmanager
def _http_server(script: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    port = free_port()
    import subprocess

    process = subprocess.Popen(
        [sys.executable, str(script), *args, "--http", str(port)], cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(STOP_TIMEOUT)


# -- 1. the official App class in mcpkit's inspector -------------------------------------------


@pytest.mark.parametrize(("transport", "mode"), [("stdio", "2026-07-28"), ("http", "legacy")])
def test_an_app_built_with_the_official_app_class_runs_in_the_inspector(
    browser: Any, transport: str, mode: str
) -> None:
    app_js = str(_peer(APP_JS))
    script = FIXTURES / "official_app_server.py"
    with contextlib.ExitStack() as stack:
        env = {"EXT_APPS_APP_JS": app_js}
        if transport == "http":
            args = [stack.enter_context(_http_server(script, env=env))]
        else:
            args = [str(script), "-e", f"EXT_APPS_APP_JS={app_js}"]
        inspector = stack.enter_context(run_inspector(*args, "--mode", mode))
        page = open_page(browser, inspector.url, height=900)
        app = _call(page, "greet", "Ada")
        expect(app.locator("#state")).to_have_text(
            "connected to mcpkit-inspector", timeout=UI_TIMEOUT_MS
        )
        expect(app.locator("#input")).to_have_text('input {"name":"Ada"}')
        expect(app.locator("#result")).to_have_text("result hello Ada")
        expect(app.locator("#called")).to_have_text("called counter=2")  # an app-only tool
        # resized: the view grew by 400 px after the call, and the frame followed it
        expect(page.locator(".app-view")).to_have_attribute(
            "data-height", re.compile(r"^[4-9]\d\d$")
        )
        assert page.locator(".app-frame").evaluate("f => f.getBoundingClientRect().height") > 400
        expect(page.locator("#tool-result .result pre").first).to_have_text("hello Ada")
        page.click("#tab-wire")
        page.select_option("#wire-dir", "app")
        rows = page.locator("#wire-rows tr:visible")
        for method in ("ui/initialize", "ui/notifications/tool-input", "tools/call"):
            expect(rows.filter(has_text=method).first).to_be_visible()
        assert not page.errors, page.errors


# -- the example: product cards whose button calls a server tool ---------------------------------


def test_the_product_cards_add_to_cart_from_inside_the_app(browser: Any, tmp_path: Path) -> None:
    shots = screenshot_dir(tmp_path / "shots")
    with run_inspector(SHOP) as inspector:
        page = open_page(browser, inspector.url, height=900)
        app = _call(page, "search_products", "跑步鞋")
        expect(app.locator(".card h3")).to_have_text(
            ["Nike Air Max", "ASICS Gel-Kayano 30", "Adidas Ultraboost Light"],
            timeout=UI_TIMEOUT_MS,
        )
        expect(app.locator("#query")).to_have_text("Results for 跑步鞋")
        app.locator(".card", has_text="ASICS").locator("button").click()
        expect(app.locator("#status")).to_have_text(
            "Added 1 x ASICS Gel-Kayano 30; 1 item(s) in cart."
        )
        page.locator(".app-view").screenshot(path=str(shots / "app.png"))
        # the model's list marks the app-only tool; the cart really changed on the server
        expect(page.locator("#tool-list button", has_text="add_to_cart")).to_contain_text(
            "[app only]"
        )
        _call(page, "view_cart")
        expect(page.locator("#tool-result .result pre").first).to_contain_text("asics-gel-kayano")
        assert not page.errors, page.errors


# -- 2. mcpkit's bridge in the official SDK's host (AppBridge) -----------------------------------

HOST_PAGE: Final = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<iframe id="view" sandbox="allow-scripts" style="width:640px;height:40px;border:0"></iframe>
<script type="module">
import { AppBridge, PostMessageTransport } from "/bridge.js";
const iframe = document.getElementById("view");
const events = (window.hostEvents = []);
const ARGS = { query: "跑步鞋" };
const bridge = new AppBridge(null, { name: "official-sdk-host", version: "1.0.0" },
  { serverTools: {}, serverResources: {}, logging: {} },
  { hostContext: { theme: "light", displayMode: "inline", platform: "web" } });
bridge.oninitialized = async () => {
  events.push("initialized " + bridge.getAppVersion().name);
  bridge.sendToolInput({ arguments: ARGS });
  bridge.sendToolResult(await window.serverTool("search_products", ARGS));
};
bridge.oncalltool = async (params) => {
  events.push("call " + params.name);
  return await window.serverTool(params.name, params.arguments || {});
};
bridge.onsizechange = ({ height }) => {
  events.push("size " + height);
  if (height) iframe.style.height = height + "px";
};
await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
iframe.srcdoc = await window.viewHtml();
</script></body></html>"""


def test_an_mcpkit_app_runs_in_a_host_built_on_the_official_app_bridge(browser: Any) -> None:
    from mcpkit.client import SyncClient
    from mcpkit.client.apps import APPS_CLIENT_OPTIONS

    bundle = _peer(BRIDGE_JS).read_bytes()
    with SyncClient([sys.executable, SHOP], **APPS_CLIENT_OPTIONS) as client:
        view = client.read_resource("ui://shoe-shop/product-cards").contents[0].text
        calls: list[str] = []

        def server_tool(name: str, arguments: dict[str, Any]) -> Any:
            calls.append(name)
            return to_wire(client.call_tool(name, arguments))

        context = browser.new_context()
        context.set_default_timeout(UI_TIMEOUT_MS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.expose_function("serverTool", server_tool)
        page.expose_function("viewHtml", lambda: view)
        page.route(
            "http://host.test/", lambda r: r.fulfill(body=HOST_PAGE, content_type="text/html")
        )
        page.route(
            "http://host.test/bridge.js",
            lambda r: r.fulfill(body=bundle, content_type="text/javascript"),
        )
        page.goto("http://host.test/")
        app = page.frame_locator("#view")
        expect(app.locator("#query")).to_have_text(
            "Results for 跑步鞋", timeout=UI_TIMEOUT_MS
        )  # the tool input
        expect(app.locator(".card h3").first).to_have_text("Nike Air Max")  # the tool result
        app.locator(".card", has_text="Adidas").locator("button").click()
        expect(app.locator("#status")).to_have_text(
            "Added 1 x Adidas Ultraboost Light; 1 item(s) in cart."
        )
        events = page.evaluate("window.hostEvents")
        assert events[0] == "initialized product-cards"
        assert "call add_to_cart" in events
        heights = [int(e.split()[1]) for e in events if e.startswith("size ")]
        assert heights and max(heights) > 100, events  # the cards made the view grow
        assert page.locator("#view").evaluate("f => f.getBoundingClientRect().height") > 100
        assert calls == ["search_products", "add_to_cart"]
        assert not errors, errors
        context.close()


# -- 3. a FastMCP app in mcpkit's inspector -------------------------------------------------------


def test_a_fastmcp_app_renders_in_the_inspector(browser: Any) -> None:
    python = _peer(FASTMCP_APPS_PYTHON)
    target = f"{python} {FIXTURES / 'fastmcp_app_server.py'}"
    with run_inspector(target, "-e", "PREFAB_BUNDLED_RENDERER=1") as inspector:
        page = open_page(browser, inspector.url, height=900)
        app = _call(page, "show_greeting", "Ada")
        expect(app.get_by_text("Hello, Ada!")).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(page.locator(".app-view")).to_have_attribute("data-initialized", "true")
        assert not page.errors, page.errors


# -- 4. security ----------------------------------------------------------------------------------


class _Hits(list[str]):
    """The paths an origin was asked for, in order; a browser's request for a page it opens in
    a new tab arrives after the app has been told the tab was opened: :meth:`wait_for` it."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = threading.Condition()

    def record(self, path: str) -> None:
        with self._changed:
            self.append(path)
            self._changed.notify_all()

    def wait_for(self, count: int, timeout: float = UI_TIMEOUT_MS / 1000) -> list[str]:
        """The paths once ``count`` arrived (or what arrived within ``timeout``)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self) >= count, timeout)
            return list(self)


class _Recorder(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.hits.record(self.path)  # type: ignore[attr-defined]
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _recording_origin() -> Iterator[tuple[str, _Hits]]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.hits = _Hits()  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.hits  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def test_a_hostile_app_is_contained(browser: Any) -> None:
    port = free_port()
    inspector_origin = f"http://127.0.0.1:{port}"
    with (
        _recording_origin() as (declared, declared_hits),
        _recording_origin() as (undeclared, undeclared_hits),
        run_inspector(
            str(FIXTURES / "malicious_app_server.py"),
            "--port",
            str(port),
            "-e",
            f"ATTACK_INSPECTOR={inspector_origin}",
            "-e",
            f"ATTACK_DECLARED={declared}",
            "-e",
            f"ATTACK_UNDECLARED={undeclared}",
        ) as inspector,  # fmt: skip
    ):
        page = open_page(browser, inspector.url, height=900)
        popups: list[Any] = []
        page.context.on("page", lambda popup: popups.append(popup))
        app = _call(page, "open_view")
        report = app.locator("#report")
        expect(report).to_contain_text("done", timeout=UI_TIMEOUT_MS)
        text = report.text_content() or ""
        lines = text.splitlines()
        # no token, no page: cross-origin reads are denied, nothing is in the referrer or storage
        assert inspector.token not in text
        for name in ("parent-location", "top-location", "top-document"):
            assert f"{name} denied" in lines, text
        assert "referrer read (empty)" in lines, text
        # the API answers the app only with refusals (no token, an opaque Origin)
        api = [line for line in lines if line.startswith("api ")]
        assert len(api) == 2 and all(
            " status 403 " in line or line.endswith("failed") for line in api
        ), api
        # tools: one the spec forbids (model-only) and an unknown one are refused; allowed works
        assert any(line.startswith("tool secret refused") for line in lines), text
        assert any(line.startswith("tool no_such_tool refused") for line in lines), text
        assert "tool allowed fine" in lines, text
        # the policy: the declared origin is reached, the undeclared one never (fetch nor image)
        assert "declared reached" in lines and declared_hits == ["/declared"], text
        # nothing reached it: neither fetch, image nor form (form-action 'none')
        assert "undeclared failed" in lines and undeclared_hits == [], (text, undeclared_hits)
        assert any(line.startswith("csp-blocked " + undeclared) for line in lines), text
        # no popup, and the top page stays the inspector
        assert "popup blocked" in lines, text
        assert page.url.startswith(inspector_origin + "/")
        assert popups == []
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
    # the inspector's own API refuses an app call of a model-only tool, whatever the page sends
    assert undeclared_hits == []


def test_a_view_cannot_navigate_its_own_frame_to_an_undeclared_origin(browser: Any) -> None:
    """Exfiltration by URL: the proxy's ``frame-src`` forbids the navigation (Chromium shows
    its error page in the frame instead); the undeclared origin never sees the request."""
    with (
        _recording_origin() as (undeclared, hits),
        run_inspector(
            str(FIXTURES / "malicious_app_server.py"),
            "-e",
            "ATTACK_INSPECTOR=http://127.0.0.1:1",
            "-e",
            "ATTACK_DECLARED=http://127.0.0.1:2",
            "-e",
            f"ATTACK_UNDECLARED={undeclared}",
        ) as inspector,  # fmt: skip
    ):
        page = open_page(browser, inspector.url, height=900)
        with page.expect_event(
            "framenavigated", lambda frame: frame.url.startswith("chrome-error:")
        ):
            _call(page, "open_view", "navigate")
        assert hits == []
        assert page.url.startswith(inspector.base + "/")


def test_the_backend_refuses_an_app_call_the_spec_forbids(tmp_path: Path) -> None:
    import httpx

    port = free_port()
    with run_inspector(
        str(FIXTURES / "malicious_app_server.py"), "--port", str(port),
        "-e", "ATTACK_INSPECTOR=http://127.0.0.1:1", "-e", "ATTACK_DECLARED=http://127.0.0.1:2",
        "-e", "ATTACK_UNDECLARED=http://127.0.0.1:3",
    ) as inspector:  # fmt: skip
        headers = {"X-Inspector-Token": inspector.token}
        with httpx.Client(base_url=inspector.base, headers=headers, timeout=30) as http:
            secret = http.post("/api/app/call", json={"name": "secret", "arguments": {}})
            unknown = http.post("/api/app/call", json={"name": "nope", "arguments": {}})
            allowed = http.post("/api/app/call", json={"name": "allowed", "arguments": {}})
            no_token = httpx.post(f"{inspector.base}/api/app/call", json={"name": "allowed"})
            view = http.post("/api/app/view", json={"uri": "ui://evil/view"})
            not_ui = http.post("/api/app/view", json={"uri": "file:///etc/passwd"})
            state = http.get("/api/state").json()
        sandbox = state["sandboxPort"]
        assert isinstance(sandbox, int) and sandbox != port
        with httpx.Client(base_url=f"http://127.0.0.1:{sandbox}", timeout=30) as box:
            api = box.get("/api/state", headers={"X-Inspector-Token": inspector.token})
            page = box.get("/", params={"token": inspector.token})
            foreign = box.get("/sandbox", params={"host": "http://evil.example", "csp": "{}"})
            proxy = box.get(
                "/sandbox",
                params={
                    "host": inspector.base,
                    "csp": json.dumps({"connectDomains": ["*", "https://ok.example"]}),
                },
            )
        assert api.status_code == 404 and page.status_code == 404  # the sandbox origin has no API
        assert foreign.status_code == 403
        policy = proxy.headers["content-security-policy"]
        assert "connect-src https://ok.example;" in policy  # "*" was dropped, never loosening
        assert "form-action 'none'" in policy
        assert policy.endswith(f"frame-ancestors {inspector.base}")
    assert secret.status_code == 403 and "visibility leaves out apps" in secret.json()["error"]
    assert unknown.status_code == 403
    assert allowed.status_code == 200 and allowed.json()["content"][0]["text"] == "fine"
    assert no_token.status_code == 403
    assert view.status_code == 200 and view.json()["csp"] == {
        "connectDomains": ["http://127.0.0.1:1", "http://127.0.0.1:2"]
    }
    assert not_ui.status_code == 400


# -- the host's methods and notifications, one by one ---------------------------------------------


def test_the_inspector_implements_the_host_side_of_the_protocol(browser: Any) -> None:
    with (
        _recording_origin() as (link_origin, link_hits),
        run_inspector(
            str(FIXTURES / "host_features_server.py"), "-e", f"FEATURES_LINK={link_origin}/"
        ) as inspector,
    ):
        page = open_page(browser, inspector.url, height=900)
        answers = iter([True, False])  # open the first link asked for, refuse the second
        dialogs: list[str] = []

        def on_dialog(dialog: Any) -> None:
            dialogs.append(dialog.message)
            dialog.accept() if next(answers) else dialog.dismiss()

        page.on("dialog", on_dialog)
        log = _call(page, "show", "one").locator("#log")
        expect(log).to_contain_text("done", timeout=UI_TIMEOUT_MS)
        lines = (log.text_content() or "").splitlines()
        assert lines[:4] == [
            "context inline web show",
            'partial {"word":"one"}',
            'input {"word":"one"}',
            "result shown one",
        ], lines
        assert "message {}" in lines and "context {}" in lines, lines
        assert "resource info text" in lines and "mode inline" in lines, lines
        assert "link {}" in lines and link_hits.wait_for(1) == ["/opened"], (lines, link_hits)
        page.bring_to_front()  # the opened link's tab came to the front, as in a real browser
        assert dialogs and f"{link_origin}/opened" in dialogs[0]
        expect(page.locator(".app-messages li")).to_have_text(["user: hi from app"])
        expect(page.locator(".app-context")).to_contain_text('"cart": 3')
        page.emulate_media(color_scheme="dark")  # the host's context changed: the view is told
        expect(log).to_contain_text("theme dark")

        # calling again tears the first view down (it answers), the second link is refused
        page.click("#call-tool")
        log = page.frame_locator(".app-frame").frame_locator("iframe").locator("#log")
        # until the new view replaces it, the locator may still find the first view's log (which
        # says "done" too): wait for what only the second view writes
        expect(log).to_contain_text(
            "link refused Link opening denied by user", timeout=UI_TIMEOUT_MS
        )
        expect(log).to_contain_text("done", timeout=UI_TIMEOUT_MS)
        assert "theme dark" not in (log.text_content() or "")  # a fresh view, not the first
        assert link_hits == ["/opened"]

        # a call cancelled by the person: the view is told why
        app = _call_without_waiting(page, "slow", "two")
        expect(app.locator("#log")).to_contain_text('input {"word":"two"}', timeout=UI_TIMEOUT_MS)
        page.click("#cancel-tool")
        expect(app.locator("#log")).to_contain_text("cancelled the call was cancelled")

        page.click("#tab-logs")
        expect(page.locator("#log-lines li", has_text="app log line").first).to_be_visible()
        expect(page.locator("#log-lines li", has_text="torn down").first).to_be_visible()
        page.click("#tab-wire")
        page.select_option("#wire-dir", "app")
        rows = page.locator("#wire-rows tr:visible")
        expect(rows.filter(has_text="ui/resource-teardown").first).to_be_visible()
        expect(rows.filter(has_text="ui/notifications/tool-cancelled").first).to_be_visible()
        assert not page.errors, page.errors


def _call_without_waiting(page: Any, tool: str, value: str) -> Any:
    page.click("#tab-tools")
    page.locator("#tool-list button", has_text=re.compile(rf"^{tool}")).first.click()
    page.locator("#tool-form input").first.fill(value)
    page.click("#call-tool")
    return page.frame_locator(".app-frame").frame_locator("iframe")

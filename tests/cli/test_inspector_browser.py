"""The web inspector in a real browser: Debian's Chromium driven by Playwright, against the
feature tour over stdio and Streamable HTTP, in both eras — as a person would use it.

Each panel is saved as a screenshot (into ``$MCPKIT_SCREENSHOTS`` when set: that is how the
pictures in docs/inspector.md are made, see ``scripts/screenshots``).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from ._inspector import http_feature_tour, run_inspector, screenshot_dir
from ._inspector_page import browser, open_page
from ._run import EXAMPLES

__all__ = ["browser"]  # the module's Chromium (a fixture)

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

TOUR: Final = str(EXAMPLES / "feature_tour.py")
UI_TIMEOUT_MS: Final = 30_000
"""How long one expectation about the page may take (the machine is shared)."""
SCREENSHOT_CASE: Final = ("stdio", "2026-07-28")
"""The combination whose screenshots become the docs' pictures."""


@contextlib.contextmanager
def _target(transport: str) -> Iterator[str]:
    if transport == "http":
        with http_feature_tour() as url:
            yield url
    else:
        yield TOUR


def _tool(page: Any, name: str) -> None:
    page.click("#tab-tools")
    page.locator("#tool-list button", has_text=re.compile(rf"^{name}")).first.click()
    expect(page.locator("#tool-detail h2")).to_be_visible()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_person_explores_calls_answers_and_watches(
    browser: Any, transport: str, mode: str, tmp_path: Path
) -> None:
    keep = (transport, mode) == SCREENSHOT_CASE
    shots = screenshot_dir(tmp_path / "shots") if keep else tmp_path

    def shot(page: Any, name: str) -> None:
        page.screenshot(path=str(shots / f"{name}.png"), full_page=False)

    with _target(transport) as target, run_inspector(target, "--mode", mode) as inspector:
        page = open_page(browser, inspector.url, accept_downloads=True)
        expect(page.locator("#status")).to_have_text("connected")
        era = "legacy" if mode == "legacy" else "modern"
        expect(page.locator('[data-fact="era"]')).to_have_text(era)
        expect(page.locator('[data-fact="name"]')).to_have_text("feature-tour")
        expect(page.locator("#server-capabilities")).to_contain_text('"tools"')
        shot(page, "connect")

        # A tool form generated from the input schema; the result checked against the output schema.
        _tool(page, "convert")
        page.fill('#tool-form input[name="value"]', "212")
        page.select_option('#tool-form select[name="to"]', label="celsius")
        page.click("#call-tool")
        result = page.locator("#tool-result")
        expect(result.locator('[data-is-error="false"]')).to_be_visible()
        expect(result).to_contain_text('"value": 100')
        expect(result.locator('[data-output-check="ok"]')).to_be_visible()
        shot(page, "tools")

        # Content of every kind, and an error result marked as such.
        _tool(page, "badge")
        page.fill('#tool-form input[name="name"]', "Ada")
        page.click("#call-tool")
        expect(result).to_contain_text("Badge for Ada")
        expect(result.locator("img.content")).to_have_count(1)
        expect(result.locator(".embedded")).to_contain_text("Ada was here")
        expect(result.locator("a[data-uri='orders://recent']")).to_have_count(1)

        # Subscribe to a resource before the call that changes it.
        page.click("#tab-resources")
        page.locator("#resource-list button", has_text="orders://recent").click()
        expect(page.locator("#resource-body")).to_contain_text("[]")
        page.click("#subscribe")
        expect(page.locator("#subscribe")).to_have_text("Subscribed")
        shot(page, "resources")

        # A call that reports progress and asks two questions: a form and a sampling request.
        _tool(page, "checkout")
        items = page.locator('#tool-form [data-field="items"]')
        items.get_by_role("button", name="add item").click()
        items.locator('input[name="sku"]').fill("tea")
        items.locator('input[name="quantity"]').fill("2")
        page.click("#call-tool")
        form = page.locator('form.question[data-kind="elicitation"]')
        expect(form).to_contain_text("Confirm 1 item(s), standard shipping")
        expect(form.locator('input[type="checkbox"]')).to_be_checked()  # the schema's default
        shot(page, "questions")
        form.get_by_role("button", name="Accept").click()
        sampling = page.locator('form.question[data-kind="sampling"]')
        expect(sampling).to_contain_text("thank-you note")
        sampling.locator("textarea").fill("Thanks for shopping!")
        sampling.get_by_role("button", name="Send reply").click()
        expect(page.locator("#question-list form")).to_have_count(0)
        page.click("#tab-tools")
        expect(result).to_contain_text("order-1 placed. Thanks for shopping!")
        expect(page.locator("#tool-progress-text")).to_have_text(re.compile(r"^3/3"))

        # The update arrives on the subscription; the template reads the new order.
        page.click("#tab-resources")
        expect(page.locator("#updates")).to_contain_text("orders://recent")
        page.locator("#template-list button", has_text="orders://").click()
        page.fill('#template-form input[name="order_id"]', "order-1")
        page.click("#template-form button[type=submit]")
        expect(page.locator("#resource-body")).to_contain_text("tea")

        # Prompts: completion suggestions while typing, then the rendered messages.
        page.click("#tab-prompts")
        page.locator("#prompt-list button", has_text="explain_order").click()
        page.fill("#arg-order_id", "order-1")
        page.fill("#arg-tone", "f")
        expect(page.locator("#arg-tone")).to_have_attribute("data-suggestions", "friendly|formal")
        page.fill("#arg-tone", "formal")
        page.click("#prompt-form button[type=submit]")
        expect(page.locator("#prompt-result .message").first).to_contain_text("order-1")
        shot(page, "prompts")

        # The server's log message, and the wire view filtered by method and direction.
        page.click("#tab-logs")
        expect(page.locator("#log-lines")).to_contain_text("placed order-1")
        shot(page, "logs")
        page.click("#tab-wire")
        page.fill("#wire-method", "notifications/progress")
        visible = page.locator("#wire-rows tr:visible")
        expect(visible.first).to_be_visible()
        assert all(
            m == "notifications/progress"
            for m in visible.evaluate_all("rows => rows.map(r => r.dataset.method)")
        )
        page.fill("#wire-method", "tools/call")
        page.select_option("#wire-dir", "out")
        expect(visible.first).to_contain_text("tools/call")
        assert set(visible.evaluate_all("rows => rows.map(r => r.dataset.dir)")) == {"out"}
        shot(page, "wire")
        with page.expect_download() as download_info:
            page.click("#wire-export")
        lines = Path(download_info.value.path()).read_text().splitlines()
        assert any(json.loads(line)["msg"].get("method") == "tools/call" for line in lines)
        assert page.errors == []


def test_keyboard_only(browser: Any) -> None:
    """Tabs by arrow keys, a tool chosen and called with Enter: no mouse."""
    with run_inspector(TOUR) as inspector:
        page = open_page(browser, inspector.url, accept_downloads=True)
        expect(page.locator("#status")).to_have_text("connected")
        page.keyboard.press("Tab")
        expect(page.locator("#tab-connect")).to_be_focused()
        page.keyboard.press("ArrowRight")
        expect(page.locator("#tab-tools")).to_be_focused()
        expect(page.locator("#panel-tools")).to_be_visible()
        page.keyboard.press("Tab")
        expect(page.locator("#tool-list button").first).to_be_focused()
        focused = page.evaluate("document.activeElement.textContent")
        while not focused.startswith("convert"):
            page.keyboard.press("Tab")
            focused = page.evaluate("document.activeElement.textContent")
        page.keyboard.press("Enter")
        expect(page.locator('#tool-form input[name="value"]')).to_be_focused()
        page.keyboard.type("100")
        page.keyboard.press("Enter")
        expect(page.locator("#tool-result")).to_contain_text('"value": 37.78')
        assert page.errors == []


def test_the_page_is_refused_without_its_token(browser: Any) -> None:
    with run_inspector(TOUR) as inspector:
        context = browser.new_context()
        page = context.new_page()
        response = page.goto(inspector.base + "/")
        assert response is not None and response.status == 403
        assert "token" in page.content()
        api = page.evaluate("async () => (await fetch('/api/state')).status")
        assert api == 403
        context.close()


EVERYTHING: Final = "tests/conformance/everything_server.py:server"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_tasks_are_listed_with_status_result_and_cancel(browser: Any, mode: str) -> None:
    """2025-11-25 core tasks (legacy) and the 2026 Tasks extension, from the same page."""
    with run_inspector(EVERYTHING, "--mode", mode) as inspector:
        page = open_page(browser, inspector.url, accept_downloads=True)
        expect(page.locator("#status")).to_have_text("connected")
        _tool(page, "slow_compute")
        page.fill('#tool-form input[name="seconds"]', "600")
        page.fill('#tool-form input[name="label"]', "long")
        page.check("#as-task")
        page.click("#call-tool")
        expect(page.locator("#tool-result")).to_contain_text("started task")
        _tool(page, "slow_compute")
        page.fill('#tool-form input[name="seconds"]', "0.1")
        page.fill('#tool-form input[name="label"]', "quick")
        page.check("#as-task")
        page.click("#call-tool")
        page.click("#tab-tasks")
        rows = page.locator("#task-rows tr")
        expect(rows).to_have_count(2)
        done = page.locator('#task-rows tr[data-status="completed"]')
        expect(done).to_have_count(1)
        done.get_by_role("button", name="Result").click()
        expect(page.locator("#task-result")).to_contain_text("Computed quick after 0.1s")
        working = page.locator('#task-rows tr[data-status="working"]')
        expect(working).to_have_count(1)
        working.get_by_role("button", name="Cancel").click()
        expect(page.locator('#task-rows tr[data-status="cancelled"]')).to_have_count(1)

        # A plain call (not a task) cancelled from the page: the server is told, the page says so.
        _tool(page, "slow_compute")
        page.fill('#tool-form input[name="seconds"]', "600")
        page.click("#call-tool")
        expect(page.locator("#cancel-tool")).to_be_enabled()
        page.click("#cancel-tool")
        expect(page.locator("#tool-result")).to_contain_text("the call was cancelled")
        expect(page.locator("#call-tool")).to_be_enabled()
        page.click("#tab-wire")
        page.fill("#wire-method", "notifications/cancelled")
        if mode == "legacy":  # 2026 over stdio cancels the same way; HTTP closes the stream
            expect(page.locator("#wire-rows tr:visible").first).to_be_visible()
        assert page.errors == []


def test_oauth_sign_in_from_the_page(browser: Any) -> None:
    """A protected server: the page shows the sign-in link, the person follows it, the
    authorization server redirects back to the inspector's loopback listener, and the
    connection carries the token (the tool sees the identity)."""
    import subprocess
    import sys

    from ._inspector import ALLOW_LOOPBACK, EXIT_TIMEOUT
    from ._run import ROOT

    stack = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "cli" / "fixtures" / "protected_server.py")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert stack.stdout is not None
        mcp_url = stack.stdout.readline().strip()
        assert mcp_url.startswith("http://127.0.0.1:"), mcp_url
        with run_inspector(env=ALLOW_LOOPBACK) as inspector:
            page = open_page(browser, inspector.url, accept_downloads=True)
            page.fill("#target", mcp_url)
            page.locator("details summary").click()
            page.check("#oauth")
            page.click("#connect")
            link = page.locator("#oauth-url")
            # discovery, registration and the authorization request come first: allow for load
            expect(link).to_be_visible(timeout=2 * UI_TIMEOUT_MS)
            with page.context.expect_page() as sign_in:
                link.click()
            expect(sign_in.value.locator("body")).to_contain_text("close this window")
            expect(page.locator("#status")).to_have_text("connected")
            _tool(page, "whoami")
            page.click("#call-tool")
            expect(page.locator("#tool-result")).to_contain_text("signed in as")
            expect(page.locator("#tool-result")).to_contain_text("mcp:read")
            assert page.errors == []
    finally:
        stack.terminate()
        stack.wait(EXIT_TIMEOUT)

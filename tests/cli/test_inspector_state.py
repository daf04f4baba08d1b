"""The inspector's state handling, in a real browser (Debian's Chromium under Playwright), against
``mcpkit dev`` as people start it: what survives a reconnect, a reload, a second page; what a
server that fails to start says; forms for optional arguments; long lists (issue #32).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from ._inspector import EXIT_TIMEOUT, run_inspector
from ._inspector_page import FIXTURE, FIXTURE_TOOLS, browser, choose_tool, expect, open_page
from ._run import ROOT

__all__ = ["browser"]  # the module's Chromium (a fixture)


def _tool_buttons(page: Any) -> Any:
    return page.locator("#tool-list li button")


def test_connect_from_the_page_keeps_the_environment_it_was_started_with(browser: Any) -> None:
    """Defect 1 (stdio): ``-e`` still reaches the server after a Connect from the page."""
    with run_inspector(FIXTURE, "-e", "EXTRA_TOOLS=3") as inspector:
        page = open_page(browser, inspector.url)
        expect(_tool_buttons(page)).to_have_count(FIXTURE_TOOLS + 3)
        expect(page.locator("#env")).to_have_value("EXTRA_TOOLS=3")
        page.click("#connect")
        expect(page.locator("#wire-rows tr.connection-start")).to_have_count(2)
        expect(page.locator("#status")).to_have_text("connected")
        expect(_tool_buttons(page)).to_have_count(FIXTURE_TOOLS + 3)
        assert page.errors == []


@contextlib.contextmanager
def _guarded_server() -> Iterator[str]:
    """tests/cli/fixtures/guarded_server.py: answers only with its bearer token and team header."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "cli" / "fixtures" / "guarded_server.py")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        process.terminate()
        process.wait(EXIT_TIMEOUT)


def test_connect_from_the_page_keeps_headers_bearer_and_era(browser: Any) -> None:
    """Defect 1 (HTTP): ``--header``, ``--bearer`` and ``--mode`` fill the Connect form, and the
    server that refuses requests without them answers the page's Connect."""
    with (
        _guarded_server() as url,
        run_inspector(url, "--header", "X-Team: blue", "--bearer", "s3cret-token",
                      "--mode", "legacy") as inspector,
    ):  # fmt: skip
        page = open_page(browser, inspector.url)
        expect(page.locator("#status")).to_have_text("connected")
        expect(page.locator("#headers")).to_have_value("X-Team: blue")
        expect(page.locator("#bearer")).to_have_value("s3cret-token")
        expect(page.locator("#mode")).to_have_value("legacy")
        expect(page.locator("#target")).to_have_value(url)
        page.click("#connect")
        expect(page.locator("#wire-rows tr.connection-start")).to_have_count(2)
        expect(page.locator("#status")).to_have_text("connected")
        expect(page.locator('[data-fact="era"]')).to_have_text("legacy")
        choose_tool(page, "ping")
        page.click("#call-tool")
        expect(page.locator("#tool-result")).to_contain_text("pong")
        assert page.errors == []


def test_a_page_opened_later_shows_the_state_now(browser: Any) -> None:
    """Defect 2: a second page (or a reload) after a reconnect and an open question that left
    the replay window long ago shows "connected" and the question, and can answer it."""
    with run_inspector(FIXTURE) as inspector:
        first = open_page(browser, inspector.url)
        first.click("#connect")  # a "disconnected" event, then the new connection's events
        expect(first.locator("#wire-rows tr.connection-start")).to_have_count(2)
        expect(first.locator("#status")).to_have_text("connected")
        choose_tool(first, "chatty_question")
        first.fill('#tool-form input[name="lines"]', "1100")  # 2 events a line: > 2,000 events
        first.click("#call-tool")
        expect(first.locator("form.question")).to_contain_text("Say a word")

        second = open_page(browser, inspector.url)
        # the replayed history is on the page (the wire's last rows) before the status is read
        expect(second.locator("#log-lines li").last).to_contain_text("chatter 1099")
        expect(second.locator("#status")).to_have_text("connected")
        question = second.locator("form.question")
        expect(question).to_contain_text("Say a word")
        expect(second.locator("#question-count")).to_have_text("1")
        question.locator('input[name="word"]').fill("kettle")
        question.get_by_role("button", name="Accept").click()
        expect(first.locator("#tool-result")).to_contain_text("the word is kettle")
        expect(second.locator("form.question")).to_have_count(0)
        assert first.errors == [] and second.errors == []


def test_edit_as_json_sends_even_with_the_form_s_required_fields_empty(browser: Any) -> None:
    """Defect 3: the hidden form's empty required inputs no longer block the Call."""
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url)
        choose_tool(page, "need")
        page.fill('#tool-form input[name="label"]', "half")
        page.get_by_role("button", name="edit as JSON").click()
        raw = page.locator("#tool-form textarea.raw")
        expect(raw).to_be_visible()
        assert '"label": "half"' in raw.input_value()  # what the form held so far
        raw.fill('{"label": "box", "size": 2}')
        page.click("#call-tool")
        expect(page.locator("#tool-result")).to_contain_text("box:2")
        # and back: the form shows the JSON's values
        page.get_by_role("button", name="edit as form").click()
        expect(page.locator('#tool-form input[name="size"]')).to_have_value("2")
        assert page.errors == []


def test_a_reload_keeps_the_page_working(browser: Any) -> None:
    """Defect 4: F5 finds the token in the tab's sessionStorage; another tab without it does
    not."""
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url)
        assert "token" not in page.url
        page.reload()
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#status")).to_have_text("connected")
        assert "token" not in page.url
        choose_tool(page, "need")
        assert page.errors == []
        stranger = page.context.browser.new_context().new_page()
        response = stranger.goto(inspector.base + "/")
        assert response is not None and response.status == 403
        expect(stranger.locator("#refused")).to_contain_text("token")
        stranger.context.close()


def test_a_server_that_fails_to_start_says_why_in_the_page(browser: Any) -> None:
    """Defect 5: the server's stderr is in the error and in the console; the old server's
    lists leave the screen (defect 7)."""
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url)
        expect(_tool_buttons(page)).to_have_count(FIXTURE_TOOLS)
        page.locator("#connect-options summary").click()
        page.fill("#env", "FAIL_TO_START=1")
        page.click("#connect")
        error = page.locator("#connect-error")
        expect(error).to_contain_text("INSPECTOR_FIXTURE_KEY is not set")
        expect(page.locator("#status")).to_have_text("not connected")
        page.click("#tab-console")
        expect(page.locator('#console-lines li[data-kind="stderr"]').first).to_contain_text(
            "INSPECTOR_FIXTURE_KEY is not set"
        )
        page.fill("#console-filter", "connecting")
        expect(page.locator("#console-lines li:visible")).to_have_count(2)
        page.click("#tab-tools")
        expect(_tool_buttons(page)).to_have_count(0)
        expect(page.locator("#tool-list")).to_contain_text("No tools.")
        assert page.errors == []


def test_optional_arguments_are_ordinary_inputs_with_a_null_box(browser: Any) -> None:
    """Defect 6: ``str | None = None`` is a text input; empty leaves it out, "null" sends
    null."""
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url)
        choose_tool(page, "greet")
        name = page.locator('#tool-form input[name="name"]')
        expect(name).to_have_attribute("type", "text")
        expect(name).to_have_value("")
        page.fill('#tool-form input[name="count"]', "3")
        name.fill("Ada")
        page.click("#call-tool")
        result = page.locator("#tool-result")
        expect(result).to_contain_text("hello name='Ada' count=3")
        page.get_by_label("send null for count").check()
        expect(page.locator('#tool-form input[name="count"]')).to_be_disabled()
        name.fill("")
        page.click("#call-tool")
        expect(result).to_contain_text("hello name=None count=None")
        page.click("#tab-wire")
        page.fill("#wire-method", "tools/call")
        page.select_option("#wire-dir", "out")
        expect(page.locator("#wire-rows tr:visible").last).to_contain_text(
            '"arguments":{"count":null}'
        )
        assert page.errors == []


def test_long_lists_search_selection_log_level_questions_and_links(browser: Any) -> None:
    """Defect 7 and search: 1,000 tools filter as one types; choosing one far down keeps the
    page where it is; the log level shown is the one in force; answering the last question
    returns to the panel; a resource link opens the resource."""
    with run_inspector(FIXTURE, "-e", "EXTRA_TOOLS=1000") as inspector:
        page = open_page(browser, inspector.url, height=700)
        expect(page.locator("#log-level")).to_have_value("debug")
        page.click("#tab-tools")
        expect(page.locator("#tool-count")).to_have_text(f"{FIXTURE_TOOLS + 1000} tools")

        far = page.locator("#tool-list button", has_text="tool_0600")
        far.scroll_into_view_if_needed()
        before = page.evaluate("window.scrollY")
        assert before > 0
        far.click()
        expect(page.locator("#tool-detail h2")).to_have_text("tool_0600")
        assert page.evaluate("window.scrollY") == before
        expect(page.locator("#tool-detail h2")).to_be_in_viewport()

        page.locator("#tool-detail h2").click()  # out of the form's inputs
        page.keyboard.press("/")
        expect(page.locator("#tool-filter")).to_be_focused()
        page.keyboard.type("tool_06")
        expect(page.locator("#tool-count")).to_have_text(f"100 of {FIXTURE_TOOLS + 1000} tools")
        page.fill("#tool-filter", "numbered 999")
        expect(page.locator("#tool-list li:visible")).to_have_count(1)
        page.fill("#tool-filter", "")

        choose_tool(page, "chatty_question")
        page.click("#call-tool")
        question = page.locator("form.question")
        expect(page.locator("#panel-questions")).to_be_visible()
        question.locator('input[name="word"]').fill("back")
        question.get_by_role("button", name="Accept").click()
        expect(page.locator("#panel-tools")).to_be_visible()
        expect(page.locator("#tool-result")).to_contain_text("the word is back")

        choose_tool(page, "link")
        page.click("#call-tool")
        page.locator("#tool-result a[data-uri='fixture://note']").click()
        expect(page.locator("#panel-resources")).to_be_visible()
        expect(page.locator("#resource-body")).to_contain_text("the note's text")

        page.click("#tab-logs")
        page.select_option("#log-level", "error")
        page.click("#set-log-level")
        expect(page.locator("#log-lines")).to_contain_text("log level set to error")
        page.reload()
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#log-level")).to_have_value("error")
        assert page.errors == []

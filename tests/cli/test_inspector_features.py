"""The inspector features people expect from the official one (issue #32), in a real browser
against ``mcpkit dev``: the protocol view's latency, replay and edit-and-replay; arguments
checked against the schema before sending; the connection panel; the dark theme."""

from __future__ import annotations

import re
from typing import Any

from ._inspector import run_inspector
from ._inspector_page import FIXTURE, FIXTURE_TOOLS, browser, choose_tool, expect, open_page

__all__ = ["browser"]  # the module's Chromium (a fixture)


def test_the_wire_shows_latency_and_replays_a_request_as_is_or_edited(browser: Any) -> None:
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url)
        choose_tool(page, "greet")
        page.fill('#tool-form input[name="name"]', "Ada")
        page.click("#call-tool")
        expect(page.locator("#tool-result")).to_contain_text("name='Ada'")

        page.click("#tab-wire")
        page.fill("#wire-method", "tools/call")
        page.select_option("#wire-dir", "out")
        request = page.locator("#wire-rows tr:visible").last
        expect(request.locator("td.took")).to_have_text(re.compile(r"^\d+ ms$"))

        request.get_by_role("button", name="replay").click()
        answer = page.locator("#replay-result")
        expect(answer.locator("pre")).to_contain_text("name='Ada'")
        expect(answer).to_contain_text(re.compile(r"answered in \d+ ms"))

        request.get_by_role("button", name="edit").click()
        params = page.locator("#replay-params")
        assert '"name": "Ada"' in params.input_value()
        assert "_meta" not in params.input_value()
        params.fill('{"name": "greet", "arguments": {"name": "Bob", "count": 2}}')
        page.click("#replay-send")
        expect(answer.locator("pre")).to_contain_text("hello name='Bob' count=2")
        # the replays went over the wire like any request, each with its latency
        expect(page.locator("#wire-rows tr:visible")).to_have_count(3)
        expect(page.locator("#wire-rows tr:visible").last).to_contain_text('"Bob"')

        request.get_by_role("button", name="edit").click()
        params.fill('{"name": "greet", "arguments": {"name": 5}}')
        page.click("#replay-send")
        expect(answer.locator("pre")).to_contain_text('"isError": true')  # the server refused
        assert page.errors == []


def test_arguments_are_checked_against_the_schema_before_sending(browser: Any) -> None:
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url)
        choose_tool(page, "pairs")
        page.fill('#tool-form input[name="count"]', "3")
        page.click("#call-tool")
        error = page.locator('#tool-form [data-field="count"] .field-error')
        expect(error).to_contain_text("count: 3 is not a multiple of 2")
        expect(page.locator('#tool-result [data-check="failed"]')).to_be_visible()
        page.click("#tab-wire")
        page.fill("#wire-method", "tools/call")
        expect(page.locator("#wire-rows tr:visible")).to_have_count(0)  # nothing was sent

        choose_tool(page, "pairs")
        page.fill('#tool-form input[name="count"]', "4")
        page.click("#call-tool")
        expect(page.locator("#tool-result")).to_contain_text("2 pairs")
        expect(page.locator("#tool-form .field-error")).to_have_count(0)

        # the JSON mode sends as typed: a server's own refusal can be tried too
        page.get_by_role("button", name="edit as JSON").click()
        page.locator("#tool-form textarea.raw").fill('{"count": 3}')
        page.click("#call-tool")
        expect(page.locator("#tool-result")).to_contain_text("count")
        expect(page.locator('#tool-result [data-check="failed"]')).to_have_count(0)
        assert page.errors == []


def test_the_connection_panel_says_what_was_negotiated_and_sent(browser: Any) -> None:
    from .test_inspector_state import _guarded_server

    with (
        _guarded_server() as url,
        run_inspector(url, "--header", "X-Team: blue", "--bearer", "s3cret-token",
                      "--mode", "legacy") as inspector,
    ):  # fmt: skip
        page = open_page(browser, inspector.url)
        facts = page.locator("#server-facts")
        expect(page.locator('[data-fact="transport"]')).to_have_text("Streamable HTTP")
        expect(page.locator('[data-fact="era"]')).to_have_text("legacy")
        expect(page.locator('[data-fact="session id"]')).to_have_text(re.compile(r"\S{8,}"))
        headers = page.locator('[data-fact="headers sent"]')
        expect(headers).to_contain_text("X-Team: blue")
        expect(headers).to_contain_text("Authorization: Bearer •••")
        expect(facts).not_to_contain_text("s3cret-token")
        expect(page.locator('[data-fact="log level"]')).to_have_text("debug")
        expect(page.locator("#client-capabilities")).to_contain_text('"elicitation"')
        assert page.errors == []


def test_a_dark_theme_chosen_or_from_the_system(browser: Any) -> None:
    with run_inspector(FIXTURE) as inspector:
        page = open_page(browser, inspector.url, color_scheme="light")
        root = page.locator("html")
        expect(root).to_have_attribute("data-theme", "light")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.select_option("#theme", "dark")
        expect(root).to_have_attribute("data-theme", "dark")
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark != background
        page.reload()  # the choice is remembered
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(root).to_have_attribute("data-theme", "dark")
        page.select_option("#theme", "auto")
        expect(root).to_have_attribute("data-theme", "light")
        page.emulate_media(color_scheme="dark")
        expect(root).to_have_attribute("data-theme", "dark")
        assert page.errors == []


def test_several_servers_in_one_page(browser: Any) -> None:
    """A second server added from the page: its own connection, lists, wire and console; the
    first one keeps its own, and a question on the server out of view is announced."""
    with run_inspector(FIXTURE, "-e", "EXTRA_TOOLS=2") as inspector:
        page = open_page(browser, inspector.url)
        tools = page.locator("#tool-list li button")
        expect(tools).to_have_count(FIXTURE_TOOLS + 2)
        page.click("#add-server")
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#server-select")).to_have_value("s2")
        expect(page.locator("#status")).to_have_text("not connected")
        expect(page.locator("#wire-rows tr")).to_have_count(0)  # s1's traffic is not shown
        page.fill("#target", FIXTURE)
        page.click("#connect")
        expect(page.locator("#status")).to_have_text("connected")
        expect(tools).to_have_count(FIXTURE_TOOLS)
        choose_tool(page, "chatty_question")
        page.click("#call-tool")
        expect(page.locator("form.question")).to_contain_text("Say a word")

        page.select_option("#server-select", "s1")
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#server-select")).to_have_value("s1")
        expect(page.locator("#status")).to_have_text("connected")
        expect(tools).to_have_count(FIXTURE_TOOLS + 2)
        expect(page.locator("form.question")).to_have_count(0)
        expect(page.locator("#other-questions")).to_contain_text("s2")
        expect(page.locator("#server-select option[value=s2]")).to_contain_text("1 question")

        page.select_option("#server-select", "s2")
        expect(page.locator("#server-select")).to_have_value("s2")
        question = page.locator("form.question")
        question.locator('input[name="word"]').fill("two")
        question.get_by_role("button", name="Accept").click()
        expect(page.locator("#question-list form")).to_have_count(0)
        page.select_option("#server-select", "s1")
        expect(page.locator("#server-select")).to_have_value("s1")
        expect(page.locator("#other-questions")).to_be_hidden()
        assert page.errors == []

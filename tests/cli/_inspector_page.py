"""The browser side of the inspector tests: one Chromium per test module, a page opened on the
inspector's URL and ready, a tool chosen from the list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

import pytest

from ._inspector import chromium_path
from ._run import ROOT

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

FIXTURE: Final = str(ROOT / "tests" / "cli" / "fixtures" / "inspector_server.py")
FIXTURE_TOOLS: Final = 5
"""tests/cli/fixtures/inspector_server.py's own tools, before ``EXTRA_TOOLS``."""
UI_TIMEOUT_MS: Final = 30_000
"""How long one expectation about the page may take (the machine is shared)."""
expect.set_options(timeout=UI_TIMEOUT_MS)
# ``context.set_default_timeout`` bounds actions (click, fill) only; ``expect`` keeps its own
# 5-second default, which a call through a peer's app server exceeded at load average 10.


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, launched once for the module that imports this fixture."""
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser: Any, url: str, height: int = 860, **options: Any) -> Any:
    """A new context and page on ``url``; ``page.errors`` collects the page's script errors."""
    context = browser.new_context(viewport={"width": 1280, "height": height}, **options)
    context.set_default_timeout(UI_TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return page


def choose_tool(page: Any, name: str) -> None:
    page.click("#tab-tools")
    page.locator("#tool-list button", has_text=re.compile(rf"^{name}")).first.click()
    expect(page.locator("#tool-detail h2")).to_have_text(name)


__all__ = ["FIXTURE", "FIXTURE_TOOLS", "browser", "choose_tool", "expect", "open_page"]

"""Every name the user pages send readers to is on ``docs/api.md`` (the public surface).

A page that says ``from mcpkit.x import Y``, or points at ```mcpkit.x.Y``` in prose, sends the
reader to ``Y``; if ``docs/api.md`` does not list it (under the section of ``mcpkit.x``), the
reader relies on a name that may change without notice — or on a private module. The
contributor pages (``architecture.md``, ``performance.md``, ``contributing.md``) describe the
inside on purpose and are not checked. Dotted names that are not Python objects (metric and
span attribute names such as ``mcpkit.server.active_requests``) are not names to import.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Final

import pytest

from test_public_api import _documented

from ._blocks import PYTHON_LANGUAGES, SHELL_LANGUAGES, parse_blocks, shell_commands

ROOT: Final = Path(__file__).resolve().parents[2]
INSIDE_PAGES: Final = frozenset({"api.md", "architecture.md", "performance.md", "contributing.md"})
USER_PAGES: Final = [
    ROOT / "README.md",
    *(p for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in INSIDE_PAGES),
]
_PROSE_NAME: Final = re.compile(r"`(mcpkit(?:\.[A-Za-z_]\w*)+)(?:\(|`)")


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module or an attribute reachable from one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(value, attr):
                return False
            value = getattr(value, attr)
        return True
    return False


def _listed(module: str, name: str | None, documented: dict[str, dict[str, str | None]]) -> bool:
    if name is None:
        return module in documented
    return name in documented.get(module, {}) or f"{module}.{name}" in documented


def _prose_listed(dotted: str, documented: dict[str, dict[str, str | None]]) -> bool:
    """``mcpkit.a`` (a section), ``mcpkit.a.Name`` or ``mcpkit.a.Name.method``."""
    if dotted in documented:
        return True
    parts = dotted.split(".")
    return any(
        ".".join(parts[:cut]) in documented and parts[cut] in documented[".".join(parts[:cut])]
        for cut in range(1, len(parts))
    )


def _references(page: Path) -> list[tuple[int, str, str | None]]:
    """``(line, module, name)`` for imports; ``(line, dotted, None)`` for prose names."""
    text = page.read_text(encoding="utf-8")
    found: list[tuple[int, str, str | None]] = []
    for block in parse_blocks(page.relative_to(ROOT), text):
        if block.language not in PYTHON_LANGUAGES:
            continue
        for node in ast.walk(ast.parse(block.text)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mcpkit"):
                assert node.module is not None
                found += [(block.line + node.lineno, node.module, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                found += [(block.line + node.lineno, a.name, None) for a in node.names
                          if a.name.startswith("mcpkit")]  # fmt: skip
    for match in _PROSE_NAME.finditer(text):
        found.append((text.count("\n", 0, match.start()) + 1, match.group(1), None))
    return found


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.name)
def test_every_name_a_page_points_to_is_on_the_api_page(page: Path) -> None:
    documented = _documented()
    where = page.relative_to(ROOT)
    missing: list[str] = []
    for line, module, name in _references(page):
        if name is not None:
            if not _listed(module, name, documented):
                missing.append(f"{where}:{line}: from {module} import {name}")
        elif _resolves(module) and not _prose_listed(module, documented):
            missing.append(f"{where}:{line}: {module}")
    assert not missing, "names the docs send readers to, missing from docs/api.md:\n" + "\n".join(
        missing
    )


def test_the_check_sees_imports_and_prose() -> None:
    """Guards the test itself: it finds the README's import and a prose reference."""
    readme = _references(ROOT / "README.md")
    assert any(module == "mcpkit.server" and name == "Server" for _, module, name in readme)
    assert _resolves("mcpkit.server.Server.run") and not _resolves("mcpkit.server.active_requests")


_PROSE_COMMAND: Final = re.compile(r"`mcpkit (?P<word>[a-z][a-z-]*)\b")
DEVELOPMENT_NOTES: Final = (
    "Today's wiring",
    "Notes for the",
    "no transport existed yet",
    "throwaway",
    "should catch it",
)
"""Phrases of notes between developers, which have no place on a user's page."""


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))],
                         ids=lambda p: p.name)  # fmt: skip
def test_every_mcpkit_command_a_page_names_exists(page: Path) -> None:
    """In prose (```mcpkit WORD …```) and in the shell blocks a reader runs."""
    from mcpkit.cli._commands import MODULES

    text = page.read_text(encoding="utf-8")
    named = [
        (text.count("\n", 0, m.start()) + 1, m.group("word")) for m in _PROSE_COMMAND.finditer(text)
    ]
    for block in parse_blocks(page.relative_to(ROOT), text):
        if block.language in SHELL_LANGUAGES:
            named += [(block.line, c.split()[1]) for c in shell_commands(block)
                      if c.startswith("mcpkit ") and len(c.split()) > 1]  # fmt: skip
    unknown = [f"{page.name}:{line}: mcpkit {word}" for line, word in named
               if word not in MODULES and not word.startswith("-")]  # fmt: skip
    assert not unknown, f"commands that do not exist: {unknown}"


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.name)
def test_user_pages_carry_no_development_notes(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    found = [phrase for phrase in DEVELOPMENT_NOTES if phrase in text]
    assert not found, f"{page.name}: development notes: {found}"

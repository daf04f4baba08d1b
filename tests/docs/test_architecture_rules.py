"""The rule table of docs/architecture.md names tests that exist.

The section "Rules of issue #11 and their tests" maps each rule to the tests that hold it. A test
renamed, moved or deleted would leave the table promising a check nobody runs, so every
``tests/...py::name`` (or ``::Class::name``) in that section must be a test function defined in
that file, and every row must name at least one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
DOC: Final = ROOT / "docs" / "architecture.md"
SECTION: Final = "## Rules of issue #11 and their tests"
REFERENCE: Final = re.compile(r"`(tests/[\w/]+\.py)((?:::\w+)+)`")


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/architecture.md lost its section {SECTION!r}"
    body = text.split(SECTION, 1)[1]
    return body.split("\n## ", 1)[0]


def rows() -> list[str]:
    lines = [line for line in section().splitlines() if line.startswith("|")]
    return lines[2:]  # after the header and its rule


def defined(path: Path) -> set[str]:
    """``name`` of each module-level test function and ``Class::name`` of each test method."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update(
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return {name for name in names if name.rsplit("::", 1)[-1].startswith("test")}


def test_every_rule_row_names_tests() -> None:
    table = rows()
    assert len(table) >= 15, table
    bare = [row for row in table if not REFERENCE.search(row)]
    assert not bare, "rows naming no test:\n" + "\n".join(bare)


def test_every_named_test_exists() -> None:
    missing = []
    for file, names in REFERENCE.findall(section()):
        path = ROOT / file
        name = names[2:]
        if not path.is_file() or name not in defined(path):
            missing.append(f"{file}::{name}")
    assert not missing, "docs/architecture.md names tests that do not exist:\n" + "\n".join(missing)


def test_the_check_would_see_a_wrong_name() -> None:
    found = REFERENCE.findall("| x | `tests/protocol/test_shape.py::test_no_such_thing` | y |")
    assert found == [("tests/protocol/test_shape.py", "::test_no_such_thing")]
    assert "test_no_such_thing" not in defined(ROOT / "tests/protocol/test_shape.py")

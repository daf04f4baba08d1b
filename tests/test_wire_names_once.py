"""Every protocol constant is spelt once in ``src/mcpkit``; everything else imports it.

A wire string written out in two modules drifts: one copy gets fixed, the other does not (the
core-tasks revision, ``notifications/cancelled`` and the client's mode literal each had three
copies). This scans the source (an AST walk: docstrings and comments do not count, they explain)
for the strings below and fails when one of them appears in more than one module.
``protocol/_shape_tables.py`` is generated from the schemas and is not scanned.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from typing import Final

import pytest

SRC: Final = Path(__file__).resolve().parents[1] / "src" / "mcpkit"
GENERATED: Final = frozenset({"protocol/_shape_tables.py"})

WIRE_STRINGS: Final = (
    # method names the engine, runtime and transports branch on by hand
    "notifications/cancelled",
    "notifications/progress",
    "notifications/initialized",
    # 2026-07-28 result and MRTR keys
    "resultType",
    "inputRequests",
    "inputResponses",
    "requestState",
    # reserved _meta keys
    "progressToken",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/subscriptionId",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/related-task",
    "io.modelcontextprotocol/tasks",
    # HTTP header names
    "Mcp-Session-Id",
    "MCP-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "Mcp-Param-",
    "Last-Event-ID",
    "x-mcp-header",
)

CLIENT_MODES: Final = ("auto", "legacy", "2026-07-28")
"""The client mode literal, spelt as a sequence of exactly these strings."""
CORE_TASKS_REVISION: Final = "2025-11-25"
"""May appear in several modules as a revision, but is bound to a name in one module only."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The string nodes that are docstrings (module, class, function, attribute)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.add(id(statement.value))
    return found


class _Module:
    def __init__(self, path: Path) -> None:
        self.name = path.relative_to(SRC).as_posix()
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        docs = _docstrings(self.tree)
        self.strings = {
            node.value
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
        }

    def spells_modes(self) -> bool:
        """Whether a tuple, list or subscript lists exactly the client modes."""
        for node in ast.walk(self.tree):
            elements: list[ast.expr] | None = None
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                elements = list(node.elts)
            if elements is None:
                continue
            values = tuple(e.value for e in elements if isinstance(e, ast.Constant))
            if len(values) == len(elements) and set(values) == set(CLIENT_MODES):
                return True
        return False

    def binds(self, value: str) -> bool:
        """Whether a module-level assignment binds a name to the string ``value``."""
        for statement in self.tree.body:
            target_value: ast.expr | None = None
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                target_value = statement.value
            if isinstance(target_value, ast.Constant) and target_value.value == value:
                return True
        return False


@pytest.fixture(scope="module")
def modules() -> list[_Module]:
    found = [_Module(path) for path in sorted(SRC.rglob("*.py"))]
    return [module for module in found if module.name not in GENERATED]


def test_each_wire_string_is_spelt_in_one_module(modules: list[_Module]) -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for module in modules:
        for string in module.strings.intersection(WIRE_STRINGS):
            where[string].append(module.name)
    repeated = {string: names for string, names in where.items() if len(names) > 1}
    assert not repeated, f"define once and import: {repeated}"
    assert set(where) == set(WIRE_STRINGS), "every listed string is defined somewhere"


def test_the_client_modes_are_listed_once(modules: list[_Module]) -> None:
    spelling = [module.name for module in modules if module.spells_modes()]
    assert spelling == ["types/_versions.py"]


def test_the_core_tasks_revision_is_named_in_one_module(modules: list[_Module]) -> None:
    naming = [module.name for module in modules if module.binds(CORE_TASKS_REVISION)]
    assert naming == ["types/_versions.py"]

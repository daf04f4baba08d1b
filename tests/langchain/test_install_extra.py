"""``pip install ".[langchain,http]"`` — what docs/langgraph.md says to run — pulls everything
the page's code and ``examples/langgraph`` import (the HTTP servers' uvicorn and httpx too).

Imports are read from the code (``ast``), mapped to the distributions that provide them, and
checked against mcpkit's dependencies plus the extra, followed through installed metadata.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "langgraph.md"
EXAMPLES = ROOT / "examples" / "langgraph"


def _imports(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _code() -> set[str]:
    modules: set[str] = set()
    for path in EXAMPLES.glob("*.py"):
        modules |= _imports(path.read_text(encoding="utf-8"))
    for block in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        modules |= _imports(block)
    local = {path.stem for path in EXAMPLES.glob("*.py")} | {"examples", "mcpkit"}
    return {m for m in modules if m not in sys.stdlib_module_names and m not in local}


def _closure(requirements: list[str], extras: dict[str, list[str]]) -> set[str]:
    """Distributions reached from ``requirements`` (mcpkit's own extras expanded)."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name == "mcpkit":
            for extra in req.extras:
                todo.extend(Requirement(r) for r in extras[extra])
            continue
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(req.name) or []:
            sub = Requirement(line)
            if sub.marker is None or sub.marker.evaluate({"extra": ""}):
                todo.append(sub)
    return seen


def test_the_langchain_extra_covers_the_pages_code_and_examples() -> None:
    # written as a reader installs from a checkout or wheel: pip install ".[langchain,http]"
    match = re.search(r"""pip install ["'](?:mcpkit|\.)\[([a-z,]+)\]["']""", DOC.read_text("utf-8"))
    assert match, "docs/langgraph.md shows no install line"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    installed = _closure([*project["dependencies"], f"mcpkit[{match.group(1)}]"], extras)
    providers = metadata.packages_distributions()
    missing = {
        module: providers.get(module, ["?"])
        for module in _code()
        if not {canonicalize_name(d) for d in providers.get(module, [])} & installed
    }
    assert not missing, f"[{match.group(1)}] does not install what the page imports: {missing}"

"""Kinds of slow or heavy tests, marked at collection so the inner loop can leave them out.

``scripts/test-fast`` runs ``-m "not (browser or deploy or peers or install)"``: everything that
needs no browser, no multi-process deployment, no installed peer (the official SDK, FastMCP, the
conformance suite) and no fresh install (a built wheel in new virtualenvs: the docs harness).
A test gets a kind from where it lives or what it uses, so a new test of such a kind is marked
without anyone remembering to; an explicit mark works too.
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType
from typing import Final

import pytest

__all__ = [
    "BROWSER",
    "DEPLOY",
    "DEPLOY_MODULES",
    "INSTALL",
    "INSTALL_MODULES",
    "PEERS",
    "PEER_FIXTURES",
    "mark_by_kind",
]

BROWSER: Final = "browser"
DEPLOY: Final = "deploy"
PEERS: Final = "peers"
INSTALL: Final = "install"

_TESTS: Final = Path(__file__).resolve().parent
DEPLOY_MODULES: Final = (
    "deploy/",
    "contrib/redis/test_redis_workers.py",
    "cli/test_run_workers.py",
)
"""Paths (relative to ``tests/``) of modules that start several workers (and a proxy)."""
INSTALL_MODULES: Final = ("docs/test_code_blocks.py", "docs/test_install.py")
"""Modules whose tests run in virtualenvs made from the built wheel (once per session)."""
PEER_FIXTURES: Final = frozenset({"mcp_python", "everything", "fastmcp_python"})
"""Fixtures that hand a test an installed peer."""


@functools.cache  # once per module, not once per test
def _uses_playwright(module: ModuleType | None) -> bool:
    if module is None:
        return False
    for value in vars(module).values():
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", "")
        if isinstance(name, str) and name.startswith("playwright"):
            return True
    return False


def mark_by_kind(items: list[pytest.Item]) -> None:
    """Add the ``browser`` / ``deploy`` / ``peers`` / ``install`` marks that a test's module or
    fixtures imply (explicit marks work too)."""
    for item in items:
        where = item.path.resolve().relative_to(_TESTS).as_posix() if item.path else ""
        module = getattr(item, "module", None)
        if "browser" in where or _uses_playwright(module):
            item.add_marker(BROWSER)
        if any(where.startswith(prefix) for prefix in DEPLOY_MODULES):
            item.add_marker(DEPLOY)
        if where in INSTALL_MODULES:
            item.add_marker(INSTALL)
        if PEER_FIXTURES & set(getattr(item, "fixturenames", ())) or where.startswith(
            "conformance/test_client_contract"
        ):
            item.add_marker(PEERS)

"""Session-wide test setup. Keep this file to imports and hook calls; put the logic in helper
modules next to it (``tests/_*.py``)."""

from __future__ import annotations

import pytest

import _markers
import _schema_check
import _wire_log  # before any test module: it imports mcpkit._runtime its own way
import _xdist_env  # noqa: F401  (sets the worker's TMPDIR on import)
from _schema_check import schema_check  # noqa: F401  (autouse fixture)


def pytest_configure(config: pytest.Config) -> None:
    _schema_check.configure(config)
    _wire_log.configure(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _markers.mark_by_kind(items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _wire_log.check(session)

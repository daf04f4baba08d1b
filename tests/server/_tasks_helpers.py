"""Shared bits of the Tasks extension tests."""

from __future__ import annotations

from typing import Any

from _schema_check import SchemaCheck
from mcpkit.server.tasks import TASKS_EXTENSION_ID

EXT: dict[str, Any] = {"elicitation": {}, "extensions": {TASKS_EXTENSION_ID: {}}}
"""Client capabilities that declare the extension (and elicitation, for questions)."""
TIMEOUT = 5.0
"""Upper bound on every wait in these tests."""


def forgive_own_requests(schema_check: SchemaCheck, count: int) -> None:
    """The test sent ``count`` schema-invalid requests on purpose; the server's answers are
    still checked (any other violation fails the test)."""
    ours = [v for v in schema_check.violations if '"method"' in v.message]
    assert len(ours) == count == len(schema_check.violations), schema_check.violations
    schema_check.clear()

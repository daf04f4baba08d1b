"""Every CLI test gets its own temp dir: the example servers (children of the command, which
inherit ``TMPDIR``) create their SQLite files there, not in the shared system temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("MCPKIT_EXAMPLES_DATA", raising=False)
    monkeypatch.delenv("MCPKIT_DOCS_DIR", raising=False)
    return tmp_path

"""The session's wheel and clean venvs (see ``_install``), shared by the docs and install tests."""

from __future__ import annotations

import pytest

from ._install import Installs, session_base


@pytest.fixture(scope="session")
def installs(tmp_path_factory: pytest.TempPathFactory) -> Installs:
    return Installs(session_base(tmp_path_factory.getbasetemp()))

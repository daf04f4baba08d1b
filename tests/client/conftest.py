"""Fixtures for the client tests: the reference SDK's interpreter and our fixture servers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import pytest

from _peers import MCP_PYTHON

ROOT: Final = Path(__file__).resolve().parents[2]
PEERS_DIR: Final = Path(__file__).resolve().parent / "peers"
EVERYTHING: Final = PEERS_DIR / "mcp_everything.py"
RAW_SERVER: Final = PEERS_DIR / "raw_server.py"


@pytest.fixture(scope="session")
def mcp_python() -> str:
    """The reference SDK's interpreter; a missing peer is a failure, never a skip."""
    if not MCP_PYTHON.exists():
        pytest.fail(
            f"the official MCP SDK peer is missing ({MCP_PYTHON}); run scripts/install-peers "
            "(scripts/test does it before pytest)"
        )
    return str(MCP_PYTHON)


@pytest.fixture
def everything(mcp_python: str) -> list[str]:
    """argv of the reference-SDK fixture server (both eras over stdio)."""
    return [mcp_python, str(EVERYTHING)]


def raw_server(*args: str) -> list[str]:
    """argv of the stdlib fixture server with the given behaviour flags."""
    return [sys.executable, str(RAW_SERVER), *args]

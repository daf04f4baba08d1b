"""Where the installed peers are (the official SDK's venv, the conformance suite).

``scripts/install-peers`` installs them under ``$PEERS_DIR`` (default ``.peers`` in the repository);
the tests look in the same place, so a checkout can share another's peers by exporting
``PEERS_DIR`` (a relative value is taken from the repository root, as the scripts do).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

__all__ = ["MCP_PYTHON", "PEERS_ROOT", "ROOT"]

ROOT: Final = Path(__file__).resolve().parents[1]
PEERS_ROOT: Final = ROOT / os.environ.get("PEERS_DIR", ".peers")
"""``$PEERS_DIR`` resolved as the scripts resolve it (an absolute value stays absolute)."""
MCP_PYTHON: Final = PEERS_ROOT / "mcp-venv" / "bin" / "python"
"""The official Python SDK's interpreter (``mcp`` 2.3.0)."""

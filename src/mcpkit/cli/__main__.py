"""``python -m mcpkit.cli``: the same command as the ``mcpkit`` console script."""

from __future__ import annotations

from mcpkit.cli._app import run_cli

if __name__ == "__main__":
    raise SystemExit(run_cli())

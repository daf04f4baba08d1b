"""The ``mcpkit`` command: run, inspect, call and install MCP servers from a terminal.

Imports stay lazy (only ``argparse`` at start) so ``mcpkit --help`` answers in milliseconds;
each subcommand loads the server or client machinery it needs when it runs.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mcpkit`` console script; returns the process exit code."""
    from mcpkit.cli._app import run_cli

    return run_cli(argv)

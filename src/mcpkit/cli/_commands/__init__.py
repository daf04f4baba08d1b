"""The subcommands; each module has ``register(subparsers)`` and ``execute(args) -> int``."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Final

__all__ = ["MODULES", "load_command"]

MODULES: Final = {
    "run": "run",
    "list": "list_",
    "call": "call",
    "read": "read",
    "prompt": "prompt",
    "inspect": "inspect_",
    "install": "install",
    "dev": "dev",
    "host": "host",
    "rest": "rest",
    "watch": "watch",
    "gateway": "gateway",
}


def load_command(name: str) -> ModuleType:
    return importlib.import_module(f"mcpkit.cli._commands.{MODULES[name]}")

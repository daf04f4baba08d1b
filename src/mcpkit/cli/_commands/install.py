"""``mcpkit install HOST TARGET``: add a server to an MCP host's configuration.

HOST is ``claude-desktop``, ``claude-code``, ``cursor``, ``vscode`` or ``mcp-json``; the entry
is written in that host's own format and file (see :mod:`mcpkit.cli._install`), or printed with
``--print``. Restart the host (or reload its MCP servers) afterwards.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    from mcpkit.cli._install import HOSTS

    parser = subparsers.add_parser(
        "install", help="add a server to Claude, Cursor, VS Code …", description=__doc__
    )
    parser.add_argument("host", choices=HOSTS, metavar="HOST", help=" | ".join(HOSTS))
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument("--name", help="the server's name in the host (default: from the target)")
    parser.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--config", metavar="PATH", help="write this file instead")
    parser.add_argument("--scope", choices=("user", "project"), help="cursor: which mcp.json")
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the entry instead of writing it")  # fmt: skip
    parser.add_argument("--force", action="store_true", help="replace an entry of the same name")


def execute(args: argparse.Namespace) -> int:
    from mcpkit.cli._connect import parse_env
    from mcpkit.cli._install import config_path, entry_for, install_entry, render_entry
    from mcpkit.cli._render import write
    from mcpkit.cli._targets import resolve

    env = parse_env(args.env)
    target = resolve(args.target)
    entry = entry_for(target, args.name, env)
    if args.print_only:
        key, body = render_entry(args.host, entry)
        write(json.dumps({key: {entry.name: body}}, ensure_ascii=False, indent=2))
        if args.host == "claude-code":
            write("\n# or: " + _claude_add_command(entry))
        return 0
    path = Path(args.config) if args.config else config_path(args.host, scope=args.scope)
    written = install_entry(args.host, entry, path, force=args.force)
    write(f"added {entry.name!r} to {written}")
    return 0


def _claude_add_command(entry: Any) -> str:
    if entry.url is not None:
        return shlex.join(["claude", "mcp", "add", "--transport", "http", entry.name, entry.url])
    env = [part for key, value in (entry.env or {}).items() for part in ("-e", f"{key}={value}")]
    return shlex.join(["claude", "mcp", "add", *env, entry.name, "--", entry.command, *entry.args])

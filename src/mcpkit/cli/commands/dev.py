"""``mcpkit dev TARGET``: open the official MCP Inspector (a web UI) on a server.

Runs ``npx @modelcontextprotocol/inspector`` with the target's command (stdio) or its URL
(``--transport http --server-url``). The Inspector needs Node.js :data:`MIN_NODE_MAJOR` or
newer; without it (or with an older one) the command says so and exits 2, and
``mcpkit inspect`` / ``mcpkit call`` remain available from the terminal. ``--print`` shows the
command instead of running it.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
from typing import Any, Final

INSPECTOR_PACKAGE: Final = "@modelcontextprotocol/inspector"
MIN_NODE_MAJOR: Final = 22
NODE_VERSION_TIMEOUT_SECONDS: Final = 10.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dev", help="open the MCP Inspector on a server (needs Node.js)", description=__doc__
    )
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--package", default=INSPECTOR_PACKAGE,
                        help=f"the Inspector package (default {INSPECTOR_PACKAGE})")  # fmt: skip
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the command instead of running it")  # fmt: skip


def inspector_command(args: argparse.Namespace) -> list[str]:
    from mcpkit.cli.connect import parse_env
    from mcpkit.cli.install import entry_for
    from mcpkit.cli.targets import resolve

    env = parse_env(args.env)
    target = resolve(args.target)
    entry = entry_for(target, "server", env)
    command = ["npx", "-y", args.package]
    if entry.url is not None:
        return [*command, "--transport", "http", "--server-url", entry.url]
    for key, value in (entry.env or {}).items():
        command += ["-e", f"{key}={value}"]
    assert entry.command is not None
    return [*command, "--", entry.command, *entry.args]


def _node_major() -> int | None:
    node = shutil.which("node")
    if node is None:
        return None
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True,
            timeout=NODE_VERSION_TIMEOUT_SECONDS, check=False,
        ).stdout  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.match(r"v(\d+)", out.strip())
    return int(match.group(1)) if match else None


def execute(args: argparse.Namespace) -> int:
    from mcpkit.cli.errors import CliError
    from mcpkit.cli.render import write

    command = inspector_command(args)
    if args.print_only:
        write(shlex.join(command))
        return 0
    if shutil.which("npx") is None or shutil.which("node") is None:
        raise CliError(
            "the MCP Inspector runs on Node.js, and node/npx are not on PATH",
            hint=f"install Node.js {MIN_NODE_MAJOR}+ (https://nodejs.org), or explore from the "
            "terminal with `mcpkit inspect TARGET` and `mcpkit call TARGET TOOL`",
        )
    major = _node_major()
    if major is None or major < MIN_NODE_MAJOR:
        found = f"v{major}" if major is not None else "an unknown version"
        raise CliError(
            f"the MCP Inspector needs Node.js {MIN_NODE_MAJOR} or newer; this node is {found}",
            hint="upgrade Node.js, or use `mcpkit inspect TARGET` from the terminal",
        )
    return subprocess.call(command)

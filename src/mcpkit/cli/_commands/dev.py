"""``mcpkit dev [TARGET]``: explore, call and debug a server in mcpkit's own web inspector.

Serves a local page on 127.0.0.1 (a free port unless ``--port``) with a one-time token in its
URL, already connected to TARGET when one is given; ``--open`` opens it in the browser. Nothing
beyond ``mcpkit[cli]`` is needed (see docs/inspector.md).

``--official`` runs the official MCP Inspector instead (``npx @modelcontextprotocol/inspector``
with the target's command or URL, ``-e``, ``--header``, ``--bearer`` and ``--mode``), which needs
Node.js 22 or newer; without it the command says so and exits 2. ``--print`` shows that command
instead of running it.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
from typing import Any, Final

from mcpkit.types import CLIENT_MODES

INSPECTOR_PACKAGE: Final = "@modelcontextprotocol/inspector"
MIN_NODE_MAJOR: Final = 22
"""(The module docstring, which ``--help`` prints, says 22 in words: keep them together.)"""
OFFICIAL_ERAS: Final = {"legacy": "legacy", "2026-07-28": "modern", "auto": "auto"}
"""``--mode`` as the official Inspector's ``--protocol-era`` (its own default is legacy)."""
NODE_VERSION_TIMEOUT_SECONDS: Final = 10.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dev",
        help="explore a server in mcpkit's web inspector",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="TARGET", nargs="?", help="the server to connect to")
    parser.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE",
                        help="environment variable for a stdio server (repeatable)")  # fmt: skip
    add_web_options(parser)
    parser.add_argument("--official", action="store_true",
                        help="run the official Inspector through npx (needs Node.js)")  # fmt: skip
    parser.add_argument("--package", default=INSPECTOR_PACKAGE,
                        help=f"the Inspector package (default {INSPECTOR_PACKAGE})")  # fmt: skip
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the command instead of running it")  # fmt: skip


def add_web_options(parser: argparse.ArgumentParser) -> None:
    """Options of the web inspector, shared with ``mcpkit inspect --web``."""
    parser.add_argument("--port", type=int, default=0,
                        help="port on 127.0.0.1 (default: any free port)")  # fmt: skip
    parser.add_argument("--open", dest="open_browser", action="store_true",
                        help="open the page in the browser")  # fmt: skip
    parser.add_argument("--mode", "--era", dest="mode", default="auto",
                        choices=CLIENT_MODES,
                        help="protocol era for the first connection (default: detect)")  # fmt: skip
    parser.add_argument("--header", action="append", default=[], metavar="NAME:VALUE",
                        help="HTTP header for a URL target (repeatable)")  # fmt: skip
    parser.add_argument("--bearer", metavar="TOKEN",
                        help="bearer token for a URL target (or MCPKIT_BEARER)")  # fmt: skip


def run_web_inspector(args: argparse.Namespace) -> int:
    """Serve the web inspector, connected to ``args.target`` if given."""
    import os

    from mcpkit.cli._connect import parse_env
    from mcpkit.cli._errors import CliError
    from mcpkit.cli.inspector import ConnectSpec, run_inspector

    headers: dict[str, str] = {}
    for item in args.header:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise CliError(f"--header {item!r} is not NAME:VALUE")
        headers[name.strip()] = value.strip()
    spec = None
    if args.target:
        spec = ConnectSpec(
            target=args.target,
            mode=args.mode,
            headers=headers,
            bearer=args.bearer or os.environ.get("MCPKIT_BEARER") or None,
            env=parse_env(getattr(args, "env", [])),
        )
    try:
        return run_inspector(spec, port=args.port, open_browser=args.open_browser)
    except OSError as exc:
        raise CliError(
            f"cannot serve the inspector on 127.0.0.1:{args.port}: {exc.strerror or exc}",
            hint="choose another --port, or leave it out to take any free port",
        ) from None


def inspector_command(args: argparse.Namespace) -> list[str]:
    """The official Inspector's command line for the same target and options.

    ``--mode`` becomes ``--protocol-era`` when given (left out for the default ``auto``, as the
    command has always been printed); ``--bearer`` becomes an ``Authorization`` header.
    """
    import os

    from mcpkit.cli._connect import parse_env
    from mcpkit.cli._errors import CliError
    from mcpkit.cli._install import entry_for
    from mcpkit.cli._targets import resolve

    env = parse_env(args.env)
    target = resolve(args.target)
    entry = entry_for(target, "server", env)
    command = ["npx", "-y", args.package]
    if args.mode != "auto":
        command += ["--protocol-era", OFFICIAL_ERAS[args.mode]]
    headers = [h.strip() for h in args.header]
    bearer = args.bearer or os.environ.get("MCPKIT_BEARER")
    if bearer:
        headers.append(f"Authorization: Bearer {bearer}")
    if entry.url is not None:
        command += ["--transport", "http", "--server-url", entry.url]
        for header in headers:
            command += ["--header", header]
        return command
    if headers:
        raise CliError("--header and --bearer apply to URL targets only")
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
    from mcpkit.cli._errors import CliError
    from mcpkit.cli._render import write

    if not args.official:
        if args.print_only:
            raise CliError("--print shows the official Inspector's command: add --official")
        return run_web_inspector(args)
    if not args.target:
        raise CliError("the official Inspector needs a TARGET")
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

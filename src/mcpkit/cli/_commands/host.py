"""``mcpkit host CONFIG [TOOL [key=value ...]]``: every server of a config file, as one host.

CONFIG is a Claude Desktop / Cursor ``mcpServers`` file or a VS Code ``mcp.json`` (with
``${env:…}``, ``${input:…}``, ``${workspaceFolder}`` variables: ``--input id=value`` answers an
input, anything not given is asked at the terminal; the workspace folder is the current
directory unless ``--workspace``). Each server is connected in its own supervised connection
(:class:`mcpkit.client.Host`), then the command prints every server's state (era, protocol
version, or why it failed) and the tools, prompts and resources it discovered, under the names
the host routes by (``server__tool`` when two servers offer the same name).

With TOOL the call goes through the host's routing to the server offering it — arguments typed
by that tool's schema, progress drawn on stderr, questions answered at the terminal — and its
result is printed after the catalogue. ``--server NAME`` (repeatable) connects only those
servers; ``--output-json`` prints everything as one JSON document. A server that fails does not
stop the others; the exit code is 3 only when none could be reached, the called tool's server is
down, or — with ``--strict`` — any server is not ready.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Final

CONNECT_TIMEOUT: Final = 30.0
"""Seconds every server gets to start and answer before it is reported as failed."""


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import DEFAULT_TIMEOUT

    parser = subparsers.add_parser(
        "host", help="connect every server of an mcpServers file", description=__doc__
    )
    parser.add_argument("config", metavar="CONFIG", help="mcpServers / VS Code mcp.json file")
    parser.add_argument("tool", nargs="?", metavar="TOOL", help="call this tool through the host")
    parser.add_argument("arguments", nargs="*", metavar="key=value")
    parser.add_argument("--json", dest="json_arguments", metavar="JSON",
                        help="the tool's arguments as one JSON object")  # fmt: skip
    parser.add_argument("--server", action="append", default=[], metavar="NAME",
                        help="connect only this server (repeatable)")  # fmt: skip
    parser.add_argument("--input", action="append", default=[], metavar="ID=VALUE",
                        help="answer a ${input:ID} variable of the config")  # fmt: skip
    parser.add_argument("--workspace", metavar="DIR", help="${workspaceFolder} (default: here)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS")
    parser.add_argument("--no-input", action="store_true",
                        help="decline the servers' questions instead of asking")  # fmt: skip
    parser.add_argument("--output-json", action="store_true", help="print one JSON document")
    parser.add_argument("--strict", action="store_true",
                        help="exit 3 unless every server is ready")  # fmt: skip


def _ask_input(declaration: Any) -> str:
    """Answer a ``${input:id}`` at the terminal (the VS Code ``promptString`` input)."""
    from mcpkit.cli._errors import CliError

    ident = declaration.get("id", "?")
    description = declaration.get("description") or ident
    if not sys.stdin or not sys.stdin.isatty():
        raise CliError(
            f"the config asks for input {ident!r} ({description})",
            hint=f"give it with --input {ident}=VALUE",
        )
    if declaration.get("password"):
        import getpass

        return getpass.getpass(f"{description}: ")
    return input(f"{description}: ")


def load_entries(args: argparse.Namespace) -> list[Any]:
    from mcpkit.cli._connect import parse_env
    from mcpkit.cli._errors import CliError
    from mcpkit.client.host import load_servers
    from mcpkit.protocol import UsageError

    path = Path(args.config)
    if not path.is_file():
        raise CliError(f"no such config file: {path}", hint="check the path (relative to here)")
    answers = parse_env(args.input)

    def provide(declaration: Any) -> str:
        ident = declaration.get("id")
        if ident in answers:
            return answers[ident]
        return _ask_input(declaration)

    try:
        entries = load_servers(
            path, inputs=provide, workspace_folder=str(Path(args.workspace or ".").resolve())
        )
    except UsageError as exc:
        raise CliError(f"{path}: {exc}", hint="check the file and its variables") from None
    if args.server:
        names = [e.name for e in entries]
        unknown = [n for n in args.server if n not in names]
        if unknown:
            raise CliError(
                f"{path} has no server named {', '.join(unknown)}", hint=f"its servers: {names}"
            )
        entries = [e for e in entries if e.name in args.server]
    if args.verbose > 0:  # -v reaches every stdio server too (see ``mcpkit run``)
        from dataclasses import replace

        from mcpkit.cli._app import VERBOSE_ENV

        entries = [
            replace(e, target={**e.target, "env": {**(e.target.get("env") or {}),
                                                   VERBOSE_ENV: str(args.verbose)}})
            if isinstance(e.target, dict) and "command" in e.target else e
            for e in entries
        ]  # fmt: skip
    if not entries:
        raise CliError(
            f"{path} configures no (enabled) servers",
            hint='expected {"mcpServers": {NAME: {"command": ...} | {"url": ...}}}',
        )
    return entries


def print_status(status: dict[str, dict[str, Any]]) -> None:
    from mcpkit.cli._render import render_table

    rows = []
    for name, row in status.items():
        info = row.get("server_info") or {}
        server = f"{info.get('name', '')} {info.get('version', '')}".strip()
        rows.append(
            (name, row["state"], row.get("era"), row.get("protocol_version"), server,
             row.get("error"))
        )  # fmt: skip
    render_table(("SERVER", "STATE", "ERA", "PROTOCOL", "IMPLEMENTATION", "ERROR"), rows)


async def _main(args: argparse.Namespace) -> int:
    from mcpkit.cli._arguments import parse_assignments, parse_json_object
    from mcpkit.cli._commands.call import print_result
    from mcpkit.cli._elicit import TerminalElicitation, declining_handler
    from mcpkit.cli._errors import EXIT_CONNECTION, CliError
    from mcpkit.cli._progress import ProgressBar
    from mcpkit.cli._render import dump_json, render_table, to_jsonable, write
    from mcpkit.client import Host

    entries = load_entries(args)
    bar = ProgressBar()
    elicitation: Any = declining_handler
    if not args.no_input:
        terminal = TerminalElicitation()
        terminal.before_asking.append(bar.close)
        elicitation = terminal
    host = Host(
        entries,
        connect_timeout=CONNECT_TIMEOUT,
        restart=False,
        client_options={
            "elicitation_handler": elicitation,
            "timeout": args.timeout,
            "roots": [{"uri": Path.cwd().as_uri(), "name": "current directory"}],
        },
    )
    report: dict[str, Any] = {}
    async with host:
        status = host.status()
        tools = await host.list_tools()
        prompts = await host.list_prompts()
        resources = await host.list_resources()
        report = {
            "servers": status,
            "tools": [{"name": t.name, "server": t.server, "tool": to_jsonable(t.tool)}
                      for t in tools],
            "prompts": [{"name": p.name, "server": p.server} for p in prompts],
            "resources": [{"uri": r.resource.uri, "server": r.server} for r in resources],
        }  # fmt: skip
        if not args.output_json:
            print_status(status)
            write(f"\ntools ({len(tools)})")
            render_table(
                ("NAME", "SERVER", "DESCRIPTION"),
                [(t.name, t.server, t.tool.description) for t in tools],
            )
            if prompts:
                write(f"\nprompts ({len(prompts)})")
                render_table(("NAME", "SERVER"), [(p.name, p.server) for p in prompts])
            if resources:
                write(f"\nresources ({len(resources)})")
                render_table(("URI", "SERVER"), [(r.resource.uri, r.server) for r in resources])
        down = [name for name, row in status.items() if row["state"] != "ready"]
        if len(down) == len(status) or (args.strict and down):
            raise CliError(
                "no server of the config could be reached"
                if len(down) == len(status)
                else f"not every server is ready: {', '.join(down)}",
                hint="the ERROR column says why; try each with `mcpkit inspect CONFIG:NAME`",
                code=EXIT_CONNECTION,
            )
        if args.tool is None:
            if args.output_json:
                dump_json(report)
            return 0
        route = next((t for t in tools if t.name == args.tool), None)
        if route is None:
            raise CliError(
                f"no server offers a tool named {args.tool!r}",
                hint=f"tools: {', '.join(t.name for t in tools) or '(none)'}",
            )
        arguments: dict[str, Any] = {}
        if args.json_arguments is not None:
            arguments.update(parse_json_object(args.json_arguments))
        arguments.update(parse_assignments(args.arguments, route.tool.input_schema))
        try:
            result = await host.ainvoke(args.tool, arguments, progress_callback=bar.update)
        finally:
            bar.close()
    if args.output_json:
        report["result"] = to_jsonable(result)
        dump_json(report)
        return 1 if result.is_error else 0
    write(f"\n{args.tool} ({route.server}):")
    args.output_json = False
    args.structured = False
    return print_result(result, args)


def execute(args: argparse.Namespace) -> int:
    import asyncio

    from mcpkit.cli._errors import explain

    try:
        return asyncio.run(_main(args))
    except Exception as exc:
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]  # type: ignore[assignment]
        raise explain(exc, target=args.config) from exc

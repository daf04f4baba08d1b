"""``mcpkit inspect TARGET``: the wire view of a server.

What was negotiated (era, protocol version, the versions the server supports), what each side
declared (server and client capabilities, server info, instructions), the raw ``initialize`` or
``server/discover`` result, and every tool, resource, template and prompt with its schemas
exactly as the server sent them. ``--web`` opens the same in mcpkit's web inspector (see
``mcpkit dev``). ``--json`` prints it all as one JSON document; ``--wire``
prints every message exchanged, in order, one JSON object per line (``→`` sent, ``←``
received) — the place to look when a server and a client disagree. ``--card`` (a URL target;
experimental) first fetches the server's Server Card from ``<url>/server-card``, then checks it
against what the connection negotiated: the card is shown with the report, and any disagreement
is listed and makes the command exit 4.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import add_client_options

    parser = subparsers.add_parser(
        "inspect", help="show what was negotiated and every schema", description=__doc__
    )
    add_client_options(parser)
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--json", action="store_true", help="one JSON document")
    view.add_argument("--wire", action="store_true", help="the message transcript")
    view.add_argument("--web", action="store_true", help="open the web inspector (mcpkit dev)")
    parser.add_argument(
        "--card", action="store_true",
        help="fetch the URL server's Server Card first and verify it (experimental)",
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=0, help="with --web: the port on 127.0.0.1")
    parser.add_argument("--open", dest="open_browser", action="store_true",
                        help="with --web: open the page in the browser")  # fmt: skip


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


async def collect(client: Any) -> dict[str, Any]:
    from mcpkit.cli._commands.list_ import KINDS, gather
    from mcpkit.cli._render import to_jsonable

    negotiated = client.negotiated
    report: dict[str, Any] = {
        "era": negotiated.era,
        "protocolVersion": negotiated.protocol_version,
        "supportedVersions": list(negotiated.supported_versions),
        "serverInfo": negotiated.server_info,
        "instructions": negotiated.instructions,
        "serverCapabilities": negotiated.capabilities,
        "clientCapabilities": client.client_capabilities,
    }
    if negotiated.discover_result is not None:
        report["discoverResult"] = negotiated.discover_result
    if negotiated.initialize_result is not None:
        report["initializeResult"] = negotiated.initialize_result
    found = await gather(client, KINDS)
    for kind, items in found.items():
        report[kind] = [to_jsonable(item) for item in items]
    return report


def print_report(report: dict[str, Any], label: str) -> None:
    from mcpkit.cli._render import write

    info = report["serverInfo"]
    title = f" ({info['title']})" if info.get("title") else ""
    write(f"server         {info.get('name')} {info.get('version', '')}{title}")
    write(f"target         {label}")
    write(f"era            {report['era']}")
    write(f"protocol       {report['protocolVersion']}")
    if report["supportedVersions"]:
        write(f"supported      {', '.join(report['supportedVersions'])}")
    if report.get("instructions"):
        write(f"instructions   {report['instructions']}")
    write("\nserver capabilities\n" + _json(report["serverCapabilities"]))
    write("\nclient capabilities (declared by mcpkit)\n" + _json(report["clientCapabilities"]))
    for tool in report.get("tools", []):
        write(f"\ntool {tool['name']}")
        for key in ("title", "description"):
            if tool.get(key):
                write(f"  {key}: {tool[key]}")
        if tool.get("annotations"):
            write(f"  annotations: {json.dumps(tool['annotations'], ensure_ascii=False)}")
        write("  inputSchema:\n" + _indent(_json(tool.get("inputSchema"))))
        if tool.get("outputSchema"):
            write("  outputSchema:\n" + _indent(_json(tool["outputSchema"])))
    for kind, key in (("resource", "resources"), ("template", "templates"), ("prompt", "prompts")):
        for item in report.get(key, []):
            name = item.get("uri") or item.get("uriTemplate") or item.get("name")
            write(f"\n{kind} {name}\n" + _indent(_json(item)))


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


async def _main(args: argparse.Namespace) -> int:
    from mcpkit.cli._connect import open_client
    from mcpkit.cli._render import dump_json, write
    from mcpkit.cli._wire import WireLog

    wire = WireLog() if args.wire else None
    card = await _fetch_card(args.target) if args.card else None
    async with open_client(args, wire=wire) as client:
        report = await collect(client)
        label = client.name
        if card is not None:
            report["serverCard"] = card
            report["serverCardProblems"] = _card_problems(card, client, args.target)
    if wire is not None:
        for direction, message in wire.entries:
            write(f"{direction} {json.dumps(message, ensure_ascii=False)}")
        if wire.dropped:
            write(f"… {wire.dropped} more messages not shown")
    elif args.json:
        dump_json(report)
    else:
        print_report(report, label)
        if card is not None:
            write("\nserver card\n" + _json(card))
    problems = report.get("serverCardProblems") or []
    if card is not None:
        import sys

        from mcpkit.cli._errors import EXIT_PROTOCOL

        if problems:
            write("the Server Card disagrees with the server:", sys.stderr)
            for problem in problems:
                write(f"  {problem}", sys.stderr)
            return EXIT_PROTOCOL
        write("the Server Card agrees with the server", sys.stderr)
    return 0


async def _fetch_card(target: str) -> dict[str, Any]:
    from mcpkit.cli._errors import EXIT_CONNECTION, CliError

    if not target.startswith(("http://", "https://")):
        raise CliError("--card needs a URL target (a Server Card is published over HTTP)")
    from mcpkit.client import ServerCardError, fetch_server_card

    try:
        return await fetch_server_card(target)
    except ServerCardError as exc:
        raise CliError(str(exc), code=EXIT_CONNECTION) from exc


def _card_problems(card: dict[str, Any], client: Any, url: str) -> list[str]:
    from mcpkit.client import ServerCardMismatch, verify_server_card

    try:
        verify_server_card(card, client, url=url)
    except ServerCardMismatch as mismatch:
        return mismatch.problems
    return []


def execute(args: argparse.Namespace) -> int:
    import asyncio

    if args.web:
        from mcpkit.cli._commands.dev import run_web_inspector

        args.mode, args.header, args.bearer = args.era, [], None
        return run_web_inspector(args)

    return asyncio.run(_main(args))

"""``mcpkit prompt TARGET NAME [key=value ...]``: render a prompt template.

Prompt arguments are strings on the wire, so values are taken literally. Each message prints
under its role; ``--json`` prints the whole ``GetPromptResult``. A missing required argument is
reported by name before anything is sent.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import add_client_options

    parser = subparsers.add_parser("prompt", help="render a prompt", description=__doc__)
    add_client_options(parser)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("arguments", nargs="*", metavar="key=value")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")


async def _main(args: argparse.Namespace) -> int:
    from mcpkit.cli._arguments import parse_string_assignments
    from mcpkit.cli._connect import open_client
    from mcpkit.cli._errors import CliError
    from mcpkit.cli._render import describe_block, dump_json, to_jsonable, write

    arguments = parse_string_assignments(args.arguments)
    async with open_client(args) as client:
        prompts = {p.name: to_jsonable(p) for p in await client.list_prompts()}
        definition = prompts.get(args.name)
        if definition is None:
            known = ", ".join(sorted(prompts)) or "(none)"
            raise CliError(
                f"the server has no prompt named {args.name!r}", hint=f"its prompts: {known}"
            )
        declared = {a["name"]: a for a in definition.get("arguments") or []}
        missing = [n for n, a in declared.items() if a.get("required") and n not in arguments]
        unknown = [n for n in arguments if n not in declared]
        if missing or unknown:
            problems = []
            if missing:
                problems.append(f"missing {', '.join(missing)}")
            if unknown:
                problems.append(f"unknown {', '.join(unknown)}")
            usage = " ".join(
                f"{n}=..." if a.get("required") else f"[{n}=...]" for n, a in declared.items()
            )
            raise CliError(
                f"prompt {args.name!r}: {'; '.join(problems)}",
                hint=f"mcpkit prompt TARGET {args.name} {usage}",
            )
        result = await client.get_prompt(args.name, arguments)
    data = to_jsonable(result)
    if args.json:
        dump_json(data)
        return 0
    if data.get("description"):
        write(f"# {data['description']}")
    for message in data.get("messages") or []:
        write(f"\n[{message.get('role')}]")
        write(describe_block(message.get("content") or {}))
    return 0


def execute(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(_main(args))

"""``mcpkit list TARGET [tools|resources|templates|prompts]``: what a server offers, as tables.

Without a kind, every kind the server declares is listed (a kind it does not declare is skipped,
not an error); ``resources`` lists the resource templates too (a template is how a server offers
a family of resources). ``--json`` prints the exact list results instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Final

KINDS: Final = ("tools", "resources", "templates", "prompts")


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import add_client_options

    parser = subparsers.add_parser(
        "list", help="list tools, resources and prompts", description=__doc__
    )
    add_client_options(parser)
    parser.add_argument("kind", nargs="?", choices=KINDS, help="only this kind")
    parser.add_argument("--json", action="store_true", help="print JSON (the wire's names)")


def _required(schema: Any) -> set[str]:
    required = schema.get("required") if isinstance(schema, dict) else None
    return set(required) if isinstance(required, list) else set()


def summarize_inputs(schema: Any) -> str:
    """``query, max_price?, limit?`` — required parameters first, optional ones marked."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return ""
    required = _required(schema)
    return ", ".join(name if name in required else f"{name}?" for name in properties)


async def gather(client: Any, kinds: tuple[str, ...]) -> dict[str, list[Any]]:
    caps = client.server_capabilities
    found: dict[str, list[Any]] = {}
    if "tools" in kinds and "tools" in caps:
        found["tools"] = await client.list_tools()
    if "resources" in kinds and "resources" in caps:
        found["resources"] = await client.list_resources()
    if "templates" in kinds and "resources" in caps:
        found["templates"] = await client.list_resource_templates()
    if "prompts" in kinds and "prompts" in caps:
        found["prompts"] = await client.list_prompts()
    return found


def print_tables(found: dict[str, list[Any]]) -> None:
    from mcpkit.cli._render import render_table, to_jsonable, write

    for index, (kind, items) in enumerate(found.items()):
        if index and (items or found[list(found)[index - 1]]):
            write("")
        write(f"{kind} ({len(items)})")
        if not items:
            continue
        entries = [to_jsonable(item) for item in items]
        if kind == "tools":
            rows = [
                (e["name"], summarize_inputs(e.get("inputSchema")), e.get("description"))
                for e in entries
            ]
            render_table(("NAME", "INPUTS", "DESCRIPTION"), rows)
        elif kind == "resources":
            rows = [(e["uri"], e.get("mimeType"), e.get("description") or e.get("name"))
                    for e in entries]  # fmt: skip
            render_table(("URI", "MIME TYPE", "DESCRIPTION"), rows)
        elif kind == "templates":
            rows = [(e["uriTemplate"], e.get("mimeType"), e.get("description") or e.get("name"))
                    for e in entries]  # fmt: skip
            render_table(("URI TEMPLATE", "MIME TYPE", "DESCRIPTION"), rows)
        else:
            rows = [
                (
                    e["name"],
                    ", ".join(
                        a["name"] if a.get("required") else f"{a['name']}?"
                        for a in e.get("arguments") or []
                    ),
                    e.get("description"),
                )
                for e in entries
            ]
            render_table(("NAME", "ARGUMENTS", "DESCRIPTION"), rows)


async def _main(args: argparse.Namespace) -> int:
    from mcpkit.cli._connect import open_client
    from mcpkit.cli._render import dump_json

    kinds: tuple[str, ...] = KINDS
    if args.kind == "resources":
        kinds = ("resources", "templates")  # a template offers resources too
    elif args.kind:
        kinds = (args.kind,)
    async with open_client(args) as client:
        found = await gather(client, kinds)
    if args.kind and args.kind not in found:
        declared = "resources" if args.kind == "templates" else args.kind
        sys.stderr.write(f"mcpkit: the server does not declare the {declared} capability\n")
    if args.json:
        dump_json(found)
    else:
        print_tables(found)
    return 0


def execute(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(_main(args))

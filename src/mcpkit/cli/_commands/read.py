"""``mcpkit read TARGET URI``: read a resource and print its contents.

Text contents print as they are; binary contents are described, or written raw with
``--output FILE``. ``--json`` prints the whole ``ReadResourceResult``. A URI the server does
not have is a usage error (exit 2) naming it, in both eras (-32002 legacy, -32602 in
2026-07-28).
"""

from __future__ import annotations

import argparse
import base64
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import add_client_options

    parser = subparsers.add_parser("read", help="read a resource", description=__doc__)
    add_client_options(parser)
    parser.add_argument("uri", metavar="URI")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the (first) contents here")


async def _main(args: argparse.Namespace) -> int:
    import asyncio

    from mcpkit.cli._connect import open_client
    from mcpkit.cli._errors import CliError
    from mcpkit.cli._render import dump_json, to_jsonable, write
    from mcpkit.protocol import ResourceNotFound

    async with open_client(args) as client:
        try:
            result = await client.read_resource(args.uri)
        except ResourceNotFound:
            raise CliError(
                f"the server has no resource {args.uri!r}",
                hint="`mcpkit list TARGET resources` shows its resources and templates",
            ) from None
    data = to_jsonable(result)
    if args.json:
        dump_json(data)
        return 0
    contents = data.get("contents") or []
    if args.output:
        if not contents:
            raise CliError(f"{args.uri} has no contents to write")
        first = contents[0]
        raw = base64.b64decode(first["blob"]) if "blob" in first else first.get("text", "").encode()
        await asyncio.to_thread(Path(args.output).write_bytes, raw)
        return 0
    for entry in contents:
        if "text" in entry:
            write(entry["text"])
        else:
            size = len(entry.get("blob", "")) * 3 // 4
            write(f"[binary {entry.get('mimeType', '?')}, about {size} bytes; use --output FILE]")
    return 0


def execute(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(_main(args))

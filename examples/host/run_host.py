"""A host over several servers at once: the example shop and database servers, plus one broken
server to show that a bad server does not affect the others.

Run it from anywhere::

    python examples/host/run_host.py

It loads ``mcp.json`` (the VS Code format, with ``${env:...}``, ``${input:...}`` and
``${workspaceFolder}`` variables), starts every server in its own supervised connection, prints
each server's negotiation (era, protocol version) and the aggregated tool catalogue, then calls
tools through the host's routing. The database server is filtered down to its read-only tools.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
from pathlib import Path

from mcpkit.client import Host, ToolFilter

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


async def main() -> dict[str, str]:
    """Run the demo; returns what the tool calls answered (the tests check it)."""
    os.environ.setdefault("MCPKIT_PYTHON", sys.executable)
    data_dir = os.environ.get("MCPKIT_EXAMPLES_DATA") or tempfile.mkdtemp(prefix="mcpkit-host-")
    host = Host.from_file(
        HERE / "mcp.json",
        inputs={"data-dir": data_dir},
        workspace_folder=str(ROOT),
        filters={"database": ToolFilter.read_only()},
        restart=False,  # the broken server is given up on at once instead of retried
    )
    answers: dict[str, str] = {}
    async with host:
        for name, row in host.status().items():
            print(
                f"{name:10} {row['state']:10} {row.get('era', '-'):7} "
                f"{row.get('protocol_version', '-'):11} {row.get('error', '')}"
            )
        print()
        for tool in await host.list_tools():
            print(
                f"{tool.name:20} <- {tool.server}: {(tool.tool.description or '').splitlines()[0]}"
            )
        print()
        found = await host.call_tool("search_products", {"query": "running shoes", "limit": 1})
        answers["search_products"] = found.content[0].text  # type: ignore[union-attr]
        rows = await host.ainvoke("query_database", {"sql": "SELECT count(*) AS n FROM customers"})
        answers["query_database"] = rows.content[0].text  # type: ignore[union-attr]
    for name, text in answers.items():
        print(f"{name}: {text}")
    return answers


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(main())

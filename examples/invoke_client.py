"""A plain script that uses MCP servers through ``invoke`` — no asyncio in sight.

Run it from the repository root::

    python examples/invoke_client.py

``SyncClient`` starts the example shop and database servers as stdio child processes (this same
Python runs them, so nothing needs to be on PATH) and ``invoke`` calls a tool: the arguments
are checked against the tool's input schema before anything is sent — a mistake is an
``InputValidationError`` naming the field — and the result is checked against its output
schema. Both servers' data live in ``$MCPKIT_EXAMPLES_DATA`` (passed on explicitly: stdio
servers only inherit an allow-listed environment).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcpkit.client import InputValidationError, SyncClient

HERE = Path(__file__).resolve().parent


def server(script: str) -> dict[str, object]:
    """An ``mcpServers``-style entry that runs one of the example servers."""
    data = os.environ.get("MCPKIT_EXAMPLES_DATA")
    env = {"MCPKIT_EXAMPLES_DATA": data} if data else {}
    return {"command": sys.executable, "args": [str(HERE / script)], "env": env}


def main() -> None:
    with SyncClient(server("shop_server.py")) as shop:
        found = shop.invoke("search_products", {"query": "跑步鞋", "limit": 1})
        product = found.structured_content["result"][0]  # type: ignore[index]
        print(f"跑步鞋 -> {product['name']} at {product['price']:.0f} {product['currency']}")
        try:
            shop.invoke("search_products", {"query": "跑步鞋", "limit": "one"})
        except InputValidationError as exc:
            print(f"caught before sending: {exc}")

    with SyncClient(server("database_server.py")) as db:
        rows = db.invoke("query_database", {"sql": "SELECT city FROM customers ORDER BY id"})
        cities = [row[0] for row in rows.structured_content["rows"]]  # type: ignore[index]
        print("cities:", ", ".join(cities))
        refused = db.invoke("query_database", {"sql": "DROP TABLE customers"})
        print("DROP TABLE ->", refused.content[0].text)  # type: ignore[union-attr]


if __name__ == "__main__":
    main()

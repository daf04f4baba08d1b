"""Live inventory and orders. ``place_order`` asks the user for quantity and address
(elicitation: a server→client request in the handshake era, an ``input_required`` round in
2026-07-28), reports progress and logs, then reserves stock.

The stock feed has a bug kept on purpose: for the Garmin watch it reports ``"stock": "unknown"``,
which violates the tool's own output schema — the client catches it and names the field.

Data (stock, orders, and a log of each time ``place_order``'s body starts) lives in SQLite under
``$MCPKIT_EXAMPLES_DATA``, so it survives restarts. Run:
``python examples/langgraph/inventory_server.py --http --port 8001``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from _serve import main, versions

from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.server import Context, Server, ToolError, ToolResult

STOCK = {
    "nike-air-max": (12, 899.0),
    "asics-gel-kayano": (5, 1099.0),
    "adidas-ultraboost": (8, 1299.0),
    "converse-chuck": (30, 459.0),
    "garmin-forerunner": (3, 2980.0),
}
BROKEN_FEED = {"garmin-forerunner"}


def database() -> Path:
    folder = Path(os.environ.get("MCPKIT_EXAMPLES_DATA") or tempfile.gettempdir())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "inventory-v1.sqlite"
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE IF NOT EXISTS stock (id TEXT PRIMARY KEY, stock INT, price REAL)")
        db.execute(
            "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, product_id TEXT,"
            " quantity INT, address TEXT, total REAL)"
        )
        db.execute("CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, tool TEXT)")
        db.executemany(
            "INSERT OR IGNORE INTO stock VALUES (?, ?, ?)",
            [(k, s, p) for k, (s, p) in STOCK.items()],
        )
    db.close()
    return path


@contextlib.contextmanager
def connect() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(database())
    db.row_factory = sqlite3.Row
    try:
        with db:
            yield db
    finally:
        db.close()


@dataclass
class Stock:
    product_id: str
    stock: int
    warehouse: str


@dataclass
class OrderDetails:
    address: str
    quantity: int = 1


@dataclass
class Order:
    order_id: int
    product_id: str
    quantity: int
    address: str
    total: float


def build(legacy_only: bool = False) -> Server:
    server = Server("inventory", "1.0.0", supported_versions=versions(legacy_only))

    @server.tool(read_only=True)
    def get_stock(product_id: str) -> Stock:
        """Units in stock for a product, and the warehouse that holds them."""
        with connect() as db:
            row = db.execute("SELECT * FROM stock WHERE id = ?", (product_id,)).fetchone()
        if row is None:
            raise ResourceNotFound(f"no stock record for {product_id!r}", {"uri": product_id})
        if product_id in BROKEN_FEED:  # the feed's bug: a string where the schema says integer
            return ToolResult(  # type: ignore[return-value]
                content=[{"type": "text", "text": "stock unknown"}],
                structured_content={
                    "product_id": product_id,
                    "stock": "unknown",
                    "warehouse": "SH-1",
                },
            )
        return Stock(product_id, row["stock"], "SH-1")

    @server.tool(destructive=False, idempotent=False)
    async def place_order(product_id: str, ctx: Context) -> Order:
        """Order a product: asks the user for the quantity and the address, then reserves it."""
        with connect() as db:
            db.execute("INSERT INTO calls (tool) VALUES ('place_order')")
            row = db.execute("SELECT * FROM stock WHERE id = ?", (product_id,)).fetchone()
        if row is None:
            raise ToolError(f"no product {product_id!r}")
        await ctx.report_progress(0, 2, "asking for quantity and address")
        answer = await ctx.elicit(
            f"How many {product_id} (in stock: {row['stock']}), and where to?", OrderDetails
        )
        if not answer.accepted or answer.content is None:
            raise ToolError("the order was cancelled by the user")
        quantity = answer.content.quantity
        address = answer.content.address
        if not 1 <= quantity <= row["stock"]:
            raise ToolError(f"cannot order {quantity}: {row['stock']} in stock")
        await ctx.info(f"reserving {quantity} x {product_id} for {address}")
        with connect() as db:
            db.execute("UPDATE stock SET stock = stock - ? WHERE id = ?", (quantity, product_id))
            cursor = db.execute(
                "INSERT INTO orders (product_id, quantity, address, total) VALUES (?, ?, ?, ?)",
                (product_id, quantity, address, quantity * row["price"]),
            )
        await ctx.report_progress(2, 2, "reserved")
        return Order(
            int(cursor.lastrowid or 0), product_id, quantity, address, quantity * row["price"]
        )

    return server


if __name__ == "__main__":
    main(build)

"""Product search over an embedded SQLite catalogue (the design documents' shop server).

Run it::

    mcpkit run examples/shop_server.py            # stdio
    mcpkit run examples/shop_server.py --http     # Streamable HTTP on 127.0.0.1:8000/mcp
    python examples/shop_server.py                # stdio, without the mcpkit command

then ``mcpkit call examples/shop_server.py search_products query=跑步鞋``.

The catalogue is created on first run in ``$MCPKIT_EXAMPLES_DATA`` (default: a folder in the
system temp directory) — no database service. Products have Chinese and English names and
keywords, so "跑步鞋" and "running shoes" find the same Nike Air Max at 899 CNY.

``place_order`` shows the two interactive features: it reports progress and asks the user to
confirm the order (form elicitation — a question at the terminal under ``mcpkit call``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final

from mcpkit.server import Context, Server, ToolError

DATA_ENV: Final = "MCPKIT_EXAMPLES_DATA"
DB_NAME: Final = "shop-v1.sqlite"
MAX_RESULTS: Final = 50

# id, English name, Chinese name, brand, category, price (CNY), stock, keywords (both languages)
# fmt: off
CATALOGUE: Final = [
    ("nike-air-max", "Nike Air Max", "耐克 Air Max 气垫跑步鞋", "Nike", "shoes", 899.0, 12,
     "running shoes sneakers trainers 跑步鞋 运动鞋 气垫"),
    ("asics-gel-kayano", "ASICS Gel-Kayano 30", "亚瑟士 Gel-Kayano 30 稳定跑鞋", "ASICS", "shoes",
     1099.0, 5, "running shoes stability 跑步鞋 跑鞋 运动鞋"),
    ("adidas-ultraboost", "Adidas Ultraboost Light", "阿迪达斯 Ultraboost 轻盈跑步鞋", "Adidas",
     "shoes", 1299.0, 8, "running shoes boost 跑步鞋 运动鞋"),
    ("converse-chuck", "Converse Chuck Taylor All Star", "匡威 经典帆布鞋", "Converse", "shoes",
     459.0, 30, "canvas sneakers casual 帆布鞋 休闲鞋"),
    ("lining-shirt", "Li-Ning Dry-Fit Running Shirt", "李宁 速干跑步T恤", "Li-Ning", "clothing",
     159.0, 40, "running shirt t-shirt quick dry 跑步 T恤 速干"),
    ("garmin-forerunner", "Garmin Forerunner 265", "佳明 Forerunner 265 跑步手表", "Garmin",
     "watches", 2980.0, 3, "running watch gps 跑步 手表 运动手表"),
    ("yonex-racket", "Yonex Astrox 88D Badminton Racket", "尤尼克斯 天斧88D 羽毛球拍", "Yonex",
     "rackets", 1380.0, 6, "badminton racket 羽毛球拍 球拍"),
    ("hydro-flask", "Hydro Flask 32 oz Bottle", "Hydro Flask 保温水壶 946毫升", "Hydro Flask",
     "accessories", 349.0, 25, "water bottle insulated 水壶 保温杯"),
]
# fmt: on


def data_dir() -> Path:
    """Where the examples keep their databases (created on first use)."""
    path = Path(os.environ.get(DATA_ENV) or Path(tempfile.gettempdir()) / "mcpkit-examples")
    path.mkdir(parents=True, exist_ok=True)
    return path


def database() -> Path:
    """The catalogue, created on first run.

    Built in a temporary file and renamed into place, so two servers starting at once never see
    a half-written catalogue.
    """
    path = data_dir() / DB_NAME
    if path.exists():
        return path
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    db = sqlite3.connect(tmp)
    with db:
        db.execute(
            "CREATE TABLE products (id TEXT PRIMARY KEY, name TEXT, name_zh TEXT, brand TEXT,"
            " category TEXT, price REAL, stock INTEGER, keywords TEXT)"
        )
        db.execute(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, product_id TEXT, quantity INTEGER,"
            " address TEXT, total REAL)"
        )
        db.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?, ?)", CATALOGUE)
    db.close()
    os.replace(tmp, path)
    return path


@contextlib.contextmanager
def connect() -> Iterator[sqlite3.Connection]:
    """A connection for one call: committed if the block succeeds, always closed."""
    db = sqlite3.connect(database())
    db.row_factory = sqlite3.Row
    try:
        with db:
            yield db
    finally:
        db.close()


@dataclass
class Product:
    id: str
    name: str
    name_zh: str
    brand: str
    category: str
    price: float
    currency: str
    in_stock: int


def _product(row: sqlite3.Row) -> Product:
    return Product(
        row["id"],
        row["name"],
        row["name_zh"],
        row["brand"],
        row["category"],
        row["price"],
        "CNY",
        row["stock"],
    )


server = Server(
    "shop",
    "1.0.0",
    title="Example shop",
    instructions="Search the catalogue with search_products before answering product questions.",
)


@server.tool(read_only=True)
def search_products(
    query: str,
    max_price: Annotated[float | None, "only products at or below this price (CNY)"] = None,
    limit: Annotated[int, "at most this many products"] = 5,
) -> list[Product]:
    """Search the catalogue by name, brand or keyword, in Chinese or English.

    Args:
        query: words to look for, e.g. "跑步鞋" or "running shoes"
    """
    terms = query.split() or [query]
    # Every term must match somewhere; rank by how many fields match the whole query, then price.
    where = " AND ".join(
        "(name LIKE ? OR name_zh LIKE ? OR brand LIKE ? OR keywords LIKE ?)" for _ in terms
    )
    params: list[object] = [f"%{t}%" for t in terms for _ in range(4)]
    if max_price is not None:
        where += " AND price <= ?"
        params.append(max_price)
    whole = f"%{query}%"
    sql = (
        f"SELECT *, (name LIKE ?) + (name_zh LIKE ?) + (keywords LIKE ?) AS score"
        f" FROM products WHERE {where} ORDER BY score DESC, price ASC LIMIT ?"
    )
    with connect() as db:
        rows = db.execute(sql, [whole, whole, whole, *params, max(1, min(limit, MAX_RESULTS))])
        return [_product(row) for row in rows.fetchall()]


@server.tool(read_only=True)
def get_product(product_id: str) -> Product:
    """One product by its id (as returned by search_products)."""
    with connect() as db:
        row = db.execute("SELECT * FROM products WHERE id = ?", (product_id,)).fetchone()
    if row is None:
        raise ToolError(f"no product with id {product_id!r}; use search_products to find ids")
    return _product(row)


@dataclass
class OrderDetails:
    quantity: int = 1
    address: str = "Shanghai"


@server.tool(destructive=False, idempotent=False)
async def place_order(product_id: str, ctx: Context) -> str:
    """Order a product: asks the user for quantity and address, then reserves stock."""
    await ctx.report_progress(0, 3, "looking up the product")
    with connect() as db:
        row = db.execute("SELECT * FROM products WHERE id = ?", (product_id,)).fetchone()
    if row is None:
        raise ToolError(f"no product with id {product_id!r}; use search_products to find ids")
    answer = await ctx.elicit(f"Order {row['name']} at {row['price']:.0f} CNY each?", OrderDetails)
    if not answer.accepted or answer.content is None:
        return "Order cancelled."
    quantity = answer.content.quantity
    address = answer.content.address
    await ctx.report_progress(1, 3, "reserving stock")
    if quantity < 1 or quantity > row["stock"]:
        raise ToolError(f"cannot order {quantity}: {row['stock']} in stock")
    with connect() as db:
        db.execute("UPDATE products SET stock = stock - ? WHERE id = ?", (quantity, product_id))
        cursor = db.execute(
            "INSERT INTO orders (product_id, quantity, address, total) VALUES (?, ?, ?, ?)",
            (product_id, quantity, address, quantity * row["price"]),
        )
    await ctx.report_progress(3, 3, "confirmed")
    return (
        f"Order #{cursor.lastrowid}: {quantity} x {row['name']} to {address}, "
        f"{quantity * row['price']:.0f} CNY."
    )


if __name__ == "__main__":
    server.run()

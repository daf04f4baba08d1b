"""The product catalog behind both implementations of the product-search contract: SQLite.

``Catalog(path)`` opens (and on first use fills) a small database of categories and products;
``search`` is the query the contract's ``search.products`` describes. Errors are typed by the
contract's codes (:class:`CatalogError`), so each implementation only maps them to its transport.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from pathlib import Path
from typing import Any

__all__ = ["Catalog", "CatalogError"]

_CATEGORIES = [(1, "Kitchen", None), (2, "Coffee", 1), (3, "Knives", 1), (4, "Garden", None)]
_PRODUCTS = [
    (1, "Espresso machine", 249.0, 2, "https://img.example/espresso.png"),
    (2, "Coffee grinder", 89.5, 2, "https://img.example/grinder.png"),
    (3, "Coffee beans 1kg", 18.9, 2, None),
    (4, "Chef knife", 64.0, 3, "https://img.example/knife.png"),
    (5, "Bread knife", 29.0, 3, None),
    (6, "Garden hose", 35.0, 4, None),
    (7, "Coffee mug", 9.5, 1, "https://img.example/mug.png"),
]


class CatalogError(Exception):
    """A failure the contract names: ``status`` and ``code`` come from its error responses."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail

    def problem(self) -> dict[str, Any]:
        titles = {400: "Bad Request", 404: "Not Found"}
        return {
            "title": titles.get(self.status, "Error"),
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }


class Catalog:
    """Thread-safe access to one SQLite file (sync implementations run in worker threads)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.executescript(
                "CREATE TABLE IF NOT EXISTS categories (id INTEGER PRIMARY KEY, name TEXT,"
                " parent INTEGER);"
                "CREATE TABLE IF NOT EXISTS products (id INTEGER PRIMARY KEY, name TEXT,"
                " price REAL, category_id INTEGER, image_url TEXT);"
            )
            if not self._db.execute("SELECT 1 FROM products LIMIT 1").fetchone():
                self._db.executemany("INSERT INTO categories VALUES (?, ?, ?)", _CATEGORIES)
                self._db.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?)", _PRODUCTS)

    def close(self) -> None:
        self._db.close()

    def search(
        self,
        q: str,
        category_ids: list[int] | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        page: int = 1,
        page_size: int = 10,
    ) -> dict[str, Any]:
        if min_price is not None and max_price is not None and min_price > max_price:
            raise CatalogError(400, "INVALID_PRICE_RANGE", "min_price is above max_price")
        where = ["name LIKE ? ESCAPE '\\'"]
        escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args: list[Any] = [f"%{escaped}%"]
        if category_ids:
            where.append(f"category_id IN ({','.join('?' * len(category_ids))})")
            args.extend(category_ids)
        if min_price is not None:
            where.append("price >= ?")
            args.append(min_price)
        if max_price is not None:
            where.append("price <= ?")
            args.append(max_price)
        sql_where = " AND ".join(where)
        with self._lock:
            total = self._db.execute(f"SELECT COUNT(*) FROM products WHERE {sql_where}", args)
            count = int(total.fetchone()[0])
            pages = math.ceil(count / page_size)
            if page > max(pages, 1):
                raise CatalogError(
                    400, "PAGE_OUT_OF_RANGE", f"page {page} is past the last page ({pages})"
                )
            rows = self._db.execute(
                f"SELECT * FROM products WHERE {sql_where} ORDER BY price, id LIMIT ? OFFSET ?",
                [*args, page_size, (page - 1) * page_size],
            ).fetchall()
        return {
            "results": [dict(row) for row in rows],
            "pagination": {
                "page": page,
                "page_size": page_size,
                "total": count,
                "total_pages": pages,
                "next_page": page + 1 if page < pages else None,
            },
        }

    def product(self, product_id: int) -> dict[str, Any]:
        with self._lock:
            row = self._db.execute("SELECT * FROM products WHERE id = ?", [product_id]).fetchone()
        if row is None:
            raise CatalogError(404, "PRODUCT_NOT_FOUND", f"no product has id {product_id}")
        return dict(row)

    def categories(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = [dict(r) for r in self._db.execute("SELECT * FROM categories ORDER BY id")]
        nodes = {row["id"]: {"id": row["id"], "name": row["name"], "children": []} for row in rows}
        roots: list[dict[str, Any]] = []
        for row in rows:
            parent = nodes.get(row["parent"]) if row["parent"] is not None else None
            (parent["children"] if parent else roots).append(nodes[row["id"]])
        return roots

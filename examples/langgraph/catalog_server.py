"""The product knowledge graph: products of the 跑步鞋 catalogue, their brands and categories,
and "similar to" edges between them. Run: ``python examples/langgraph/catalog_server.py``.

Products are the shop example's (``examples/shop_server.py``): "跑步鞋" and "running shoes" find
the same Nike Air Max at 899 CNY.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Annotated

from _serve import main, versions

from mcpkit.server import Server


@dataclass
class Product:
    id: str
    name: str
    name_zh: str
    brand: str
    category: str
    price: float
    keywords: str


@dataclass
class Edge:
    source: str
    relation: str
    target: str


# fmt: off
PRODUCTS = [
    Product("nike-air-max", "Nike Air Max", "耐克 Air Max 气垫跑步鞋", "Nike", "shoes", 899.0,
            "running shoes sneakers 跑步鞋 运动鞋 气垫"),
    Product("asics-gel-kayano", "ASICS Gel-Kayano 30", "亚瑟士 Gel-Kayano 30 稳定跑鞋", "ASICS",
            "shoes", 1099.0, "running shoes stability 跑步鞋 跑鞋 运动鞋"),
    Product("adidas-ultraboost", "Adidas Ultraboost Light", "阿迪达斯 Ultraboost 轻盈跑步鞋",
            "Adidas", "shoes", 1299.0, "running shoes boost 跑步鞋 运动鞋"),
    Product("converse-chuck", "Converse Chuck Taylor All Star", "匡威 经典帆布鞋", "Converse",
            "shoes", 459.0, "canvas sneakers casual 帆布鞋 休闲鞋"),
    Product("garmin-forerunner", "Garmin Forerunner 265", "佳明 Forerunner 265 跑步手表", "Garmin",
            "watches", 2980.0, "running watch gps 跑步 手表 运动手表"),
]
SIMILAR = [("nike-air-max", "adidas-ultraboost"), ("nike-air-max", "asics-gel-kayano"),
           ("asics-gel-kayano", "adidas-ultraboost")]
# fmt: on
LOGO_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def edges() -> list[Edge]:
    out = [Edge(p.id, "made_by", p.brand) for p in PRODUCTS]
    out += [Edge(p.id, "in_category", p.category) for p in PRODUCTS]
    out += [Edge(a, "similar_to", b) for a, b in SIMILAR]
    out += [Edge(b, "similar_to", a) for a, b in SIMILAR]
    return out


def build(legacy_only: bool = False) -> Server:
    server = Server("catalog", "1.0.0", supported_versions=versions(legacy_only))

    @server.tool(read_only=True)
    def search(
        query: str,
        max_price: Annotated[float | None, "only products at or below this price (CNY)"] = None,
    ) -> list[Product]:
        """Products whose names or keywords contain every word of the query (Chinese or
        English), cheapest first."""
        terms = query.lower().split() or [query.lower()]
        found = [
            p
            for p in PRODUCTS
            if all(t in f"{p.name} {p.name_zh} {p.brand} {p.keywords}".lower() for t in terms)
            and (max_price is None or p.price <= max_price)
        ]
        return sorted(found, key=lambda p: p.price)

    @server.tool(read_only=True)
    def neighbours(product_id: str) -> list[Edge]:
        """The knowledge graph's edges from one product: brand, category, similar products."""
        return [e for e in edges() if e.source == product_id]

    @server.resource("catalog://brands", mime_type="text/plain")
    def brands() -> str:
        """The brands in the catalogue, one per line."""
        return "\n".join(sorted({p.brand for p in PRODUCTS}))

    @server.resource("catalog://logo.png", mime_type="image/png")
    def logo() -> bytes:
        """The shop's logo (a binary resource)."""
        return LOGO_PNG

    return server


if __name__ == "__main__":
    main(build)

"""The design documents' product search (跑步鞋) with an MCP App: product cards whose
"add to cart" button calls a server tool from inside the app.

Run it::

    mcpkit dev examples/shoe_shop_app.py              # the inspector renders the cards
    python examples/shoe_shop_app.py                  # stdio
    python examples/shoe_shop_app.py --http 8000      # Streamable HTTP on 127.0.0.1:8000/mcp

``search_products`` renders in the view ``ui://shoe-shop/product-cards`` (plain HTML in
``examples/apps/product_cards.html`` plus mcpkit's bridge, no build step). ``add_to_cart`` is
visible to the app only: the model never sees it, and a client without MCP Apps is not offered
it. Every tool still answers with text, so a host without apps gets a useful result.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))

from shop_server import CATALOGUE

from mcpkit.server import Server, ToolError, ToolResult, content

VIEW: Final = Path(__file__).resolve().parent / "apps" / "product_cards.html"

server = Server("shoe-shop", "1.0.0", instructions="Search products; the cards let people buy.")
cards = server.ui_resource(
    "ui://shoe-shop/product-cards",
    VIEW,
    description="Product cards with an add-to-cart button",
    prefers_border=True,
    bridge=True,
)
CART: dict[str, int] = {}


class Product(TypedDict):
    id: str
    name: str
    name_zh: str
    brand: str
    price: float


def _products() -> dict[str, Product]:
    return {
        row[0]: Product(id=row[0], name=row[1], name_zh=row[2], brand=row[3], price=row[5])
        for row in CATALOGUE
    }


@server.tool(ui=cards, read_only=True)
def search_products(query: str, max_results: int = 5) -> ToolResult:
    """Search the catalogue in Chinese or English (e.g. 跑步鞋, running shoes)."""
    words = query.lower().split()
    found = [
        _products()[row[0]]
        for row in CATALOGUE
        if all(w in " ".join(map(str, (row[1], row[2], row[3], row[7]))).lower() for w in words)
    ][:max_results]
    lines = [f"{p['name']} ({p['name_zh']}): {p['price']:g} CNY" for p in found]
    text = "\n".join(lines) or f"Nothing found for {query!r}."
    return ToolResult(content=[content.text(text)], structured_content={"products": found})


@server.tool(ui=cards, visibility=["app"])
def add_to_cart(product_id: str, quantity: int = 1) -> ToolResult:
    """Put a product in the cart (called by the product cards, not by the model)."""
    product = _products().get(product_id)
    if product is None or quantity < 1:
        raise ToolError(f"no product {product_id!r}" if product is None else "quantity >= 1")
    CART[product_id] = CART.get(product_id, 0) + quantity
    count = sum(CART.values())
    return ToolResult(
        content=[content.text(f"Added {quantity} x {product['name']}; {count} item(s) in cart.")],
        structured_content={"cart": dict(CART), "items": count},
    )


@server.tool(read_only=True)
def view_cart() -> dict[str, int]:
    """What is in the cart (product id -> quantity)."""
    return dict(CART)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("http", port=int(sys.argv[2]))
    else:
        server.run()

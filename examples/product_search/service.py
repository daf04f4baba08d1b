"""The product-search contract implemented contract-first: three functions, checked against
``openapi.yaml`` when they are registered and on every call, served as MCP and as REST.

    python examples/product_search_server.py               # MCP over stdio
    python examples/product_search_server.py --rest 8000   # the REST API the contract describes
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpkit.contrib.openapi import Contract, OperationError
from product_search.catalog import Catalog, CatalogError

CONTRACT = Path(__file__).with_name("openapi.yaml")

__all__ = ["CONTRACT", "build_contract"]


def build_contract(catalog: Catalog) -> Contract:
    """The contract with every operation implemented against ``catalog``."""
    contract = Contract(CONTRACT)

    @contract.implement("search.products")
    def search_products(
        q: str,
        category_ids: list[int] | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        page: int = 1,
        page_size: int = 10,
    ) -> dict[str, Any]:
        """Search the catalog; typed failures become the contract's 400 problem."""
        try:
            return catalog.search(q, category_ids, min_price, max_price, page, page_size)
        except CatalogError as exc:
            raise OperationError(exc.status, exc.problem()) from None

    @contract.implement("products.get")
    def get_product(product_id: int) -> dict[str, Any]:
        try:
            return catalog.product(product_id)
        except CatalogError as exc:
            raise OperationError(exc.status, exc.problem()) from None

    @contract.implement("categories.list")
    def list_categories() -> list[dict[str, Any]]:
        return catalog.categories()

    return contract

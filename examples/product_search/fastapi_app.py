"""The same product-search API as an ordinary FastAPI service (what many teams already run).

``create_app(catalog)`` builds it; mcpkit can then serve it as MCP in process
(``from_fastapi(app)``) or over HTTP from its ``/openapi.json`` (``from_openapi(url, client)``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from product_search.catalog import Catalog, CatalogError

__all__ = ["create_app"]


class Product(BaseModel):
    id: int = Field(ge=1)
    name: str
    price: float = Field(ge=0)
    category_id: int
    image_url: str | None = Field(description="A picture of the product, when there is one.")


class Pagination(BaseModel):
    page: int = Field(ge=1)
    page_size: int = Field(ge=1, le=50)
    total: int = Field(ge=0)
    total_pages: int = Field(ge=0)
    next_page: int | None


class SearchResults(BaseModel):
    results: list[Product]
    pagination: Pagination


class Category(BaseModel):
    id: int
    name: str
    children: list[Category]


class Problem(BaseModel):
    title: str
    status: int
    detail: str | None = None
    code: Literal["INVALID_PRICE_RANGE", "PAGE_OUT_OF_RANGE", "PRODUCT_NOT_FOUND"]


def create_app(catalog: Catalog) -> FastAPI:
    app = FastAPI(title="Product search", version="1.0.0")

    @app.exception_handler(CatalogError)
    async def typed_error(request: Request, exc: CatalogError) -> JSONResponse:
        return JSONResponse(exc.problem(), status_code=exc.status)

    @app.get(
        "/products/search",
        operation_id="search.products",
        summary="Search products",
        tags=["search"],
        responses={400: {"model": Problem}},
    )
    def search_products(
        q: Annotated[str, Query(min_length=2, max_length=100)],
        category_ids: Annotated[list[int] | None, Query(max_length=10)] = None,
        min_price: Annotated[float | None, Query(ge=0)] = None,
        max_price: Annotated[float | None, Query(gt=0)] = None,
        page: Annotated[int, Query(ge=1)] = 1,
        page_size: Annotated[int, Query(ge=1, le=50)] = 10,
    ) -> SearchResults:
        found = catalog.search(q, category_ids, min_price, max_price, page, page_size)
        return SearchResults.model_validate(found)

    @app.get(
        "/products/{product_id}",
        operation_id="products.get",
        summary="One product by id",
        tags=["catalog"],
        responses={404: {"model": Problem}},
    )
    def get_product(product_id: Annotated[int, Path(ge=1)]) -> Product:
        return Product.model_validate(catalog.product(product_id))

    @app.get(
        "/categories", operation_id="categories.list", summary="The category tree", tags=["catalog"]
    )
    def list_categories() -> list[Category]:
        return [Category.model_validate(c) for c in catalog.categories()]

    return app

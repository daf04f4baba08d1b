"""Contract-first: the product-search contract implemented by Python functions, checked at
registration and per call, served as MCP (both eras) and as REST over real uvicorn HTTP."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from mcpkit.contrib.openapi import Contract, ContractError, OperationError
from mcpkit.testing import ERAS, connect

from .conftest import serve


@pytest.fixture
def contract(catalog: Any) -> Contract:
    from product_search.service import build_contract

    return build_contract(catalog)


def bare() -> Contract:
    from product_search.service import CONTRACT

    return Contract(CONTRACT)


@pytest.mark.parametrize("mode", ERAS)
async def test_served_as_mcp(contract: Contract, mode: str) -> None:
    async with connect(contract.server(), mode=mode) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"search_products", "products_get", "categories_list"}
        max_price = tools["search_products"].input_schema["properties"]["max_price"]
        assert max_price["exclusiveMinimum"] == 0 and "minimum" not in max_price  # 3.0 → 2020-12
        page = await client.call_tool("search_products", {"q": "knife", "page_size": 1})
        assert not page.is_error, page
        assert page.structured_content["results"][0]["name"] == "Bread knife"
        assert page.structured_content["pagination"]["next_page"] == 2
        invalid = await client.call_tool("search_products", {"q": "knife", "page_size": 500})
        assert (
            invalid.is_error and "500 is greater than the maximum of 50" in invalid.content[0].text
        )
        missing = await client.call_tool("products_get", {"product_id": 99})
        assert missing.is_error and missing.structured_content["code"] == "PRODUCT_NOT_FOUND"
        tree = await client.call_tool("categories_list", {})
        assert tree.structured_content["result"][0]["children"][0]["name"] == "Coffee"


async def test_served_as_rest_over_http(contract: Contract) -> None:
    async with serve(contract.rest_app()) as url, httpx.AsyncClient(base_url=url) as http:
        found = await http.get(
            "/products/search",
            params=[
                ("q", "coffee"),
                ("category_ids", "1"),
                ("category_ids", "2"),
                ("max_price", "50"),
            ],
        )
        assert found.status_code == 200, found.text
        assert [p["name"] for p in found.json()["results"]] == ["Coffee mug", "Coffee beans 1kg"]
        comma = await http.get("/products/search", params={"q": "coffee", "category_ids": "2"})
        assert comma.json()["pagination"]["total"] == 2
        product = await http.get("/products/4")
        assert product.json()["name"] == "Chef knife"
        missing = await http.get("/products/99")
        assert missing.status_code == 404 and missing.json()["code"] == "PRODUCT_NOT_FOUND"
        bad_range = await http.get(
            "/products/search", params={"q": "ab", "min_price": 9, "max_price": 1}
        )
        assert bad_range.status_code == 400 and bad_range.json()["code"] == "INVALID_PRICE_RANGE"
        invalid = await http.get("/products/search", params={"q": "a", "page": "x"})
        assert invalid.status_code == 400
        assert invalid.headers["content-type"] == "application/json"  # as the contract documents
        fields = {e["field"] for e in invalid.json()["errors"]}
        assert fields == {"q", "page"}
        not_found = await http.get("/nowhere")
        assert not_found.status_code == 404
        wrong_method = await http.delete("/products/4")
        assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "GET"
        document = await http.get("/openapi.json")
        assert (
            document.json()["paths"]["/products/search"]["get"]["operationId"] == "search.products"
        )


def test_registration_refuses_functions_that_do_not_fit() -> None:
    contract = bare()
    with pytest.raises(ContractError, match="requires argument\\(s\\) q"):
        contract.implement("search.products")(lambda page=1: {})
    with pytest.raises(ContractError, match="'colour' is not an argument"):
        contract.implement("search.products")(lambda q, colour=None: {})
    with pytest.raises(ContractError, match="'min_price' has no default"):
        contract.implement("search.products")(lambda q, min_price: {})

    def typed(product_id: str) -> dict[str, Any]:
        return {}

    with pytest.raises(ContractError, match=r"annotated .* but the contract's schema says integer"):
        contract.implement("products.get")(typed)
    with pytest.raises(ContractError, match=r"no operation .products\.delete."):
        contract.implement("products.delete")
    with pytest.raises(ContractError, match=r"without an implementation: search\.products"):
        contract.server()

    def ok(product_id: int) -> dict[str, Any]:
        return {}

    contract.implement("products.get")(ok)
    with pytest.raises(ContractError, match="already implemented"):
        contract.implement("products.get")(ok)
    assert contract.server(require_all=False) is not None


async def test_broken_promises_are_caught_per_call(caplog: pytest.LogCaptureFixture) -> None:
    contract = bare()

    @contract.implement("products.get")
    def get_product(product_id: int) -> dict[str, Any]:
        if product_id == 1:
            return {"id": 1, "name": "no price"}
        if product_id == 2:
            raise OperationError(409, {"title": "Conflict", "status": 409})
        raise OperationError(404, {"status": 404})  # documented, but "title" is missing

    server = contract.server(require_all=False)
    with caplog.at_level(logging.ERROR, logger="mcpkit.contrib.openapi"):
        async with connect(server, output_validation="off") as client:
            wrong_body = await client.call_tool("products_get", {"product_id": 1})
            wrong_status = await client.call_tool("products_get", {"product_id": 2})
            wrong_error = await client.call_tool("products_get", {"product_id": 3})
        async with (
            serve(contract.rest_app(require_all=False)) as url,
            httpx.AsyncClient(base_url=url) as http,
        ):
            rest = await http.get("/products/1")
    assert wrong_body.is_error and "'price' is a required property" in wrong_body.content[0].text
    assert wrong_status.is_error and "OperationError(409)" in wrong_status.content[0].text
    assert wrong_error.is_error and "'title' is a required property" in wrong_error.content[0].text
    assert rest.status_code == 500 and rest.json()["title"] == "Contract Violation"
    assert sum("contract violation" in r.message for r in caplog.records) == 4


async def test_warn_mode_logs_and_answers() -> None:
    from product_search.service import CONTRACT

    contract = Contract(CONTRACT, validate_responses="warn")

    @contract.implement("products.get")
    async def get_product(product_id: int) -> dict[str, Any]:
        return {"id": product_id}

    async with connect(contract.server(require_all=False), output_validation="off") as client:
        result = await client.call_tool("products_get", {"product_id": 5})
    assert not result.is_error and result.structured_content == {"id": 5}


def test_operations_with_arguments_but_no_400_are_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {
                "get": {
                    "operationId": "a",
                    "parameters": [{"name": "x", "in": "query", "schema": {"type": "integer"}}],
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/b": {"get": {"operationId": "b", "responses": {"200": {"description": "ok"}}}},
        },
    }
    with caplog.at_level(logging.WARNING, logger="mcpkit.contrib.openapi"):
        Contract(document)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "a takes arguments but documents no 400" in warnings[0]

"""A FastAPI product-search service as MCP tools: over real HTTP (uvicorn on loopback, the
document fetched from its /openapi.json URL) and in process (ASGI transport), both eras."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpkit.contrib.openapi import GET_AS_RESOURCES, fetch_document, from_fastapi, from_openapi
from mcpkit.protocol._errors import ResourceNotFound
from mcpkit.testing import ERAS, connect

from .conftest import serve


@pytest.fixture
def app(catalog: Any) -> Any:
    from product_search.fastapi_app import create_app

    return create_app(catalog)


@pytest.fixture(params=["http", "in-process"])
async def server(request: pytest.FixtureRequest, app: Any) -> AsyncIterator[Any]:
    if request.param == "in-process":
        yield from_fastapi(app)
        return
    async with serve(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield from_openapi(await fetch_document("/openapi.json", client), client)


@pytest.mark.parametrize("mode", ERAS)
async def test_search_round_trip(server: Any, mode: str) -> None:
    async with connect(server, mode=mode) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"search_products", "products_get", "categories_list"}
        search = tools["search_products"]
        props = search.input_schema["properties"]
        assert props["q"]["minLength"] == 2 and props["q"]["maxLength"] == 100
        assert props["page_size"]["maximum"] == 50
        assert search.input_schema["required"] == ["q"]
        assert search.annotations is not None and search.annotations.read_only_hint is True
        assert search.output_schema is not None and search.output_schema["type"] == "object"
        result = await client.call_tool(
            "search_products", {"q": "coffee", "category_ids": [2], "page_size": 2}
        )
        assert not result.is_error, result
        page = result.structured_content
        assert [p["name"] for p in page["results"]] == ["Coffee beans 1kg", "Coffee grinder"]
        assert page["pagination"] == {
            "page": 1, "page_size": 2, "total": 2, "total_pages": 1, "next_page": None,
        }  # fmt: skip
        second = await client.call_tool(
            "search_products", {"q": "coffee", "page": 2, "page_size": 2}
        )
        assert [p["name"] for p in second.structured_content["results"]] == ["Coffee grinder"]
        assert second.structured_content["pagination"]["total"] == 3


async def test_array_output_is_wrapped_and_recursive_schema_is_finite(server: Any) -> None:
    async with connect(server) as client:
        tools = {t.name: t for t in await client.list_tools()}
        schema = tools["categories_list"].output_schema
        assert schema is not None and schema["required"] == ["result"]
        category = schema["$defs"]["Category"]
        assert category["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
        result = await client.call_tool("categories_list", {})
        tree = result.structured_content["result"]
        assert [c["name"] for c in tree] == ["Kitchen", "Garden"]
        assert [c["name"] for c in tree[0]["children"]] == ["Coffee", "Knives"]


async def test_typed_errors_become_is_error_with_problem_details(server: Any) -> None:
    async with connect(server) as client:
        missing = await client.call_tool("products_get", {"product_id": 99})
        assert missing.is_error
        assert "HTTP 404" in missing.content[0].text
        assert missing.structured_content["status"] == 404
        assert missing.structured_content["code"] == "PRODUCT_NOT_FOUND"
        bad_range = await client.call_tool(
            "search_products", {"q": "knife", "min_price": 50, "max_price": 10}
        )
        assert bad_range.is_error and bad_range.structured_content["code"] == "INVALID_PRICE_RANGE"


async def test_arguments_are_validated_before_any_request(app: Any) -> None:
    seen: list[str] = []

    async def record(request: httpx.Request) -> None:
        seen.append(str(request.url))

    async with serve(app) as url:
        client = httpx.AsyncClient(base_url=url, event_hooks={"request": [record]})
        async with client:
            document = (await client.get("/openapi.json")).json()
            seen.clear()
            server = from_openapi(document, client)
            async with connect(server) as mcp:
                short = await mcp.call_tool("search_products", {"q": "x"})
                assert short.is_error and "too short" in short.content[0].text
                too_big = await mcp.call_tool("search_products", {"q": "coffee", "page_size": 51})
                assert too_big.is_error and "51" in too_big.content[0].text
                unknown = await mcp.call_tool("search_products", {"q": "coffee", "colour": "red"})
                assert unknown.is_error and "colour" in unknown.content[0].text
                assert seen == []
                await mcp.call_tool("search_products", {"q": "coffee", "category_ids": [2, 3]})
                assert seen == [f"{url}/products/search?q=coffee&category_ids=2&category_ids=3"]


async def test_get_routes_become_resources_and_templates(app: Any) -> None:
    server = from_fastapi(app, route_maps=GET_AS_RESOURCES)
    async with connect(server) as client:
        assert [t.name for t in await client.list_tools()] == ["search_products"]
        assert [r.uri for r in await client.list_resources()] == ["openapi://categories"]
        templates = [t.uri_template for t in await client.list_resource_templates()]
        assert templates == ["openapi://products/{product_id}"]
        read = await client.read_resource("openapi://products/4")
        assert '"Chef knife"' in read.contents[0].text
        assert read.contents[0].mime_type == "application/json"
        with pytest.raises(ResourceNotFound):
            await client.read_resource("openapi://products/99")


async def test_documents_load_from_a_url(app: Any) -> None:
    import asyncio

    from mcpkit.contrib.openapi import OpenAPIError, load_document

    async with serve(app) as url:
        # the blocking loader (for scripts) runs in a thread: this loop is serving the API
        document = await asyncio.to_thread(load_document, f"{url}/openapi.json")
        assert document.title == "Product search" and document.version.startswith("3.1")
        with pytest.raises(OpenAPIError, match="could not fetch"):
            await fetch_document(f"{url}/nope.json")


async def test_the_apps_lifespan_runs_with_the_server() -> None:
    import contextlib

    from fastapi import FastAPI

    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        events.append("startup")
        app.state.greeting = "hello"
        yield
        events.append("shutdown")

    app = FastAPI(lifespan=lifespan)

    @app.get("/greet", operation_id="greet")
    async def greet() -> dict[str, str]:
        return {"greeting": app.state.greeting}

    async with connect(from_fastapi(app)) as client:
        assert events == ["startup"]
        result = await client.call_tool("greet", {})
        assert result.structured_content == {"greeting": "hello"}
    assert events == ["startup", "shutdown"]


async def test_apps_without_lifespan_support_are_served() -> None:
    from mcpkit.contrib.openapi import from_asgi

    from ._echo import EchoApp, echo_document

    async with connect(from_asgi(EchoApp(), echo_document())) as client:  # it asserts http
        result = await client.call_tool("echo_put", {"id": 1, "body": [3]})
    assert result.structured_content["path"] == "/echo/1"

    async def ignores_lifespan(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await EchoApp()(scope, receive, send)

    async with connect(from_asgi(ignores_lifespan, echo_document())) as client:
        result = await client.call_tool("echo_put", {"id": 2, "body": []})
    assert result.structured_content["path"] == "/echo/2"

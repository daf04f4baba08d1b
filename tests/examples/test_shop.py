"""The shop example: bilingual search over its SQLite catalogue, orders with questions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import Client

from ._servers import example


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_searching_running_shoes_in_chinese_returns_the_nike_air_max_at_899(
    tmp_path: Path, mode: Any
) -> None:
    async with Client(example("shop_server.py", tmp_path), mode=mode) as client:
        result = await client.call_tool("search_products", {"query": "跑步鞋"})
    assert not result.is_error
    products = result.structured_content["result"]
    assert (products[0]["name"], products[0]["price"]) == ("Nike Air Max", 899.0)
    assert all("跑步鞋" in p["name_zh"] or p["category"] == "shoes" for p in products)
    assert (tmp_path / "shop-v1.sqlite").is_file()  # created on first run


async def test_english_chinese_and_brand_queries_reach_the_same_product(tmp_path: Path) -> None:
    async with Client(example("shop_server.py", tmp_path)) as client:
        for query in ("running shoes", "耐克", "Nike", "气垫"):
            result = await client.call_tool("search_products", {"query": query, "max_price": 1000})
            assert [p["id"] for p in result.structured_content["result"]] == ["nike-air-max"]
        nothing = await client.call_tool("search_products", {"query": "滑雪板"})
        assert nothing.structured_content == {"result": []}
        missing = await client.call_tool("get_product", {"product_id": "nope"})
        assert missing.is_error


async def test_an_order_asks_the_user_and_takes_stock(tmp_path: Path) -> None:
    asked: list[str] = []

    async def answer(params: Any, context: Any) -> dict[str, Any]:
        asked.append(params.message)
        return {"action": "accept", "content": {"quantity": 2, "address": "Hangzhou"}}

    progress: list[float] = []
    async with Client(example("shop_server.py", tmp_path), elicitation_handler=answer) as client:
        result = await client.call_tool(
            "place_order", {"product_id": "nike-air-max"},
            progress_callback=lambda p, total, message: progress.append(p),
        )  # fmt: skip
        assert result.content[0].text == "Order #1: 2 x Nike Air Max to Hangzhou, 1798 CNY."
        after = await client.call_tool("get_product", {"product_id": "nike-air-max"})
    assert after.structured_content["in_stock"] == 10
    assert asked[0] == "Order Nike Air Max at 899 CNY each?"
    assert progress[-1] == 3
